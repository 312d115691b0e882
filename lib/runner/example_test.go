package runner_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data/synth"
	"github.com/geoalign/geoalign/lib/models"
	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/geoalign/geoalign/lib/runner"
)

// Training a GRAM run into a run directory, then calling Train again on the same directory: the
// second call resumes the finished run (no epoch is trained again) and returns the same records.
// 120 training tuples less the 12 carved for validation, in batches of 16: 6 steps an epoch, so
// the finished run resumes at step 12.
func ExampleTrain() {
	d, err := gram.SyntheticTriModal(synth.TriModalConfig{Seed: 1, Depth: 2, Branching: 3, LatentDim: 8, LevelDecay: 0.6,
		Dims: [3]int{6, 7, 8}, N: 160, Noise: [3]float64{0.1, 0.1, 0.1}}, 40)
	if err != nil {
		panic(err)
	}
	if d.Train, d.Val, err = gram.CarveValidation(d.Train, 0.1); err != nil { // Evaluate("val") needs the split
		panic(err)
	}
	cfg := gram.DefaultConfig()
	cfg.Epochs, cfg.BatchSize, cfg.Hidden, cfg.ContraDim, cfg.MatchHidden = 2, 16, 16, 8, 8
	raw, err := json.Marshal(struct{ Model gram.Config }{cfg}) // `geoalign train gram`'s configuration
	if err != nil {
		panic(err)
	}
	// The data are in memory: the Source is empty and the record fingerprints no file.
	spec := runner.Spec{Model: "gram", Data: runner.Source{}, Config: raw}
	dir, err := os.MkdirTemp("", "runner-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	runDir := filepath.Join(dir, "run")
	for range 2 {
		run, err := gram.NewRun(backend.MustNew(), cfg, d, nil)
		if err != nil {
			panic(err)
		}
		res, err := runner.Train(runDir, spec, run, models.Output{Quiet: true})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%d records, last epoch %d, resumed at step %d\n", len(res.Records), res.Records[len(res.Records)-1].Epoch, res.ResumedAt)
	}
	stored, err := runner.ReadSpec(runDir)
	if err != nil {
		panic(err)
	}
	_, err = os.Stat(filepath.Join(runDir, runner.CurvesFile))
	fmt.Println(stored.Model, stored.Made.ConfigSHA256 != "", err == nil)
	// Output:
	// 2 records, last epoch 2, resumed at step 0
	// 2 records, last epoch 2, resumed at step 12
	// gram true true
}

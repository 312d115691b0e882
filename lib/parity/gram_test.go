package parity

import (
	"math/rand/v2"
	"testing"

	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// GRAM and HyperGRAM are float32-only: their trainer feeds float32 features and creates τ and α
// as float32 variables (gram.Temperature, gram.Alpha), so there is no float64 run to compare.

// gramN is the number of tuples: one batch, so that an epoch of gram.Trainer is one step.
const gramN = 8

// gramDims are the widths of the three modalities' features (anchor first).
var gramDims = []int{6, 5, 4}

// gramData is a fixed three-modality dataset of N(0, 1) features (train = test, no validation).
func gramData(t *testing.T) *gram.Dataset {
	t.Helper()
	rng := rand.New(rand.NewPCG(29, 3))
	features := make([][]float32, len(gramDims))
	for m, d := range gramDims {
		features[m] = make([]float32, gramN*d)
		for i := range features[m] {
			features[m][i] = float32(rng.NormFloat64())
		}
	}
	split, err := gram.NewSplit(features, gramDims, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &gram.Dataset{Name: "parity", Modalities: []string{"a", "b", "c"}, Train: split, Test: split}
}

// gramConfig shrinks cfg to a tiny model trained for 3 one-step epochs without validation. DAM is
// off: its hard negatives are drawn from the backend's random bits, which differ (doc.go).
func gramConfig(cfg gram.Config) gram.Config {
	cfg.DAM = false
	cfg.Hidden, cfg.EncoderLayers, cfg.ContraDim, cfg.MatchHidden = 16, 1, 8, 8
	cfg.BatchSize, cfg.Epochs = gramN, 3
	cfg.ValFraction, cfg.EvalEvery, cfg.Quiet = 0, 0, true
	return cfg
}

// gramInputs are the whole dataset as one batch, a tensor per modality (fresh tensors per backend).
func gramInputs(d *gram.Dataset) []any {
	in := make([]any, len(gramDims))
	for m, dim := range gramDims {
		in[m] = tensors.FromFlatDataAndDimensions(append([]float32(nil), d.Train.Features[m]...), gramN, dim)
	}
	return in
}

func TestGRAMBackendParity(t *testing.T) { testGRAM(t, gramConfig(gram.DefaultConfig())) }

func TestHyperGRAMBackendParity(t *testing.T) { testGRAM(t, gramConfig(gram.HyperGRAMConfig())) }

func testGRAM(t *testing.T, cfg gram.Config) {
	goB, xlaB := backends(t)
	tol := toleranceOf(dtypes.Float32)
	data := gramData(t)
	var tr pair[*gram.Trainer]
	var err error
	if tr.Go, err = gram.NewTrainer(goB, data, cfg); err != nil {
		t.Fatal(err)
	}
	if tr.XLA, err = gram.NewTrainer(xlaB, data, cfg); err != nil {
		t.Fatal(err)
	}
	build := func(scope *model.Scope, in []*graph.Node) *graph.Node { return gram.TrainingLoss(scope, cfg, in)[0] }

	// 1. Forward and backward from the same weights: the Go backend initialises them, XLA gets a copy.
	var loss pair[float64]
	var grads pair[map[string][]float64]
	if loss.Go, grads.Go, err = lossAndGradients(goB, tr.Go.Store, build, gramInputs(data)...); err != nil {
		t.Fatal(err)
	}
	if err := copyStore(tr.XLA.Store, tr.Go.Store); err != nil {
		t.Fatal(err)
	}
	if loss.XLA, grads.XLA, err = lossAndGradients(xlaB, tr.XLA.Store, build, gramInputs(data)...); err != nil {
		t.Fatal(err)
	}
	checkLoss(t, cfg.Name()+" loss", loss, tol.Loss)
	checkGradients(t, grads, tol)

	// 2. Three AdamW steps of the trainer's own recipe (one step per epoch).
	init := weights(tr.Go.Store)
	for step := 1; step <= 3; step++ {
		var s pair[gram.EpochStats]
		if s.Go, err = tr.Go.RunEpoch(); err != nil {
			t.Fatal(err)
		}
		if s.XLA, err = tr.XLA.RunEpoch(); err != nil {
			t.Fatal(err)
		}
		checkLoss(t, "step loss", pair[float64]{s.Go.Loss, s.XLA.Loss}, tol.Loss)
		checkWeights(t, step, init, pair[map[string][]float64]{weights(tr.Go.Store), weights(tr.XLA.Store)}, tol)
	}
}

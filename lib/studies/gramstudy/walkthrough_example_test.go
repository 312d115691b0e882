package gramstudy_test

import (
	"fmt"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data/synth"
	"github.com/geoalign/geoalign/lib/models"
	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/geoalign/geoalign/lib/studies/gramstudy"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
)

// A walkthrough opens the study's model on one batch: here HyperGRAM trained for one epoch on a
// small synthetic set, its hybrid volume matrix on the batch, read into matched and unmatched
// volumes and the retrieval metrics within the batch (notebooks 10-gram and 11-hypergram open
// Tux Paint's first 16 training stamps this way).
func ExampleWalkthrough() {
	d, err := gram.SyntheticTriModal(synth.TriModalConfig{Seed: 2, Depth: 2, Branching: 3, LatentDim: 8, LevelDecay: 0.6,
		Dims: [3]int{8, 8, 8}, N: 200, Noise: [3]float64{0.1, 0.1, 0.1}}, 40)
	if err != nil {
		panic(err)
	}
	w := gramstudy.Options{FixedEpochs: 1}.NewWalkthrough(gramstudy.HyperGRAM, d)
	m, err := w.Model()
	if err != nil {
		panic(err)
	}
	exec, err := model.NewExec(backend.MustNew(), m.Store, func(scope *model.Scope, x []*graph.Node) []*graph.Node {
		_, heads := gramstudy.Encode(scope, m.Config, x)
		return []*graph.Node{gramstudy.ModelVolume(scope, m.Config, x[0].Graph())(heads[0], heads[1:]...)}
	})
	if err != nil {
		panic(err)
	}
	out, err := exec.Exec(w.Inputs()...)
	if err != nil {
		panic(err)
	}
	var v [][]float64
	for _, row := range out[0].Value().([][]float32) {
		r := make([]float64, len(row))
		for j, x := range row {
			r[j] = float64(x)
		}
		v = append(v, r)
	}
	r, err := w.Volumes(v)
	if err != nil {
		panic(err)
	}
	fmt.Printf("batch of %d: %d matched and %d unmatched volumes, T→V+A R@1 within the batch in [0, 100]: %t\n",
		w.Batch.N, len(r.Matched), len(r.Unmatched), r.Eval.T2V.R(1) >= 0 && r.Eval.T2V.R(1) <= 100)
	steps, err := w.TrainBatch(models.Output{Quiet: true}) // a fresh model, one step per epoch on the batch
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d live steps, the last at epoch %d, step %d\n", len(steps), steps[len(steps)-1].Epoch, steps[len(steps)-1].Step)
	// Output:
	// batch of 16: 16 matched and 240 unmatched volumes, T→V+A R@1 within the batch in [0, 100]: true
	// 5 live steps, the last at epoch 5, step 5
}

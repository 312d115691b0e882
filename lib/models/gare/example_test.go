package gare_test

import (
	"fmt"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/gomlx/gomlx/core/graph"
)

// A GARE model on given features: train a few steps on random pairs (a tenth of them carved out
// as the validation split that selects the model), then score every text
// against every video block by block (Δ computed for every pair) and rank them.
func Example() {
	cfg := gare.DefaultConfig()
	cfg.Dim, cfg.TextInputDim, cfg.VideoInputDim, cfg.Frames = 16, 8, 8, 4
	cfg.TemporalLayers, cfg.TemporalHeads, cfg.Batch, cfg.Epochs = 1, 2, 16, 1
	m, err := gare.New(backend.MustNew(), cfg, 1)
	if err != nil {
		panic(err)
	}
	train := gare.RandomDataset(64, 8, 8, 4, 1, 2)
	history, err := m.Train(train, gare.TrainOptions{Seed: 1, Quiet: true})
	if err != nil {
		panic(err)
	}
	test := gare.RandomDataset(40, 8, 8, 4, 1, 3)
	sc, err := m.NewScorer(test, test.Videos(), gare.ScorerOptions{TextBlock: 16, VideoBlock: 16})
	if err != nil {
		panic(err)
	}
	res, err := retrieval.Evaluate[float32](sc, nil, retrieval.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println("steps:", len(history))
	fmt.Println("ranked queries:", res.T2V.Queries)
	// Output:
	// steps: 3
	// ranked queries: 40
}

// A look inside the forward pass on three pairs: ψ's attention over each video's frames (GARE
// Eq. 7), one row of weights per (text, video) pair.
func ExampleModel_Probe() {
	cfg := gare.DefaultConfig()
	cfg.Dim, cfg.TextInputDim, cfg.VideoInputDim, cfg.Frames = 16, 8, 8, 4
	cfg.TemporalLayers, cfg.TemporalHeads = 1, 2
	m, err := gare.New(backend.MustNew(), cfg, 1)
	if err != nil {
		panic(err)
	}
	pairs := gare.RandomDataset(10, 8, 8, 4, 1, 2)
	out, err := m.Probe(pairs, []int{0, 4, 7}, func(w gare.Weights, in gare.Inputs) []*graph.Node {
		t := gare.EncodeText(w, in.Text)
		h := gare.EncodeVideo(w, in.Frames, in.FrameMask)
		a := gare.PsiAttention(cfg, w, t, h) // [texts, videos, frames]
		return []*graph.Node{a, graph.ReduceSum(a, -1)}
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("attention:", out[0].Shape().Dimensions)
	sums := out[1].Value().([][]float32)
	fmt.Printf("a row sums to %.3f\n", sums[1][2])
	// Output:
	// attention: [3 3 4]
	// a row sums to 1.000
}

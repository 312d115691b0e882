package parity

import (
	"testing"

	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// GARE is float32-only: gare.New creates float32 variables and its steps feed float32 features.

// gareBatch is the number of pairs: the whole dataset is one batch.
const gareBatch = 4

// gareConfig is the code's GARE (DefaultConfig: Δ on the text side, the full objective, BertAdam
// with global and per-tensor clipping, warmup_cosine) shrunk to a tiny model, with input
// projections (input widths ≠ Dim) and one temporal layer. ψ's dropout is off: its masks come from
// the backend's random bits, which differ (doc.go).
func gareConfig() gare.Config {
	cfg := gare.DefaultConfig()
	cfg.Dim, cfg.Frames, cfg.TextInputDim, cfg.VideoInputDim = 8, 3, 5, 6
	cfg.TemporalLayers, cfg.TemporalHeads = 1, 2
	cfg.PsiDropout = 0
	cfg.Batch, cfg.Epochs, cfg.ValFraction = gareBatch, 1, 0
	return cfg
}

// gareData is a fixed paired set of N(0, 1) features whose last video has a padded (masked, zero)
// last frame.
func gareData(cfg gare.Config) *gare.Dataset {
	d := gare.RandomDataset(gareBatch, cfg.TextInputDim, cfg.VideoInputDim, cfg.Frames, 1, 29)
	last := gareBatch - 1
	d.FrameMask[last*cfg.Frames+cfg.Frames-1] = 0
	frame := (last*cfg.Frames + cfg.Frames - 1) * cfg.VideoInputDim
	clear(d.Video[frame : frame+cfg.VideoInputDim])
	return d
}

// gareInputs are the step's inputs (text, frames, frame mask) for the whole dataset.
func gareInputs(d *gare.Dataset) []any {
	return []any{
		tensors.FromFlatDataAndDimensions(append([]float32(nil), d.Text...), d.NumTexts, d.TextDim),
		tensors.FromFlatDataAndDimensions(append([]float32(nil), d.Video...), d.NumVideos, d.Frames, d.VideoDim),
		tensors.FromFlatDataAndDimensions(append([]float32(nil), d.FrameMask...), d.NumVideos, d.Frames),
	}
}

func TestGAREBackendParity(t *testing.T) {
	goB, xlaB := backends(t)
	tol := toleranceOf(dtypes.Float32)
	cfg := gareConfig()
	data := gareData(cfg)
	var m pair[*gare.Model]
	var err error
	// gare.New draws the weights on the host (math/rand/v2 PCG from the seed): both stores start
	// equal without a copy, which this checks.
	if m.Go, err = gare.New(goB, cfg, 7); err != nil {
		t.Fatal(err)
	}
	if m.XLA, err = gare.New(xlaB, cfg, 7); err != nil {
		t.Fatal(err)
	}
	init := weights(m.Go.Store)
	if w := weights(m.XLA.Store); len(w) != len(init) {
		t.Fatalf("%d variables on Go, %d on XLA", len(init), len(w))
	} else {
		for path, v := range init {
			if d := maxDiff(v, w[path]); d != 0 {
				t.Fatalf("initial %s differs by %g between the two models of seed 7", path, d)
			}
		}
	}

	// 1. Forward and backward: the single-graph step's objective (ForwardLean, Objective).
	build := func(mod *gare.Model) func(*model.Scope, []*graph.Node) *graph.Node {
		return func(scope *model.Scope, in []*graph.Node) *graph.Node {
			w := mod.Weights(in[0].Graph())
			return gare.Objective(cfg, gare.ForwardLean(cfg, w, gare.Inputs{Text: in[0], Frames: in[1], FrameMask: in[2]}, nil)).Total
		}
	}
	var loss pair[float64]
	var grads pair[map[string][]float64]
	if loss.Go, grads.Go, err = lossAndGradients(goB, m.Go.Store, build(m.Go), gareInputs(data)...); err != nil {
		t.Fatal(err)
	}
	if loss.XLA, grads.XLA, err = lossAndGradients(xlaB, m.XLA.Store, build(m.XLA), gareInputs(data)...); err != nil {
		t.Fatal(err)
	}
	checkLoss(t, "GARE loss", loss, tol.Loss)
	checkGradients(t, grads, tol)

	// 2. Three steps of the model's own single-graph step (Model.Optimizer: BertAdam as the code
	// configures it), over 3 scheduled steps.
	var step pair[*gare.Step]
	if step.Go, err = m.Go.NewStep(3, gare.SingleGraphStep); err != nil {
		t.Fatal(err)
	}
	if step.XLA, err = m.XLA.NewStep(3, gare.SingleGraphStep); err != nil {
		t.Fatal(err)
	}
	idx := []int{0, 1, 2, 3}
	for k := 1; k <= 3; k++ {
		var s pair[gare.StepStats]
		if s.Go, err = step.Go.Run(data, idx); err != nil {
			t.Fatal(err)
		}
		if s.XLA, err = step.XLA.Run(data, idx); err != nil {
			t.Fatal(err)
		}
		checkLoss(t, "step loss", pair[float64]{s.Go.Total, s.XLA.Total}, tol.Loss)
		checkWeights(t, k, init, pair[map[string][]float64]{weights(m.Go.Store), weights(m.XLA.Store)}, tol)
	}
}

package gare

import (
	"os"
	"strconv"
	"testing"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck
	"github.com/gomlx/gomlx/ml/model"
)

// benchConfig is the official code's GARE on given 512-d features (issue 11 shapes): 12 frames,
// 4-layer temporal transformer, ψ with dropout 0.3, all losses.
func benchConfig() Config { return DefaultConfig() }

// BenchmarkPairedGareTrainStep is one training forward + backward (the gradients of every
// parameter, no optimizer update) of GARE at the official shapes: 128 texts × 128 videos, 12
// frames, 512-d given features, 4-layer temporal transformer, ψ with dropout, L_info + β L_IB +
// λ_ε L_ε + λ_dir L_dir, computed by the chunked step (step.go, TrainOptions.TextChunk =
// DefaultTextChunk, the memory-saving option) with DefaultTextChunk texts per block, stopped before
// its BertAdam update. Twin:
// lib/bench/torch/GareTrainStep.py. $GARE_BENCH_TEXT_CHUNK sets another block size, or -1 for the
// single-graph step.
func BenchmarkPairedGareTrainStep(b *testing.B) {
	cfg := benchConfig()
	m := newModel(b, cfg, 1)
	data := RandomDataset(cfg.Batch, cfg.TextInputDim, cfg.VideoInputDim, cfg.Frames, 0.4, 2)
	idx := make([]int, cfg.Batch)
	for i := range idx {
		idx[i] = i
	}
	inputs := batchTensors(data, idx, false)
	chunk := DefaultTextChunk
	if c, err := strconv.Atoi(os.Getenv("GARE_BENCH_TEXT_CHUNK")); err == nil {
		chunk = c
	}
	var run func()
	if chunk == SingleGraphStep {
		exec, err := model.NewExec(m.backend, m.Store, func(scope *model.Scope, in []*Node) []*Node {
			g := in[0].Graph()
			m.Store.SetTraining(g, true)
			terms := Objective(cfg, ForwardLean(cfg, m.Weights(g), Inputs{Text: in[0], Frames: in[1], FrameMask: in[2]}, m.dropout(scope, g)))
			var params []*Node
			for v := range scope.Store().IterVariables() {
				if v.Trainable && v.InUseByGraph(g) {
					params = append(params, v.NodeValue(g))
				}
			}
			return append([]*Node{terms.Total}, Gradient(terms.Total, params...)...)
		})
		if err != nil {
			b.Fatal(err)
		}
		run = func() {
			out, err := exec.Exec(inputs...)
			if err != nil {
				b.Fatal(err)
			}
			for _, t := range out {
				t.FinalizeAll()
			}
		}
	} else {
		cs, err := newChunkedStep(m, m.Optimizer(1000), chunk)
		if err != nil {
			b.Fatal(err)
		}
		cs.gradientsOnly = true
		run = func() {
			_, out, err := cs.execute(inputs)
			if err != nil {
				b.Fatal(err)
			}
			for _, t := range out {
				t.FinalizeAll()
			}
		}
	}
	timeWarm(b, run)
}

// BenchmarkPairedGareInference1k scores 1,000 texts × 1,000 videos with Δ computed for every pair
// (the official evaluation loop, docs/official-code.md §4.5) from given 512-d features: text [CLS] features and
// video frame features as the official loop receives them, i.e. after the temporal transformer
// (so the model here has no temporal layers; encoding a video through the 4-layer transformer is a
// once-per-video cost outside the pair loop). ψ, pooling and similarity are the official
// configuration; the Scorer streams 256 × 256 blocks through the factored ψ.
// Twin: lib/bench/torch/GareInference1k.py.
func BenchmarkPairedGareInference1k(b *testing.B) {
	cfg := benchConfig()
	cfg.TemporalLayers = 0
	m := newModel(b, cfg, 1)
	data := RandomDataset(1000, cfg.TextInputDim, cfg.VideoInputDim, cfg.Frames, 0.4, 3)
	sc, err := m.NewScorer(data, data.Videos(), ScorerOptions{})
	if err != nil {
		b.Fatal(err)
	}
	run := func() {
		if _, err := sc.Matrix(); err != nil {
			b.Fatal(err)
		}
	}
	timeWarm(b, run)
}

// BenchmarkSmallTrainStep is one step of the default (single-graph) training step, update included,
// at the study's full-scale widths (D = 128, GloVe 100-d texts, 257-d label-derived frames, one
// temporal layer, batch 128).
func BenchmarkSmallTrainStep(b *testing.B) {
	cfg := benchConfig()
	cfg.Dim, cfg.TextInputDim, cfg.VideoInputDim, cfg.TemporalLayers, cfg.TemporalHeads = 128, 100, 257, 1, 4
	m := newModel(b, cfg, 1)
	data := RandomDataset(cfg.Batch, cfg.TextInputDim, cfg.VideoInputDim, cfg.Frames, 0.1, 2)
	idx := make([]int, cfg.Batch)
	for i := range idx {
		idx[i] = i
	}
	step, err := m.NewStep(1000, 0) // the default (single-graph) step
	if err != nil {
		b.Fatal(err)
	}
	timeWarm(b, func() { step.Run(data, idx) })
}

// timeWarm runs run once untimed (its graphs compile), then times it.
func timeWarm(b *testing.B, run func()) {
	run()
	b.ResetTimer()
	for b.Loop() {
		run()
	}
}

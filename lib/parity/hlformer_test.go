package parity

import (
	"math/rand/v2"
	"testing"

	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/models/hlformer"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// hlformerConfig is the official architecture (CPUConfig: MAIM over Euclidean and Lorentz branches,
// glance and gaze, the code's Lorentz logits) shrunk to a tiny model: d = 8, 2 heads, L^7, one
// Euclidean branch without mask and one Lorentz branch with the Gaussian mask of width 2, 4 clips,
// 6 frames, 5 tokens (XLA's compile time grows with the branches; each branch is the same code
// with another width). Dropout is
// off: its masks come from the backend's random bits, which differ (doc.go).
func hlformerConfig() hlformer.Config {
	c := hlformer.CPUConfig(6, 5)
	c.Dim, c.Heads, c.LorentzDim = 8, 2, 7
	c.EuclideanWidths, c.LorentzWidths = []float64{0}, []float64{2}
	c.ClipLen, c.FrameLen, c.QueryLen = prvr.ClipCount, 6, 5 // ClipLen: the only length hlformer.Config.Validate accepts
	c.Dropout, c.InputDropout = 0, 0
	return c
}

// hlformerLoss is the Charades objective with a hard-negative pool of 1: with the hard-negative
// switch on, every triplet negative is then the highest-scoring one, not a random draw (the
// code's pool of 20 picks uniformly among the top 20, with the backend's random bits).
func hlformerLoss() hlformer.LossConfig {
	lc := hlformer.CharadesLoss()
	lc.HardPoolSize = 1
	return lc
}

// hlformerLabels: 5 queries of 3 videos (the batch index of each query's video).
var hlformerLabels = []int32{0, 0, 1, 2, 2}

// hlformerInputs is a fixed batch (clips, frames, frame mask, tokens, token mask, labels, hard):
// N(0, 1) features, the last video with 4 of its 6 frames, queries of 5, 3, 4, 2 and 5 tokens
// (padding zero), hard negatives on.
func hlformerInputs(c hlformer.Config, dt dtypes.DType) []any {
	rng := rand.New(rand.NewPCG(29, 5))
	v, q := 3, len(hlformerLabels)
	normal := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		return x
	}
	clips := normal(v * c.ClipLen * c.VideoDim)
	frames := normal(v * c.FrameLen * c.VideoDim)
	frameMask := make([]float64, v*c.FrameLen)
	for i := range v {
		n := c.FrameLen
		if i == v-1 {
			n = 4
		}
		for f := range c.FrameLen {
			if f < n {
				frameMask[i*c.FrameLen+f] = 1
			} else {
				clear(frames[(i*c.FrameLen+f)*c.VideoDim : (i*c.FrameLen+f+1)*c.VideoDim])
			}
		}
	}
	tokens := normal(q * c.QueryLen * c.QueryDim)
	tokenMask := make([]float64, q*c.QueryLen)
	for i, n := range []int{5, 3, 4, 2, 5} {
		for k := range c.QueryLen {
			if k < n {
				tokenMask[i*c.QueryLen+k] = 1
			} else {
				clear(tokens[(i*c.QueryLen+k)*c.QueryDim : (i*c.QueryLen+k+1)*c.QueryDim])
			}
		}
	}
	tensor := func(x []float64, dims ...int) *tensors.Tensor {
		if dt == dtypes.Float64 {
			return tensors.FromFlatDataAndDimensions(x, dims...)
		}
		y := make([]float32, len(x))
		for i, val := range x {
			y[i] = float32(val)
		}
		return tensors.FromFlatDataAndDimensions(y, dims...)
	}
	return []any{
		tensor(clips, v, c.ClipLen, c.VideoDim), tensor(frames, v, c.FrameLen, c.VideoDim), tensor(frameMask, v, c.FrameLen),
		tensor(tokens, q, c.QueryLen, c.QueryDim), tensor(tokenMask, q, c.QueryLen),
		tensors.FromFlatDataAndDimensions(append([]int32(nil), hlformerLabels...), q), true,
	}
}

// hlformerOptimizer is HLFormer's recipe (hlformer.Optimizer: BertAdam, the code's weight-decay
// grouping CodeNoDecay) for a learning rate and a number of steps.
func hlformerOptimizer(lr float64, total int) *train.Adam {
	return hlformer.Optimizer(hlformer.TrainConfig{LearningRate: lr}, total)
}

func TestHLFormerBackendParityFloat32(t *testing.T) { testHLFormer(t, dtypes.Float32) }

func TestHLFormerBackendParityFloat64(t *testing.T) { testHLFormer(t, dtypes.Float64) }

func testHLFormer(t *testing.T, dt dtypes.DType) {
	goB, xlaB := backends(t)
	tol := toleranceOf(dt)
	c := hlformerConfig()
	m, err := hlformer.New(c)
	if err != nil {
		t.Fatal(err)
	}
	lc := hlformerLoss()
	var store pair[*model.Store]
	if store.Go, err = hlformer.NewStore(3); err != nil {
		t.Fatal(err)
	}
	if store.XLA, err = hlformer.NewStore(3); err != nil {
		t.Fatal(err)
	}
	build := func(scope *model.Scope, in []*graph.Node) *graph.Node {
		b := hlformer.Batch{Clips: in[0], Frames: in[1], FrameMask: in[2], Tokens: in[3], TokenMask: in[4], Labels: in[5]}
		return m.Loss(scope, b, in[6], lc).Total
	}

	// 1. Forward and backward (the single-graph step's loss): the Go backend initialises the
	// weights, XLA gets a copy.
	var loss pair[float64]
	var grads pair[map[string][]float64]
	if loss.Go, grads.Go, err = lossAndGradients(goB, store.Go, build, hlformerInputs(c, dt)...); err != nil {
		t.Fatal(err)
	}
	if err := copyStore(store.XLA, store.Go); err != nil {
		t.Fatal(err)
	}
	if loss.XLA, grads.XLA, err = lossAndGradients(xlaB, store.XLA, build, hlformerInputs(c, dt)...); err != nil {
		t.Fatal(err)
	}
	checkLoss(t, "HLFormer "+dt.String()+" loss", loss, tol.Loss)
	checkGradients(t, grads, tol)

	// 2. Three steps of the single-graph training step under BertAdam at the Charades learning rate,
	// over 3 scheduled steps. The trainer's default, the chunked step, computes the same numbers in
	// four executables; that they agree on one backend is lib/models/hlformer's
	// TestChunkedStepUpdatesLikeSingleGraph, which make test-xla runs on XLA too. Compiling the
	// chunked step's four graphs here as well would cost minutes of XLA compile time.
	init := weights(store.Go)
	const steps = 3
	var step pair[hlformer.Step]
	if step.Go, err = hlformer.NewStep(goB, m, store.Go, hlformerOptimizer(hlformer.CharadesTraining().LearningRate, steps), lc, hlformer.SingleGraphStep); err != nil {
		t.Fatal(err)
	}
	if step.XLA, err = hlformer.NewStep(xlaB, m, store.XLA, hlformerOptimizer(hlformer.CharadesTraining().LearningRate, steps), lc, hlformer.SingleGraphStep); err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= steps; k++ {
		var out pair[[]*tensors.Tensor]
		if out.Go, err = step.Go.Run(hlformerInputs(c, dt)...); err != nil {
			t.Fatal(err)
		}
		if out.XLA, err = step.XLA.Run(hlformerInputs(c, dt)...); err != nil {
			t.Fatal(err)
		}
		checkLoss(t, "step loss", pair[float64]{flat64(out.Go[0])[0], flat64(out.XLA[0])[0]}, tol.Loss)
		train.FinalizeAll(out.Go)
		train.FinalizeAll(out.XLA)
		checkWeights(t, k, init, pair[map[string][]float64]{weights(store.Go), weights(store.XLA)}, tol)
	}
}

package train

import (
	"math"

	"github.com/gomlx/gomlx/core/graph"
)

// Schedule maps training progress x = step / totalSteps (step counted from 0) to a
// learning-rate multiplier. It is used both in graphs (Graph) and on the host (At) so that
// logs and tests can show the value the graph applies.
type Schedule interface {
	At(x float64) float64
	Graph(x *graph.Node) *graph.Node
}

// Constant is the multiplier 1 at every step.
type Constant struct{}

func (Constant) At(float64) float64              { return 1 }
func (Constant) Graph(x *graph.Node) *graph.Node { return graph.OnesLike(x) }

// WarmupLinear rises linearly from 0 to 1 over the first Warmup fraction of training and then
// decays linearly to 0 at x = 1: x/w for x < w, else max((x−1)/(w−1), 0). HLFormer's
// "warmup_linear" with warmup 0.01 (docs/official-code.md §3.5; pytorch-pretrained-bert's schedule).
type WarmupLinear struct{ Warmup float64 }

func (s WarmupLinear) At(x float64) float64 {
	if x < s.Warmup {
		return x / s.Warmup
	}
	return math.Max((x-1)/(s.Warmup-1), 0)
}

func (s WarmupLinear) Graph(x *graph.Node) *graph.Node {
	up := graph.DivScalar(x, s.Warmup)
	down := graph.MaxScalar(graph.DivScalar(graph.AddScalar(x, -1), s.Warmup-1), 0)
	return graph.Where(graph.LessThan(x, graph.ConstAs(x, s.Warmup)), up, down)
}

// WarmupCosine is x/w for x < w, then ½(1 + cos πx) with the unshifted x, as GARE's code
// computes it (docs/official-code.md §4.4): the multiplier jumps from 1 to ½(1+cos πw) at the end of warm-up
// (≈ 0.976 for w = 0.1).
type WarmupCosine struct{ Warmup float64 }

func (s WarmupCosine) At(x float64) float64 {
	if x < s.Warmup {
		return x / s.Warmup
	}
	return 0.5 * (1 + math.Cos(math.Pi*x))
}

func (s WarmupCosine) Graph(x *graph.Node) *graph.Node {
	up := graph.DivScalar(x, s.Warmup)
	down := graph.MulScalar(graph.OnePlus(graph.Cos(graph.MulScalar(x, math.Pi))), 0.5)
	return graph.Where(graph.LessThan(x, graph.ConstAs(x, s.Warmup)), up, down)
}

// WarmupConstant rises linearly from 0 to 1 over the first Warmup fraction of training and then stays
// at 1: x/w for x < w, else 1. A schedule whose learning rate does not depend on the planned number of
// steps after warm-up, so that stopping a run early is the same as planning a shorter one.
type WarmupConstant struct{ Warmup float64 }

func (s WarmupConstant) At(x float64) float64 {
	if x < s.Warmup {
		return x / s.Warmup
	}
	return 1
}

func (s WarmupConstant) Graph(x *graph.Node) *graph.Node {
	return graph.MinScalar(graph.DivScalar(x, s.Warmup), 1)
}

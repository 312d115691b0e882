package gare

import (
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
)

// PoolingWeights are the weights of the text-conditioned pooled video (docs/official-code.md §4.1):
//
//	π_ijf = softmax_f(t_i·h_jf / temperature) · mask_jf,
//
// raw dot products of unnormalised features, the mask applied after the softmax and no
// renormalisation. t [A, D], frames [B, F, D], mask [B, F] (nil: all frames valid) -> [A, B, F].
// dots are the raw t_i·h_jf [A, B, F].
func PoolingWeights(t, frames, mask *Node, temperature float64) (weights, dots *Node) {
	a, d := t.Shape().Dimensions[0], t.Shape().Dimensions[1]
	b, f := frames.Shape().Dimensions[0], frames.Shape().Dimensions[1]
	dots = Reshape(MatMul(t, Transpose(Reshape(frames, b*f, d), 0, 1)), a, b, f)
	weights = Softmax(DivScalar(dots, temperature), -1)
	if mask != nil {
		weights = Mul(weights, InsertAxes(ConvertDType(mask, weights.DType()), 0))
	}
	return weights, dots
}

// PooledVideo is v_ij = Σ_f π_ijf h_jf [A, B, D] for pooling weights π [A, B, F] and frames
// [B, F, D] (docs/official-code.md §4.1).
func PooledVideo(weights, frames *Node) *Node {
	return Einsum("abf,bfd->abd", weights, frames)
}

// FrameMean is v̄_j = mean_f h_jf over all F frames, padded ones included (the code's unmasked
// mean, docs/official-code.md §4.1). frames [B, F, D] -> [B, D].
func FrameMean(frames *Node) *Node { return ReduceMean(frames, 1) }

// SemanticGap is ψ's query η·(v̄_j − t_i) [A, B, D] for t [A, D] and frame means [B, D]
// (GARE Eq. 7; η = +1 in the code).
func SemanticGap(t, frameMean *Node, eta float64) *Node {
	g := Sub(InsertAxes(frameMean, 0), InsertAxes(t, 1))
	if eta != 1 {
		g = MulScalar(g, eta)
	}
	return g
}

// PairCosine is cos(x_ij, y_ij) [A, B] for x, y [A, B, D], both sides divided by their norms with
// no epsilon, as the code does (docs/official-code.md §4.2).
func PairCosine(x, y *Node) *Node {
	dot := ReduceSum(Mul(x, y), -1)
	return Div(dot, Sqrt(Mul(sqNorm(x), sqNorm(y))))
}

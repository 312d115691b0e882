package hlformer

import (
	"math"

	"github.com/geoalign/geoalign/lib/geom"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
	"github.com/gomlx/gomlx/ml/model"
)

// The Lorentz attention of HLFormer works in the full-coordinate Lorentz model of curvature −1 ("k = 1",
// geoopt/HyboNet convention, docs/official-code.md §3.4(b)); the points are lib/geom's full coordinates.

const (
	// LorentzTimeOffset is the constant of HyboNet's Lorentz linear time coordinate,
	// time = sigmoid(y₀)·exp(s) + 1.1 (HLF src/Models/onmt/hyper_nets.py; docs/official-code.md §3.2).
	LorentzTimeOffset = 1.1
	// LorentzTimeScaleInit is the initial log-scale s of that time coordinate (2.3: time ∈ (1.1, ≈11.07)).
	LorentzTimeScaleInit = 2.3
	// LorentzSpaceNormFloor guards the Lorentz linear rescaling: below it, a head's ‖y_s‖² is treated as 0
	// and the head maps to the hyperboloid's origin [1, 0…0] with zero gradient (y_s = 0 happens when
	// dropout zeroes every input coordinate; the code then gives NaN, 0·∞). Above it the space part is
	// computed as the unit direction y_s/‖y_s‖ times √(time² − 1), whose derivative is bounded by
	// √(time² − 1)/‖y_s‖ ≤ 1e6·√(time² − 1), instead of the code's y_s·√((time² − 1)/‖y_s‖²), whose two
	// derivative terms of size 1/‖y_s‖² overflow float32 and cancel to NaN for tiny ‖y_s‖ (frequent with
	// 1-2 space coordinates per head). Same values; at the paper's 31 coordinates per head ‖y_s‖ is never
	// near the floor (a deviation in the gradient's numerics only).
	LorentzSpaceNormFloor = 1e-12
	// LorentzMaskFill is what the Lorentz attention puts at padded keys: masked_fill(−1e18) (docs/official-code.md §3.2).
	LorentzMaskFill = -1e18
)

// LorentzTrace exposes the hyperbolic intermediate values of one Lorentz attention block, for tests
// (points must stay on the hyperboloid) and figures. Every point is in full coordinates.
type LorentzTrace struct {
	Input              *Node // [N, L, n+1]: exp₀ of the scaled input projection, on L^n
	Query, Key, Value  *Node // [N, h, L, m]: per-head Lorentz linear outputs, on L^{m−1}
	Centroid           *Node // [N, h, L, m]: per-head attention outputs (Lorentz centroids), on L^{m−1}
	Logits             *Node // [N, h, L, L]: attention logits after the Gaussian mask, before key masking
	Weights            *Node // [N, h, L, L]: attention weights, the softmax over keys after key masking
	Alpha, Scale, Bias *Node // exp-scale exp(α) of the input, the logit scale s and bias b (scalars)
}

// LorentzLinear is HyboNet's Lorentz linear layer as HLFormer's code uses it (docs/official-code.md §3.2 "Lorentz linear";
// the paper's Eq. 13–14 differ): for points x [..., L, n+1],
//
//	y = W·dropout(x)  (no bias), viewed per head as [..., L, heads, m] with m = (n+1)/heads;
//	time = sigmoid(y₀)·exp(s) + LorentzTimeOffset,  space = y_{1:}·√((time² − 1)/‖y_{1:}‖²),
//
// so every head's [time, space] lies on L^{m−1} (⟨y, y⟩_L = −1 exactly). s is a learnable scalar
// (init LorentzTimeScaleInit). W is N(0, InitStd²) (the code's own init is overwritten by
// reset_parameters). Returns [..., L, heads, m].
func LorentzLinear(scope *model.Scope, x *Node, heads int, dropoutRate float64) *Node {
	width := x.Shape().Dim(-1)
	if width%heads != 0 {
		panicf("LorentzLinear: %d coordinates are not divisible by %d heads", width, heads)
	}
	y := linear(scope, dropout(scope, x, dropoutRate), width, false)
	dims := append(append([]int(nil), y.Shape().Dimensions[:y.Rank()-1]...), heads, width/heads)
	y = Reshape(y, dims...)
	axis := y.Rank() - 1
	y0 := SliceAxis(y, axis, AxisElem(0))
	ys := SliceAxis(y, axis, AxisRangeToEnd(1))
	s := scalarVariable(scope, x.Graph(), x.DType(), "time_scale", LorentzTimeScaleInit)
	time := AddScalar(Mul(Sigmoid(y0), Exp(s)), LorentzTimeOffset)
	norm2 := ReduceAndKeep(Square(ys), ReduceSum, axis)
	ok := GreaterThan(norm2, Scalar(x.Graph(), norm2.DType(), LorentzSpaceNormFloor))
	safe := Where(ok, norm2, OnesLike(norm2)) // keeps the unused branch's gradient finite
	unit := Div(ys, Sqrt(safe))
	space := Mul(unit, Where(ok, Sqrt(AddScalar(Square(time), -1)), ZerosLike(time)))
	time = Where(ok, time, OnesLike(time))
	return Concatenate([]*Node{time, space}, axis)
}

// lorentzSigns is [−1, 1, …, 1] of length m in dtype, so that Σ (signs ⊙ x) y = ⟨x, y⟩_L.
func lorentzSigns(x *Node, m int) *Node {
	signs := make([]float64, m)
	signs[0] = -1
	for i := 1; i < m; i++ {
		signs[i] = 1
	}
	return ExpandLeftToRank(ConvertDType(Const(x.Graph(), signs), x.DType()), x.Rank())
}

// LorentzAttentionLogits returns the code's Lorentz attention logits (docs/official-code.md §3.2): for per-head points
// q [N, h, Lq, m], k [N, h, L, m] (on L^{m−1}),
//
//	logits = (2 + 2⟨q_i, k_j⟩_L)/s + b  →  [N, h, Lq, L],
//
// with s, b scalars. For k = 1, 2 + 2⟨q, k⟩_L = −d²_L(q, k) (HLFormer Eq. 15, where s = √(n+1), b = 0).
func LorentzAttentionLogits(q, k, s, b *Node) *Node {
	m := q.Shape().Dim(-1)
	qSigned := Mul(q, lorentzSigns(q, m))
	inner := Einsum("nhqd,nhkd->nhqk", qSigned, k)
	return Add(Div(AddScalar(MulScalar(inner, 2), 2), s), b)
}

// LorentzMultiHeadAttention is the code's LorentzMultiHeadedAttention (HLFormer Eq. 15; docs/official-code.md §3.2) on
// points x [N, L, n+1] ⊂ L^n, self-attention:
//
//  1. Q, K, V = LorentzLinear(x) per head → [N, h, L, m];
//  2. logits = LorentzAttentionLogits(Q, K, s, b) (s init √(n+1), b init 0; LogitsPaper: s = √(n+1), b = 0),
//     multiplied by the Gaussian mask of width (0: none);
//  3. padded keys (keyMask [N, L] = 0) set to LorentzMaskFill, softmax over keys (no attention dropout:
//     the code defines it but does not apply it);
//  4. each head's output is the Lorentz centroid of its values (geom.LorentzCentroid).
//
// Returns the heads' centroids concatenated, [N, L, n+1] (each head block on L^{m−1}; the concatenation
// is not itself a point of L^n, as in the code), and the trace.
func LorentzMultiHeadAttention(scope *model.Scope, x, keyMask *Node, width float64, c Config) (*Node, LorentzTrace) {
	n, length, full := x.Shape().Dim(0), x.Shape().Dim(1), x.Shape().Dim(2)
	g := x.Graph()
	perHead := func(name string) *Node {
		y := LorentzLinear(scope.In("%s", name), x, c.Heads, c.Dropout) // [N, L, h, m]
		return TransposeAllDims(y, 0, 2, 1, 3)                          // [N, h, L, m]
	}
	key, value, query := perHead("keys"), perHead("values"), perHead("query")
	var s, b *Node
	if c.LorentzLogits == LogitsPaper {
		s, b = Scalar(g, x.DType(), math.Sqrt(float64(full))), ScalarZero(g, x.DType())
	} else {
		s = scalarVariable(scope, g, x.DType(), "logit_scale", math.Sqrt(float64(full)))
		b = scalarVariable(scope, g, x.DType(), "logit_bias", 0)
	}
	logits := LorentzAttentionLogits(query, key, s, b)
	if width > 0 {
		logits = Mul(logits, gaussianMaskNode(g, logits.DType(), length, width, c.Mask))
	}
	masked := logits
	if keyMask != nil {
		valid := GreaterThan(Reshape(keyMask, n, 1, 1, length), ScalarZero(g, keyMask.DType()))
		masked = Where(BroadcastToShape(valid, logits.Shape()), logits, Scalar(g, logits.DType(), LorentzMaskFill))
	}
	weights := Softmax(masked, -1)
	centroid := geom.LorentzCentroid(weights, value)                        // [N, h, L, m]
	out := Reshape(TransposeAllDims(centroid, 0, 2, 1, 3), n, length, full) // [N, L, h·m]
	return out, LorentzTrace{Query: query, Key: key, Value: value, Centroid: centroid, Logits: logits, Weights: weights, Scale: s, Bias: b}
}

// LorentzSelfAttention is the code's LorentzSelfAttention (HLFormer Eq. 11, 15–16; docs/official-code.md §3.2):
//
//	u = LinearLayer(x; d → n)·exp(α)          (α learnable, init log n^{−½}, clamped ≤ 0)
//	p = ExpMap0Full([0, u])                   (a point of L^n)
//	y = LorentzMultiHeadAttention(p)
//	z = LogMap0Full(y)[1:] / exp(α)           (the time coordinate dropped)
//	out = LinearLayer(z; n → d)
//
// x [N, L, d], keyMask [N, L] or nil → [N, L, d].
func LorentzSelfAttention(scope *model.Scope, x, keyMask *Node, width float64, c Config) (*Node, LorentzTrace) {
	d, n := x.Shape().Dim(-1), c.LorentzDim
	u := LinearLayer(scope.In("input_proj"), x, n, c.Dropout)
	alpha := Exp(clampedScalar(scope, x.Graph(), x.DType(), "scale_alpha", -0.5*math.Log(float64(n)), math.Inf(-1), 0))
	u = Mul(u, alpha)
	p := geom.ExpMap0Full(Concatenate([]*Node{ZerosLike(SliceAxis(u, -1, AxisElem(0))), u}, -1))
	y, trace := LorentzMultiHeadAttention(scope.In("attention"), p, keyMask, width, c)
	z := Div(SliceAxis(geom.LogMap0Full(y), -1, AxisRangeToEnd(1)), alpha)
	trace.Input, trace.Alpha = p, alpha
	return LinearLayer(scope.In("output_proj"), z, d, c.Dropout), trace
}

// LorentzBlock is the code's LorentzAttentionBlock (the Lorentz Attention Block of HLFormer §3.3): the
// Lorentz self-attention in the Transformer wrapper of EuclideanBlock (dropout, residual, LayerNorm,
// FFN(d → 4d → d)). x [N, L, d] → [N, L, d].
func LorentzBlock(scope *model.Scope, x, keyMask *Node, width float64, c Config) (*Node, LorentzTrace) {
	att, trace := LorentzSelfAttention(scope.In("attention"), x, keyMask, width, c)
	return residualFFN(scope, x, att, 4*x.Shape().Dim(-1), c.Dropout), trace
}

package geom

import (
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
)

// Float16 and bfloat16 are storage dtypes for geom: every exported function converts inputs of these
// dtypes to float32 (computeIn), computes there, and rounds its result back to the input's dtype
// (roundTo). GoMLX differentiates ConvertDType, so the gradient is computed in float32 too and rounded
// to the input's dtype. This is what the official code does — MERU runs its Lorentz functions in
// float32 under autocast, GRAM casts the Gram tensor to float32 before torch.det (docs/official-code.md §1.2, §3.4(a))
// — and it keeps every clamp and floor of this package meaningful: in float16, MERUEps (1e-8) and
// AcoshGradFloor (1e-9) round to 0, 1 − PoincareBoundaryEps rounds to 1, largeArg (1e8) is +Inf, and
// products such as (x − 1)(x + 1) in Acosh or x₀y₀ in LorentzInner overflow beyond 65504.
//
// float32 and float64 inputs are never converted: for them both helpers return their argument, and
// the graph is exactly the one built without them.

// computeIn returns x in the dtype geom computes in: float32 when x is float16 or bfloat16, x itself
// otherwise (nil stays nil, so optional inputs pass through).
func computeIn(x *Node) *Node {
	if x == nil || !x.DType().IsFloat16() {
		return x
	}
	return ConvertDType(x, dtypes.Float32)
}

// roundTo returns y converted to dt, the dtype of the caller's input (y itself when it already is).
func roundTo(y *Node, dt dtypes.DType) *Node {
	if y.DType() == dt {
		return y
	}
	return ConvertDType(y, dt)
}

// computeInAll is computeIn of each node. A node given more than once (the distances of a set to
// itself, a modality passed twice) is converted once, so the gradient's paths are summed in float32
// before its one rounding to the input's dtype; rounded separately, large opposite terms (at
// d(x, x) = 0) would not cancel exactly.
func computeInAll(xs ...*Node) []*Node {
	wide := make([]*Node, len(xs))
	seen := map[*Node]*Node{}
	for i, x := range xs {
		if w, ok := seen[x]; ok {
			wide[i] = w
			continue
		}
		wide[i] = computeIn(x)
		seen[x] = wide[i]
	}
	return wide
}

// computeInPair is computeInAll of two point sets.
func computeInPair(x, y *Node) (*Node, *Node) {
	wide := computeInAll(x, y)
	return wide[0], wide[1]
}

// pointIn prepares the operands of a function of one point x at curvature −c: x and c in the compute
// dtype, c as a scalar of x's dtype (curvatureLike), and dt, the dtype of the result.
func pointIn(x, c *Node) (xc, cc *Node, dt dtypes.DType) {
	dt = x.DType()
	x, c = computeIn(x), computeIn(c)
	return x, curvatureLike(x, c), dt
}

// pairIn prepares the operands of a function of two points x, y at curvature −c: check (checkSameDType
// or checkPairwise) under the function's name fn, x and y in the compute dtype (computeInPair), c too,
// and dt, the dtype of the result.
func pairIn(check func(fn string, x, y *Node), fn string, x, y, c *Node) (xc, yc, cc *Node, dt dtypes.DType) {
	check(fn, x, y)
	dt = x.DType()
	x, y = computeInPair(x, y)
	return x, y, computeIn(c), dt
}

package geom

import (
	"math"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/support/exceptions"
)

// ExpMapMaxSinhArg is MERU's clamp of the sinh argument in exp_map0: asinh(2¹⁵) ≈ 11.09, so space
// components never exceed 2¹⁵/√c (docs/official-code.md §3.4(a)). ExpMap0 saturates beyond it: for √c‖u‖ > 11.09
// LogMap0(ExpMap0(u)) is no longer u.
var ExpMapMaxSinhArg = math.Asinh(1 << 15)

// curvatureLike checks that c is a scalar and returns it in x's dtype.
func curvatureLike(x, c *Node) *Node {
	if c == nil {
		exceptions.Panicf("geom: curvature c is nil; pass a scalar node (c > 0 for curvature −c)")
	}
	if !c.Shape().IsScalar() {
		exceptions.Panicf("geom: curvature c must be a scalar node, got shape %s", c.Shape())
	}
	if c.DType() != x.DType() {
		c = ConvertDType(c, x.DType())
	}
	return c
}

// sameRank expands the lower-rank of x and y on the left so both have the same rank (GoMLX binary
// ops broadcast only between equal ranks).
func sameRank(x, y *Node) (*Node, *Node) {
	switch {
	case x.Rank() < y.Rank():
		x = ExpandLeftToRank(x, y.Rank())
	case y.Rank() < x.Rank():
		y = ExpandLeftToRank(y, x.Rank())
	}
	return x, y
}

func checkSameDType(where string, x, y *Node) {
	if x.DType() != y.DType() {
		exceptions.Panicf("geom.%s: operands have different dtypes %s and %s", where, x.DType(), y.DType())
	}
}

// squaredNorm is ‖x‖² over the last axis, [..., n] → [...].
func squaredNorm(x *Node) *Node {
	return ReduceSum(Square(x), x.Rank()-1)
}

// LorentzTime returns the time coordinate x₀ = √(1/c + ‖x‖²) of the hyperboloid point of curvature −c
// whose space components are x: [..., n] → [...] (MERU convention, docs/official-code.md §3.4(a)).
func LorentzTime(x, c *Node) *Node {
	x, c, dt := pointIn(x, c)
	return roundTo(Sqrt(Add(Inverse(c), squaredNorm(x))), dt)
}

// LorentzInner returns the Lorentzian inner product ⟨x, y⟩_L = x·y − x₀y₀ of two hyperboloid points
// given by their space components: [..., n] × [..., n] → [...], with broadcasting (HLFormer Eq. 2;
// MERU pairwise_inner). On the hyperboloid ⟨x, x⟩_L = −1/c and ⟨x, y⟩_L ≤ −1/c.
func LorentzInner(x, y, c *Node) *Node {
	x, y, c, dt := pairIn(checkSameDType, "LorentzInner", x, y, c)
	xt, yt := LorentzTime(x, c), LorentzTime(y, c)
	x, y = sameRank(x, y)
	xt, yt = sameRank(xt, yt)
	return roundTo(Sub(ReduceSum(Mul(x, y), x.Rank()-1), Mul(xt, yt)), dt)
}

func checkPairwise(where string, x, y *Node) {
	checkSameDType(where, x, y)
	if x.Rank() != 2 || y.Rank() != 2 || x.Shape().Dim(1) != y.Shape().Dim(1) {
		exceptions.Panicf("geom.%s: want x [N, n] and y [M, n], got %s and %s", where, x.Shape(), y.Shape())
	}
}

// pairwiseDot returns x·yᵀ: [N, n] × [M, n] → [N, M].
func pairwiseDot(x, y *Node) *Node {
	return DotGeneral(x, []int{1}, nil, y, []int{1}, nil)
}

// PairwiseLorentzInner returns ⟨x_i, y_j⟩_L for all pairs: [N, n] × [M, n] → [N, M] (MERU pairwise_inner).
func PairwiseLorentzInner(x, y, c *Node) *Node {
	x, y, c, dt := pairIn(checkPairwise, "PairwiseLorentzInner", x, y, c)
	xt := InsertAxes(LorentzTime(x, c), 1) // [N, 1]
	yt := InsertAxes(LorentzTime(y, c), 0) // [1, M]
	return roundTo(Sub(pairwiseDot(x, y), Mul(xt, yt)), dt)
}

// expMapFactor returns sinh(r)/r with r = max(rc, MERUEps) and the sinh argument clamped to
// ExpMapMaxSinhArg (MERU exp_map0). It tends to 1 as rc → 0.
func expMapFactor(rc *Node) *Node {
	r := Max(rc, scalarLike(rc, MERUEps))
	return Div(Sinh(Min(r, scalarLike(rc, ExpMapMaxSinhArg))), r)
}

// logMapFactor returns asinh(s)/s with s = max(sc, MERUEps); it tends to 1 as sc → 0.
func logMapFactor(sc *Node) *Node {
	s := Max(sc, scalarLike(sc, MERUEps))
	return Div(Asinh(s), s)
}

// ExpMap0 maps a tangent vector u at the hyperboloid origin to the point exp₀(u), both as space
// components: [..., n] → [..., n]. exp₀(u) = sinh(√c‖u‖)/(√c‖u‖) · u (HLFormer Eq. 4 at the origin;
// MERU exp_map0 with its clamps: √c‖u‖ ≥ MERUEps in the ratio, sinh argument ≤ ExpMapMaxSinhArg).
// The geodesic distance from the origin to exp₀(u) is ‖u‖.
func ExpMap0(u, c *Node) *Node {
	u, c, dt := pointIn(u, c)
	rc := Mul(Sqrt(c), EuclideanNorm(u)) // √c‖u‖
	return roundTo(Mul(InsertAxes(expMapFactor(rc), -1), u), dt)
}

// LogMap0 is the inverse of ExpMap0: [..., n] → [..., n],
// log₀(x) = arcosh(√c·x₀)/(√c‖x‖) · x = asinh(√c‖x‖)/(√c‖x‖) · x (HLFormer Eq. 5 at the origin;
// MERU log_map0). We use the asinh form, which equals MERU's acosh form on the hyperboloid but
// needs no clamp near the origin (MERU's acosh clamp 1 + 1e-8 makes its float64 log map wrong for
// ‖x‖ < 1.4e-4/√c; see doc.go). The ratio uses max(√c‖x‖, MERUEps) like MERU.
func LogMap0(x, c *Node) *Node {
	x, c, dt := pointIn(x, c)
	sc := Mul(Sqrt(c), EuclideanNorm(x)) // √c‖x‖
	return roundTo(Mul(InsertAxes(logMapFactor(sc), -1), x), dt)
}

// LorentzDistance returns the geodesic distance arcosh(−c⟨x, y⟩_L)/√c between hyperboloid points
// given by their space components: [..., n] × [..., n] → [...] (MERU pairwise_dist, elementwise).
func LorentzDistance(x, y, c *Node) *Node {
	x, y, c, dt := pairIn(checkSameDType, "LorentzDistance", x, y, c)
	cc := curvatureLike(x, c)
	return roundTo(Div(Acosh(Mul(Neg(cc), LorentzInner(x, y, cc))), Sqrt(cc)), dt)
}

// PairwiseLorentzDistance returns d(x_i, y_j) for all pairs: [N, n] × [M, n] → [N, M] (MERU pairwise_dist).
func PairwiseLorentzDistance(x, y, c *Node) *Node {
	x, y, c, dt := pairIn(checkPairwise, "PairwiseLorentzDistance", x, y, c)
	cc := curvatureLike(x, c)
	return roundTo(Div(Acosh(Mul(Neg(cc), PairwiseLorentzInner(x, y, cc))), Sqrt(cc)), dt)
}

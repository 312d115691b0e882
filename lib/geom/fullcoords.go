package geom

import (
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/support/exceptions"
)

// Full-coordinate Lorentz model, curvature −1: points x = [x₀, x_s] ∈ R^{n+1} with ⟨x, x⟩_L = −1 and
// x₀ > 0. This is the geoopt/HyboNet convention ("k = 1") that HLFormer's Lorentz attention uses
// (HLF src/Models/onmt/lmath.py, lorentz.py; docs/official-code.md §3.2, §3.4(b)). Everywhere else this package stores
// space components only (MERU convention, see doc.go).

const (
	// ExpMapMaxNorm is EXP_MAX_NORM of HLFormer's onmt/lmath.py: the tangent norm fed to cosh/sinh in
	// ExpMap0Full is clamped to 10 (docs/official-code.md §3.4(b)).
	ExpMapMaxNorm = 10.0

	// MinkowskiNormFloor is the clamp of onmt's _norm: √max(⟨u, u⟩_L, 1e-9) (docs/official-code.md §3.4(b)).
	MinkowskiNormFloor = 1e-9

	// CentroidFloor is the clamp of onmt's mid_point: the centroid is divided by √max(|⟨a, a⟩_L|, 1e-8)
	// (docs/official-code.md §3.2, §3.4(b)).
	CentroidFloor = 1e-8
)

func checkFull(where string, x *Node) {
	if x.Rank() < 1 || x.Shape().Dim(-1) < 2 {
		exceptions.Panicf("geom.%s: want full Lorentz coordinates [..., n+1] with n ≥ 1, got shape %s", where, x.Shape())
	}
}

// timeAndSpace splits [..., n+1] into the time coordinate [..., 1] and the space part [..., n].
func timeAndSpace(x *Node) (time, space *Node) {
	axis := x.Rank() - 1
	return SliceAxis(x, axis, AxisElem(0)), SliceAxis(x, axis, AxisRangeToEnd(1))
}

// MinkowskiInner returns ⟨x, y⟩_L = −x₀y₀ + x_s·y_s for full coordinates: [..., n+1] × [..., n+1] → [...]
// with broadcasting (HLFormer Eq. 2; onmt _inner).
func MinkowskiInner(x, y *Node) *Node {
	checkFull("MinkowskiInner", x)
	checkFull("MinkowskiInner", y)
	checkSameDType("MinkowskiInner", x, y)
	dt := x.DType()
	x, y = sameRank(computeInPair(x, y))
	xt, xs := timeAndSpace(x)
	yt, ys := timeAndSpace(y)
	return roundTo(Sub(ReduceSum(Mul(xs, ys), xs.Rank()-1), Squeeze(Mul(xt, yt), xt.Rank()-1)), dt)
}

// ToFullCoordinates prepends the time coordinate LorentzTime(x, c) to the space components x:
// [..., n] → [..., n+1]. With c = 1 this is HyperGRAM's lift π(x) = [√(1+‖x‖²), x].
func ToFullCoordinates(x, c *Node) *Node {
	dt := x.DType()
	x, c = computeIn(x), computeIn(c)
	return roundTo(Concatenate([]*Node{InsertAxes(LorentzTime(x, c), -1), x}, -1), dt)
}

// ExpMap0Full is HLFormer's exponential map at the origin in full coordinates (onmt expmap0 followed
// by project, curvature −1): [..., n+1] → [..., n+1]. With n = √max(⟨u, u⟩_L, MinkowskiNormFloor),
// the space part is sinh(min(n, ExpMapMaxNorm))·u_s/n and the time is recomputed as √(1 + ‖space‖²).
// HLFormer passes u = [0, u_s]; a nonzero u₀ enters only through n, as in the official code.
func ExpMap0Full(u *Node) *Node {
	checkFull("ExpMap0Full", u)
	dt := u.DType()
	u = computeIn(u)
	_, us := timeAndSpace(u)
	n := Sqrt(Max(MinkowskiInner(u, u), scalarLike(u, MinkowskiNormFloor)))
	factor := Div(Sinh(Min(n, scalarLike(u, ExpMapMaxNorm))), n)
	space := Mul(InsertAxes(factor, -1), us)
	return roundTo(Concatenate([]*Node{InsertAxes(Sqrt(OnePlus(squaredNorm(space))), -1), space}, -1), dt)
}

// LogMap0Full is HLFormer's logarithmic map at the origin in full coordinates (onmt logmap0, curvature −1):
// [..., n+1] → [..., n+1], log₀(y) = arcosh(y₀)/√(y₀² − 1) · (y − y₀e₀) = [0, f(y₀)·y_s].
//
// Guard (a deviation): onmt divides by an unguarded √(y₀² − 1), which is 0/0 = NaN for the all-zero
// input (possible after a ReLU) and for y₀ = 1. We evaluate f(y₀) = asinh(s)/s with s = √max(y₀² − 1, 0)
// (equal to arcosh(y₀)/√(y₀² − 1) for y₀ ≥ 1) and its limit f = 1 for s → 0, with the slope of the
// square root capped by AcoshGradFloor (the floor onmt's own acosh uses).
func LogMap0Full(y *Node) *Node {
	checkFull("LogMap0Full", y)
	dt := y.DType()
	yt, ys := timeAndSpace(computeIn(y))
	s := SafeSqrt(Mul(AddScalar(yt, -1), AddScalar(yt, 1)), AcoshGradFloor) // [..., 1]
	return roundTo(Concatenate([]*Node{ZerosLike(yt), Mul(logMapFactor(s), ys)}, -1), dt)
}

// LorentzCentroid returns the weighted Lorentzian centroid of full-coordinate points (HLFormer's
// Lorentz attention output, onmt mid_point; docs/official-code.md §3.2):
//
//	a = Σ_m w_qm v_m,   μ_q = a / √max(|⟨a, a⟩_L|, CentroidFloor)
//
// weights [..., Q, M], points [..., M, n+1] → [..., Q, n+1] (batched matmul with numpy-style
// broadcasting of the leading axes). With nil weights it uses the plain mean over the M points
// (onmt's w = None), points [..., M, n+1] → [..., n+1].
func LorentzCentroid(weights, points *Node) *Node {
	checkFull("LorentzCentroid", points)
	dt := points.DType()
	var sum *Node
	if weights == nil {
		sum = ReduceMean(computeIn(points), points.Rank()-2)
	} else {
		checkSameDType("LorentzCentroid", weights, points)
		sum = MatMul(computeIn(weights), computeIn(points))
	}
	norm := Sqrt(Max(Abs(MinkowskiInner(sum, sum)), scalarLike(sum, CentroidFloor)))
	return roundTo(Div(sum, InsertAxes(norm, -1)), dt)
}

package geom

import (
	. "github.com/gomlx/gomlx/core/graph"
)

// MinRadius is the K of MERU's and HLFormer's entailment cones (the paper's "c = 0.1" of HLFormer
// Eq. 18; docs/official-code.md §3.4(a)): cones are left undefined inside the ball of radius K around the origin.
const MinRadius = 0.1

// HalfAperture returns the half-aperture of the entailment cone at the hyperboloid point x (space
// components): [..., n] → [...], values in (0, π/2):
//
//	HA(x) = asin(2K / (√c‖x‖ + MERUEps)),  input clamped to ±(1 − MERUEps)
//
// HLFormer Eq. 18 (c = 1 there) and App. A.1 Eq. 24; MERU half_aperture, K = minRadius (MinRadius in
// both official codes). Points with √c‖x‖ ≤ 2K get the widest cone, π/2 − O(1e-4).
func HalfAperture(x, c *Node, minRadius float64) *Node {
	x, c, dt := pointIn(x, c)
	denominator := AddScalar(Mul(EuclideanNorm(x), Sqrt(c)), MERUEps)
	return roundTo(Asin(Div(scalarLike(x, 2*minRadius), denominator)), dt)
}

// ExteriorAngle returns the exterior angle at x of the hyperbolic triangle O-x-y, π − ∠Oxy, with O the
// origin and x, y given by space components: [..., n] × [..., n] → [...], values in (0, π).
// MERU oxy_angle (docs/official-code.md §3.4(a)), the curvature −c form of HLFormer Eq. 19:
//
//	γ = c(x·y − x₀y₀),  EA = acos( (y₀ + γ x₀) / (‖x‖ √max(γ² − 1, MERUEps) + MERUEps) )
//
// with the acos input clamped to ±(1 − MERUEps). It agrees with the hyperbolic law of cosines.
func ExteriorAngle(x, y, c *Node) *Node {
	x, y, c, dt := pairIn(checkSameDType, "ExteriorAngle", x, y, c)
	c = curvatureLike(x, c)
	xt, yt := LorentzTime(x, c), LorentzTime(y, c)
	xb, yb := sameRank(x, y)
	xt, yt = sameRank(xt, yt)
	gamma := Mul(c, Sub(ReduceSum(Mul(xb, yb), xb.Rank()-1), Mul(xt, yt)))
	numerator := Add(yt, Mul(gamma, xt))
	sinhTerm := Sqrt(Max(AddScalar(Square(gamma), -1), scalarLike(gamma, MERUEps)))
	xNorm := EuclideanNorm(x)
	xNorm, sinhTerm = sameRank(xNorm, sinhTerm)
	denominator := AddScalar(Mul(xNorm, sinhTerm), MERUEps)
	return roundTo(Acos(Div(numerator, denominator)), dt)
}

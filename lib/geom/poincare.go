package geom

import (
	. "github.com/gomlx/gomlx/core/graph"
)

// Poincaré ball of curvature −c: the open ball ‖p‖ < 1/√c, isometric to the hyperboloid. Used by the
// WordNet benchmark (Nickel & Kiela's Poincaré embeddings) and to draw hyperboloid points in 2-D.

// PoincareBoundaryEps keeps points off the ball's boundary: c‖p‖² is clamped to ≤ 1 − 1e-5, the clamp
// of squared norms in facebookresearch/poincare-embeddings (hype/manifolds/poincare.py, eps = 1e-5).
const PoincareBoundaryEps = 1e-5

// conformalGap returns 1 − c‖p‖², floored at PoincareBoundaryEps: [..., n] → [...].
func conformalGap(p, c *Node) *Node {
	cNorm := Min(Mul(c, squaredNorm(p)), scalarLike(p, 1-PoincareBoundaryEps))
	return OneMinus(cNorm)
}

// PoincareDistance returns the geodesic distance on the Poincaré ball of curvature −c:
// [..., n] × [..., n] → [...] with broadcasting,
//
//	d(p, q) = arcosh(1 + 2c‖p − q‖² / ((1 − c‖p‖²)(1 − c‖q‖²))) / √c.
func PoincareDistance(p, q, c *Node) *Node {
	p, q, c, dt := pairIn(checkSameDType, "PoincareDistance", p, q, c)
	c = curvatureLike(p, c)
	gp, gq := conformalGap(p, c), conformalGap(q, c)
	pb, qb := sameRank(p, q)
	gp, gq = sameRank(gp, gq)
	diff := squaredNorm(Sub(pb, qb))
	arg := OnePlus(Div(MulScalar(Mul(c, diff), 2), Mul(gp, gq)))
	return roundTo(Div(Acosh(arg), Sqrt(c)), dt)
}

// PairwisePoincareDistance returns d(p_i, q_j) for all pairs: [N, n] × [M, n] → [N, M], with
// ‖p − q‖² = ‖p‖² + ‖q‖² − 2p·q from one matmul (clamped at 0 against rounding).
func PairwisePoincareDistance(p, q, c *Node) *Node {
	p, q, c, dt := pairIn(checkPairwise, "PairwisePoincareDistance", p, q, c)
	c = curvatureLike(p, c)
	gp := InsertAxes(conformalGap(p, c), 1) // [N, 1]
	gq := InsertAxes(conformalGap(q, c), 0) // [1, M]
	pn := InsertAxes(squaredNorm(p), 1)
	qn := InsertAxes(squaredNorm(q), 0)
	diff := Max(Sub(Add(pn, qn), MulScalar(pairwiseDot(p, q), 2)), scalarLike(p, 0))
	arg := OnePlus(Div(MulScalar(Mul(c, diff), 2), Mul(gp, gq)))
	return roundTo(Div(Acosh(arg), Sqrt(c)), dt)
}

// LorentzToPoincare maps a hyperboloid point (space components x, curvature −c) to the Poincaré ball:
// [..., n] → [..., n], p = x / (1 + √c·x₀). (HLFormer App. A.1 Eq. 23 is its inverse at c = 1.)
func LorentzToPoincare(x, c *Node) *Node {
	x, c, dt := pointIn(x, c)
	denominator := OnePlus(Mul(Sqrt(c), LorentzTime(x, c)))
	return roundTo(Div(x, InsertAxes(denominator, -1)), dt)
}

// PoincareToLorentz maps a Poincaré-ball point to the hyperboloid's space components:
// [..., n] → [..., n], x = 2p / (1 − c‖p‖²) (HLFormer App. A.1 Eq. 23 at c = 1), with 1 − c‖p‖² floored
// by PoincareBoundaryEps.
func PoincareToLorentz(p, c *Node) *Node {
	p, c, dt := pointIn(p, c)
	return roundTo(Div(MulScalar(p, 2), InsertAxes(conformalGap(p, c), -1)), dt)
}

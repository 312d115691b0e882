package hierarchy

import "math"

// Riemannian SGD steps, host-side in float64 on one row at a time (see doc.go for why here and
// not in the graph). Each takes the row in the table's layout, the Euclidean gradient of the loss
// with respect to the coordinates the loss graph saw, and the learning rate, and updates the row
// in place.

// LorentzMaxStep caps the geodesic length √c·‖v‖_L of one exponential-map step: the official code
// clamps the tangent norm at norm_clip = 1 before cosh/sinh (hype/manifolds/lorentz.py expm), which
// keeps a single large gradient from throwing a point far out along the hyperboloid.
const LorentzMaxStep = 1.0

// lorentzTangentFloor is the tangent norm below which a step is skipped: the direction v/‖v‖_L is
// undefined at 0. It is the official code's eps = 1e-12 (lorentz.py, nd_p.clamp_(min=eps)).
const lorentzTangentFloor = 1e-12

// minkowskiInner is ⟨x, y⟩_L = −x₀y₀ + Σ xᵢyᵢ on full coordinates. It mirrors, in float64 on the
// host, what lib/geom.MinkowskiInner computes in a graph; the optimiser needs it on the full rows it
// keeps, outside any graph.
func minkowskiInner(x, y []float64) float64 {
	s := -x[0] * y[0]
	for i := 1; i < len(x); i++ {
		s += x[i] * y[i]
	}
	return s
}

// LorentzStep is one step of Nickel & Kiela 2018, Algorithm 1, on the hyperboloid of curvature −c,
// for a row x = (x₀, x₁ … x_d) in full coordinates:
//
//  1. Minkowski gradient h = g_ℓ⁻¹∇f, g_ℓ = diag(−1, 1, …, 1). The loss graph sees the space part
//     only (x₀ is a function of it), so the ambient Euclidean gradient is ∇f = (0, spaceGrad): any
//     extension of f off the hyperboloid gives the same Riemannian gradient after step 2.
//  2. Projection onto the tangent space at x: grad f = h + c⟨x, h⟩_L x.
//  3. Exponential map of v = −η·grad f:
//     exp_x(v) = cosh(√c‖v‖_L) x + sinh(√c‖v‖_L) v / (√c‖v‖_L),
//     with the step √c‖v‖_L capped at LorentzMaxStep (official code).
//
// It returns |c⟨x, x⟩_L + 1| of the new point before any reprojection: 0 in exact arithmetic, so
// it measures how well the update stays on the manifold. scratch must have len(x).
func LorentzStep(x, spaceGrad []float64, lr, c float64, scratch []float64) (deviation float64) {
	h := scratch
	h[0] = 0 // g_ℓ⁻¹ flips the sign of the time component, which is 0
	copy(h[1:], spaceGrad)
	xh := minkowskiInner(x, h)
	for i := range h {
		h[i] = -lr * (h[i] + c*xh*x[i]) // v = −η (h + c⟨x,h⟩_L x)
	}
	vv := minkowskiInner(h, h) // ≥ 0 for tangent vectors; rounding can make it slightly negative
	norm := math.Sqrt(math.Max(vv, 0))
	if norm > lorentzTangentFloor {
		step := math.Min(math.Sqrt(c)*norm, LorentzMaxStep)
		ch, sh := math.Cosh(step), math.Sinh(step)/(math.Sqrt(c)*norm)
		for i := range x {
			x[i] = ch*x[i] + sh*h[i]
		}
	}
	return math.Abs(c*minkowskiInner(x, x) + 1)
}

// LorentzReproject recomputes x₀ = √(1/c + ‖x_space‖²), putting the row back on the hyperboloid
// (the official code's normalize(), applied whenever a row is read).
func LorentzReproject(x []float64, c float64) {
	s := 1 / c
	for _, v := range x[1:] {
		s += v * v
	}
	x[0] = math.Sqrt(s)
}

// PoincareMaxGradNorm caps the norm of the rescaled (Riemannian) gradient of a row: the official
// code renormalises it to at most 5 (hype/manifolds/poincare.py rgrad, renorm_(2, 0, 5)).
const PoincareMaxGradNorm = 5.0

// PoincareProjectionEps is ε of the projection back into the ball, proj(θ) = θ/‖θ‖ − ε for
// ‖θ‖ ≥ 1 (Nickel & Kiela 2017 §3, ε = 1e-5); with curvature −c the radius is (1 − ε)/√c.
const PoincareProjectionEps = 1e-5

// PoincareStep is the update of Nickel & Kiela 2017 §3 on the ball of curvature −c:
//
//	θ ← proj(θ − η (1 − c‖θ‖²)²/4 ∇_E),
//
// the inverse metric tensor (1 − c‖θ‖²)²/4 turning the Euclidean gradient into the Riemannian one,
// capped at PoincareMaxGradNorm (official code), and proj keeping θ inside the ball.
func PoincareStep(x, grad []float64, lr, c float64) {
	var sq float64
	for _, v := range x {
		sq += v * v
	}
	scale := (1 - c*sq) * (1 - c*sq) / 4
	var gn float64
	for _, g := range grad {
		gn += g * g
	}
	gn = scale * math.Sqrt(gn)
	if gn > PoincareMaxGradNorm {
		scale *= PoincareMaxGradNorm / gn
	}
	sq = 0
	for i := range x {
		x[i] -= lr * scale * grad[i]
		sq += x[i] * x[i]
	}
	if limit := (1 - PoincareProjectionEps) / math.Sqrt(c); sq >= limit*limit {
		f := limit / math.Sqrt(sq)
		for i := range x {
			x[i] *= f
		}
	}
}

// EuclideanStep is plain SGD, x ← x − η∇.
func EuclideanStep(x, grad []float64, lr float64) {
	for i := range x {
		x[i] -= lr * grad[i]
	}
}

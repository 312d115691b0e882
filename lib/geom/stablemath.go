package geom

import (
	"math"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
)

// Clamps and floors of the composed elementary functions. Each one says where it comes from
// (sections of docs/official-code.md).
const (
	// MERUEps is the eps of MERU's lorentz.py (copied byte for byte by HLFormer, docs/official-code.md §3.4(a)):
	// norms are clamped to ≥ MERUEps before dividing, asin/acos inputs to ±(1 − MERUEps), and it is
	// added to the denominators of HalfAperture and ExteriorAngle.
	MERUEps = 1e-8

	// ArcTrigGradFloor bounds the slopes ±1/√(1−x²) of Asin and Acos. MERU clamps their input to
	// ±(1 − MERUEps), which in float64 keeps 1 − x² ≥ 1 − (1 − 1e-8)² ≈ 2e-8; in float32 that clamp
	// rounds to ±1 and the torch slope becomes infinite. We use the float64 value in every dtype.
	ArcTrigGradFloor = 2 * MERUEps

	// AcoshGradFloor bounds the slope 1/√(x²−1) of Acosh at x → 1 (cap 1/√1e-9 ≈ 3.2e4). It is the
	// floor HLFormer's onmt/utils.py Acosh uses: sqrt(max(x²−1, 1e-9)) in a custom backward (docs/official-code.md §3.4(b)).
	AcoshGradFloor = 1e-9

	// CoshSinhMaxArg is the clamp of HLFormer's onmt/utils.py cosh and sinh (max_norm = 85,
	// docs/official-code.md §3.4(b)): cosh(85) ≈ 4e36 still fits in float32 and bfloat16 (max 3.4e38).
	CoshSinhMaxArg = 85.0

	// CoshSinhMaxArgFloat16 replaces CoshSinhMaxArg when Cosh and Sinh return float16 (our guard;
	// the official code never runs them in float16): cosh(11) ≈ sinh(11) ≈ 2.99e4 fit under float16's
	// largest finite value 65504, cosh(12) ≈ 8.1e4 does not. So the value and the slope stay finite.
	CoshSinhMaxArgFloat16 = 11.0

	// Float16SqrtSlopeFloor is the least slope floor SafeSqrt uses for a float16 input: 2⁻²⁴ ≈ 6e-8,
	// float16's smallest positive (subnormal) value. No float16 input lies in (0, 2⁻²⁴), so the slope
	// at every representable x > 0 stays exact, and the slope at 0, 0.5·2¹² = 2048, fits float16
	// (a floor of 1e-12 would give 5e5 > 65504, i.e. +Inf).
	Float16SqrtSlopeFloor = 0x1p-24

	// NormGradFloor is the floor under ‖x‖² when differentiating EuclideanNorm (our guard; torch
	// defines the gradient of a zero norm as 0 and MERU relies on it). Below it the gradient x/‖x‖ is
	// replaced by x/√NormGradFloor, a vector shorter than 1 that is exactly 0 at x = 0.
	// 1e-30 lies well inside float32's normal range (1.2e-38).
	NormGradFloor = 1e-30

	// largeArg is where Acosh and Asinh switch to their large-argument forms log(2|x|): beyond it
	// x² − 1 and x² + 1 round to x² in float64, and x² would overflow float32 at 1.8e19. It is only
	// ever a float32 or float64 constant (float16 and bfloat16 are computed in float32, precision.go).
	largeArg = 1e8
)

// withSlope returns a node whose value is value and whose derivative with respect to x is slope
// (elementwise): value is computed without gradient and the chain rule sees d(value)/dx = slope.
//
// This is how the composed functions below get exact, finite first derivatives where the
// automatic derivative of their composition would be 0·∞ (sqrt at 0, Abs at 0, overflowing
// unused branches). The price: derivatives of second order through these nodes are not available
// (nothing in this project uses them). x must be finite (x − x is the carrier of the gradient).
func withSlope(value, x, slope *Node) *Node {
	carrier := Sub(x, StopGradient(x)) // exactly 0, with derivative 1
	return Add(StopGradient(value), Mul(carrier, StopGradient(slope)))
}

// scalarLike returns the constant v with x's dtype, on x's graph.
func scalarLike(x *Node, v float64) *Node {
	return Scalar(x.Graph(), x.DType(), v)
}

// SafeSqrt returns √max(x, 0) whose derivative 1/(2√x) is evaluated at max(x, slopeFloor), so it is
// finite at x = 0 (GoMLX's Sqrt gives ∞ there, and 0·∞ = NaN downstream). For x < 0 the derivative is 0.
// For a float16 x the floor is at least Float16SqrtSlopeFloor, so the slope fits float16.
func SafeSqrt(x *Node, slopeFloor float64) *Node {
	dt := x.DType()
	if dt == dtypes.Float16 {
		slopeFloor = math.Max(slopeFloor, Float16SqrtSlopeFloor)
	}
	x = computeIn(x)
	zero := scalarLike(x, 0)
	value := Sqrt(Max(x, zero))
	slope := Div(scalarLike(x, 0.5), Sqrt(Max(x, scalarLike(x, slopeFloor))))
	slope = Where(GreaterOrEqual(x, zero), slope, ZerosLike(slope))
	return roundTo(withSlope(value, x, slope), dt)
}

// EuclideanNorm returns ‖x‖ over the last axis, [..., n] → [...], with gradient x/‖x‖ away from 0
// and exactly 0 at x = 0 (see NormGradFloor).
func EuclideanNorm(x *Node) *Node {
	dt := x.DType()
	x = computeIn(x)
	return roundTo(SafeSqrt(ReduceSum(Square(x), x.Rank()-1), NormGradFloor), dt)
}

// Acosh returns arcosh(x) for x ≥ 1; smaller x are clamped to 1 (the domain; MERU and HLFormer clamp
// at 1 + 1e-8, which is 1 in float32, see doc.go). Value: log1p(t + √(t(t+2))) with t = x − 1, accurate
// near 1; log(2x) beyond largeArg. Derivative 1/√max(x²−1, AcoshGradFloor) for x ≥ 1, 0 below: at
// x = 1 it is 1/√AcoshGradFloor ≈ 31623 (float16 rounds it to 31616), finite in every dtype.
// Float16 and bfloat16 are computed in float32 (precision.go): finite for every finite x.
func Acosh(x *Node) *Node {
	dt := x.DType()
	x = computeIn(x)
	one := scalarLike(x, 1)
	xc := Max(x, one)
	big := GreaterThan(xc, scalarLike(x, largeArg))
	xs := Min(xc, scalarLike(x, largeArg)) // keeps the unused branch finite
	t := Sub(xs, one)
	tt := Mul(t, Add(t, scalarLike(x, 2))) // x² − 1 without cancellation
	small := Log1p(Add(t, Sqrt(tt)))
	large := Add(Log(xc), scalarLike(x, math.Ln2))
	value := Where(big, large, small)

	slope := Where(big, Inverse(xc), Inverse(Sqrt(Max(tt, scalarLike(x, AcoshGradFloor)))))
	slope = Where(GreaterOrEqual(x, one), slope, ZerosLike(slope))
	return roundTo(withSlope(value, x, slope), dt)
}

// Asinh returns arsinh(x) = sign(x)·log1p(|x| + x²/(1 + √(1+x²))), accurate near 0, and
// sign(x)·log(2|x|) beyond largeArg. Derivative 1/√(1+x²).
func Asinh(x *Node) *Node {
	dt := x.DType()
	x = computeIn(x)
	one := scalarLike(x, 1)
	ax := Abs(x)
	big := GreaterThan(ax, scalarLike(x, largeArg))
	axs := Min(ax, scalarLike(x, largeArg))
	sq := Square(axs)
	small := Log1p(Add(axs, Div(sq, Add(one, Sqrt(Add(one, sq))))))
	large := Add(Log(Max(ax, one)), scalarLike(x, math.Ln2))
	value := Mul(Sign(x), Where(big, large, small))

	slope := Where(big, Inverse(ax), Inverse(Sqrt(Add(one, sq))))
	return roundTo(withSlope(value, x, slope), dt)
}

// clampSinhCosh converts x to its compute dtype and clamps it to ±CoshSinhMaxArg (HLFormer
// onmt/utils.py), or ±CoshSinhMaxArgFloat16 when x is float16. Outside, the derivative is 0.
func clampSinhCosh(x *Node) *Node {
	lim := CoshSinhMaxArg
	if x.DType() == dtypes.Float16 {
		lim = CoshSinhMaxArgFloat16
	}
	x = computeIn(x)
	return Min(Max(x, scalarLike(x, -lim)), scalarLike(x, lim))
}

// Sinh returns sinh(x) = (expm1(x) − expm1(−x))/2 (accurate near 0, where (eˣ − e⁻ˣ)/2 loses all
// digits in float32), with x clamped to ±CoshSinhMaxArg (±CoshSinhMaxArgFloat16 in float16).
// Derivative cosh(x) inside the clamp.
func Sinh(x *Node) *Node { return clampedHyperbolic(x, sinhExpm1, coshExp) }

// Cosh returns cosh(x) = (eˣ + e⁻ˣ)/2 with x clamped to ±CoshSinhMaxArg (±CoshSinhMaxArgFloat16 in
// float16). Derivative sinh(x) inside the clamp.
func Cosh(x *Node) *Node { return clampedHyperbolic(x, coshExp, sinhExpm1) }

// clampedHyperbolic is value(x) with the derivative slope(x), x clamped by clampSinhCosh, rounded to
// x's dtype: Sinh and Cosh, each the other's slope.
func clampedHyperbolic(x *Node, value, slope func(*Node) *Node) *Node {
	xc := clampSinhCosh(x)
	return roundTo(withSlope(value(xc), xc, slope(xc)), x.DType())
}

// sinhExpm1 is (expm1(x) − expm1(−x))/2.
func sinhExpm1(x *Node) *Node { return Mul(scalarLike(x, 0.5), Sub(Expm1(x), Expm1(Neg(x)))) }

// coshExp is (eˣ + e⁻ˣ)/2.
func coshExp(x *Node) *Node { return Mul(scalarLike(x, 0.5), Add(Exp(x), Exp(Neg(x)))) }

// clampArcTrig converts x to its compute dtype and clamps it to ±(1 − MERUEps), MERU's asin/acos
// clamp. Outside, the derivative is 0.
func clampArcTrig(x *Node) *Node {
	x = computeIn(x)
	lim := 1 - MERUEps
	return Min(Max(x, scalarLike(x, -lim)), scalarLike(x, lim))
}

// Acos returns arccos(x) ∈ [0, π] with x clamped to ±(1 − MERUEps) (MERU). Value: atan2(√((1−x)(1+x)), x);
// derivative −1/√max(1−x², ArcTrigGradFloor).
func Acos(x *Node) *Node {
	xc := clampArcTrig(x)
	one := scalarLike(xc, 1)
	oneMinusSq := Mul(Sub(one, xc), Add(one, xc))
	value := Atan2(Sqrt(Max(oneMinusSq, scalarLike(xc, 0))), xc)
	slope := Neg(Inverse(Sqrt(Max(oneMinusSq, scalarLike(xc, ArcTrigGradFloor)))))
	return roundTo(withSlope(value, xc, slope), x.DType())
}

// Asin returns arcsin(x) ∈ [−π/2, π/2] with x clamped to ±(1 − MERUEps) (MERU). Value: atan2(x, √((1−x)(1+x)));
// derivative 1/√max(1−x², ArcTrigGradFloor).
func Asin(x *Node) *Node {
	xc := clampArcTrig(x)
	one := scalarLike(xc, 1)
	oneMinusSq := Mul(Sub(one, xc), Add(one, xc))
	value := Atan2(xc, Sqrt(Max(oneMinusSq, scalarLike(xc, 0))))
	slope := Inverse(Sqrt(Max(oneMinusSq, scalarLike(xc, ArcTrigGradFloor))))
	return roundTo(withSlope(value, xc, slope), x.DType())
}

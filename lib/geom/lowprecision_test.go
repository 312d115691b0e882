package geom

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// Float16 and bfloat16 (precision.go): values and gradients against float64 references evaluated at
// the rounded inputs (the function sees only those). With -v the tests print the largest relative
// errors they measured:
//
//	go test ./lib/geom/ -run LowPrecision -v

var lowPrecisionDTypes = []dtypes.DType{dtypes.Float16, dtypes.BFloat16}

// The acceptance tolerances of issue 18, relative to the float64 reference. What is measured is far
// smaller: about one rounding of the result, 2⁻¹¹ (float16) or 2⁻⁸ (bfloat16).
const lowPrecisionValueTol, lowPrecisionSlopeTol = 0.03, 0.05

// logSpace returns n ≥ 2 log-spaced points from lo to hi (0 < lo < hi), both included.
func logSpace(lo, hi float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = lo * math.Pow(hi/lo, float64(i)/float64(n-1))
	}
	return out
}

// symmetric returns xs, their negatives and 0.
func symmetric(xs []float64) []float64 {
	out := append([]float64{0}, xs...)
	for _, x := range xs {
		out = append(out, -x)
	}
	return out
}

// ulpAboveOne is the gap between 1 and the next value of dt: 2⁻¹⁰ in float16, 2⁻⁷ in bfloat16.
func ulpAboveOne(dt dtypes.DType) float64 {
	if dt == dtypes.Float16 {
		return 0x1p-10
	}
	return 0x1p-7
}

// relErr is |got − want| / |want|; exact agreement is required where want is 0, and a non-finite got
// is an infinite error.
func relErr(got, want float64) float64 {
	switch {
	case math.IsNaN(got) || math.IsInf(got, 0):
		return math.Inf(1)
	case want == 0 && got == 0:
		return 0
	}
	return math.Abs(got-want) / math.Abs(want)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// elementaryCase is one elementwise function under the low-precision sweep.
type elementaryCase struct {
	name       string
	f          func(*Node) *Node
	ref, slope func(float64) float64
	// inside lists the inputs (before rounding) where value and slope must match the references;
	// edges those (domain edges, clamps, the dtype's extremes) where they need only be finite.
	inside, edges func(dt dtypes.DType) []float64
}

// maxFloat returns the largest finite value of dt.
func maxFloat(dt dtypes.DType) float64 {
	if dt == dtypes.Float16 {
		return 65504
	}
	return 3.3895313892515355e38 // bfloat16: (2 − 2⁻⁷)·2¹²⁷
}

// coshSinhLimit is the clamp of Cosh and Sinh for dt, written from the constants' documentation.
func coshSinhLimit(dt dtypes.DType) float64 {
	if dt == dtypes.Float16 {
		return 11
	}
	return 85
}

// belowClamp is the top of the range where Cosh and Sinh are compared: just below the clamp, whose
// own point has slope 0 (the clamp's derivative there, as in float32).
func belowClamp(dt dtypes.DType) float64 { return coshSinhLimit(dt) * (1 - 0x1p-6) }

var elementaryLowPrecisionCases = []elementaryCase{
	{name: "Acosh", f: Acosh, ref: math.Acosh,
		slope: func(x float64) float64 { return 1 / math.Sqrt((x-1)*(x+1)) },
		inside: func(dt dtypes.DType) []float64 {
			// The points: exactly 1, 1 + ulp, around 256 (where t(t+2) overflowed float16), float16's max.
			special := []float64{1, 1 + ulpAboveOne(dt), 255, 256, 257, 65504}
			return append(special, logSpace(1, 6e4, 2001)...)
		},
		edges: func(dt dtypes.DType) []float64 { return []float64{-3, 0, 0.5, 1, maxFloat(dt)} }},
	{name: "Asinh", f: Asinh, ref: math.Asinh,
		slope:  func(x float64) float64 { return 1 / math.Sqrt(1+x*x) },
		inside: func(dtypes.DType) []float64 { return symmetric(logSpace(1e-4, 6e4, 1001)) },
		edges:  func(dt dtypes.DType) []float64 { return []float64{-maxFloat(dt), maxFloat(dt)} }},
	{name: "Sinh", f: Sinh, ref: math.Sinh, slope: math.Cosh,
		inside: func(dt dtypes.DType) []float64 { return symmetric(logSpace(1e-4, belowClamp(dt), 1001)) },
		edges: func(dt dtypes.DType) []float64 {
			return symmetric([]float64{coshSinhLimit(dt), coshSinhLimit(dt) + 0.5, 1e4, maxFloat(dt)})
		}},
	{name: "Cosh", f: Cosh, ref: math.Cosh, slope: math.Sinh,
		inside: func(dt dtypes.DType) []float64 { return symmetric(logSpace(1e-4, belowClamp(dt), 1001)) },
		edges: func(dt dtypes.DType) []float64 {
			return symmetric([]float64{coshSinhLimit(dt), coshSinhLimit(dt) + 0.5, 1e4, maxFloat(dt)})
		}},
	{name: "Acos", f: Acos, ref: acosRef,
		slope: func(x float64) float64 { return -1 / math.Sqrt((1-x)*(1+x)) },
		inside: func(dt dtypes.DType) []float64 {
			xs := []float64{1 - ulpAboveOne(dt)/2, -1 + ulpAboveOne(dt)/2} // the values next to ±1
			for i := 1; i < 2000; i++ {
				xs = append(xs, -1+float64(i)/1000)
			}
			return xs
		},
		edges: func(dtypes.DType) []float64 { return []float64{-2, -1, 1, 2} }},
	{name: "Asin", f: Asin, ref: math.Asin,
		slope: func(x float64) float64 { return 1 / math.Sqrt((1-x)*(1+x)) },
		inside: func(dt dtypes.DType) []float64 {
			xs := []float64{1 - ulpAboveOne(dt)/2, -1 + ulpAboveOne(dt)/2}
			for i := 1; i < 2000; i++ {
				xs = append(xs, -1+float64(i)/1000)
			}
			return xs
		},
		edges: func(dtypes.DType) []float64 { return []float64{-2, -1, 1, 2} }},
	{name: "SafeSqrt", f: func(x *Node) *Node { return SafeSqrt(x, VolumeGradFloor) }, ref: math.Sqrt,
		slope:  func(x float64) float64 { return 0.5 / math.Sqrt(x) },
		inside: func(dtypes.DType) []float64 { return logSpace(1e-4, 6e4, 1001) },
		edges:  func(dt dtypes.DType) []float64 { return []float64{-1, 0, maxFloat(dt)} }},
}

// TestElementaryFunctionsLowPrecision: in float16 and bfloat16 every value and slope is finite, and
// inside the domain within 3 % (value) and 5 % (slope) of the float64 reference at the rounded input.
// Where the reference slope is infinite (Acosh at 1) the slope must be finite; its value is pinned by
// TestAcoshLowPrecisionAtOne.
func TestElementaryFunctionsLowPrecision(t *testing.T) {
	var report strings.Builder
	for _, dt := range lowPrecisionDTypes {
		for _, tc := range elementaryLowPrecisionCases {
			xs, values, slopes := elementwiseIn(t, tc.f, tc.inside(dt), dt)
			maxValue, maxSlope := 0.0, 0.0
			for i, x := range xs {
				if !finite(values[i]) || !finite(slopes[i]) {
					t.Errorf("%s %s(%g): value %g, slope %g", dt, tc.name, x, values[i], slopes[i])
					continue
				}
				e := relErr(values[i], tc.ref(x))
				maxValue = math.Max(maxValue, e)
				if e > lowPrecisionValueTol {
					t.Errorf("%s %s(%g) = %g, float64 %g: relative error %.2g", dt, tc.name, x, values[i], tc.ref(x), e)
				}
				want := tc.slope(x)
				if math.IsInf(want, 0) {
					continue
				}
				e = relErr(slopes[i], want)
				maxSlope = math.Max(maxSlope, e)
				if e > lowPrecisionSlopeTol {
					t.Errorf("%s %s'(%g) = %g, float64 %g: relative error %.2g", dt, tc.name, x, slopes[i], want, e)
				}
			}
			edges, ev, es := elementwiseIn(t, tc.f, tc.edges(dt), dt)
			for i, x := range edges {
				if !finite(ev[i]) || !finite(es[i]) {
					t.Errorf("%s %s at the edge %g: value %g, slope %g", dt, tc.name, x, ev[i], es[i])
				}
			}
			fmt.Fprintf(&report, "  %-8s %-9s %5d points  max rel. error: value %.2e  slope %.2e\n",
				dt, tc.name, len(xs), maxValue, maxSlope)
		}
	}
	t.Logf("float16/bfloat16 vs float64 at the rounded inputs:\n%s", report.String())
}

// TestAcoshLowPrecisionAtOne pins what Acosh returns where its slope is infinite or undefined: at
// x = 1 the value 0 and the slope 1/√AcoshGradFloor (≈ 31623, finite in both dtypes), rounded to the
// dtype; below 1 (clamped) the value 0 and the slope 0.
func TestAcoshLowPrecisionAtOne(t *testing.T) {
	for _, dt := range lowPrecisionDTypes {
		xs, v, s := elementwiseIn(t, Acosh, []float64{1, 0.5, -2}, dt)
		if v[0] != 0 || s[0] != roundedTo(1/math.Sqrt(AcoshGradFloor), dt) {
			t.Errorf("%s Acosh(1): value %g, slope %g; want 0 and %g", dt, v[0], s[0], roundedTo(1/math.Sqrt(AcoshGradFloor), dt))
		}
		for i := 1; i < len(xs); i++ {
			if v[i] != 0 || s[i] != 0 {
				t.Errorf("%s Acosh(%g): value %g, slope %g; want 0 and 0", dt, xs[i], v[i], s[i])
			}
		}
	}
}

// pairCase is a function of two point sets under the low-precision check: out(x, y, c) is [N] for
// rowwise functions, [N, M] for pairwise ones, and ref the float64 value for one pair of rows.
type pairCase struct {
	name     string
	pairwise bool
	out      func(x, y, c *Node) *Node
	ref      func(x, y []float64, c float64) float64
	// radius places a point at hyperbolic distance r from the origin: the norm of its coordinates.
	radius func(r, c float64) float64
	// maxRadius, when set, excludes the larger lowPrecisionRadii (see the case).
	maxRadius float64
}

// lorentzRadius and poincareRadius are the coordinate norms of a point at distance r from the origin.
func lorentzRadius(r, c float64) float64  { return math.Sinh(math.Sqrt(c)*r) / math.Sqrt(c) }
func poincareRadius(r, c float64) float64 { return math.Tanh(math.Sqrt(c)*r/2) / math.Sqrt(c) }

var pairLowPrecisionCases = []pairCase{
	{"LorentzDistance", false, LorentzDistance, lorentzDistRef, lorentzRadius, 0},
	{"PairwiseLorentzDistance", true, PairwiseLorentzDistance, lorentzDistRef, lorentzRadius, 0},
	{"PoincareDistance", false, PoincareDistance, poincareDistRef, poincareRadius, 0},
	{"PairwisePoincareDistance", true, PairwisePoincareDistance, poincareDistRef, poincareRadius, 0},
	// Beyond r = 4 MERU's exterior-angle formula loses its gradient to float32 rounding (≈ 1e-5 at
	// r = 6, where float32 itself is 2 % off; ≈ 1e-7 at r = 8, 100 % off): see doc.go, float32 limits.
	{"ExteriorAngle", false, ExteriorAngle, exteriorAngleRef, lorentzRadius, 4},
	{"HalfAperture", false, func(x, _, c *Node) *Node { return HalfAperture(x, c, MinRadius) },
		func(x, _ []float64, c float64) float64 {
			return math.Asin(math.Min(2*MinRadius/(math.Sqrt(c)*math.Sqrt(floats.Dot(x, x))+MERUEps), 1-MERUEps))
		}, lorentzRadius, 0},
}

// smallestNormal is the least positive normal value of dt: below it the dtype keeps fewer significant
// bits (float16: 2⁻¹⁴ ≈ 6.1e-5, so a gradient component of 1e-6 has barely 4 bits), down to the
// absolute resolution halfSubnormal, half the smallest positive value.
func smallestNormal(dt dtypes.DType) float64 {
	if dt == dtypes.Float16 {
		return 0x1p-14
	}
	return 0x1p-126
}

func halfSubnormal(dt dtypes.DType) float64 {
	if dt == dtypes.Float16 {
		return 0x1p-25
	}
	return 0x1p-134
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// lowPrecisionRadii are the hyperbolic distances from the origin of the test points (HyperGRAM's
// low-precision study uses 1 … 8; at 8, x₀y₀ ≈ 2.2e6 is far beyond float16's range).
var lowPrecisionRadii = []float64{0.5, 1, 2, 4, 6, 8}

const lowPrecisionDim = 16

// roundedRows returns n random directions in R^d scaled to norm, rounded to dt.
func roundedRows(rng *rand.Rand, n int, norm float64, dt dtypes.DType) array {
	a := newArray(make([]float64, n*lowPrecisionDim), n, lowPrecisionDim)
	for i := 0; i < n; i++ {
		randomDirection(rng, a.row(i), norm)
	}
	for i, v := range a.data {
		a.data[i] = roundedTo(v, dt)
	}
	return a
}

// centralGradient is the gradient of f at x by central differences with step h, in float64 (gonum's
// diff/fd).
func centralGradient(f func([]float64) float64, x []float64, h float64) []float64 {
	return fd.Gradient(nil, f, x, &fd.Settings{Formula: fd.Central, Step: h})
}

// vecRelErr is ‖got − want‖ / ‖want‖ (0 when both are 0; +Inf for a non-finite got).
func vecRelErr(got, want []float64) float64 {
	num, den := 0.0, 0.0
	for i := range got {
		if !finite(got[i]) {
			return math.Inf(1)
		}
		num += (got[i] - want[i]) * (got[i] - want[i])
		den += want[i] * want[i]
	}
	if den == 0 {
		if num == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return math.Sqrt(num / den)
}

// poincareGapFloor is where the Poincaré cases stop comparing: a rounded point with 1 − c‖p‖² below it
// is too close to the clamp PoincareBoundaryEps (or beyond it: rounding can push a point at r = 8 out of
// the ball in bfloat16) for the unclamped float64 formula to be the reference.
const poincareGapFloor = 1e-4

// TestDistancesLowPrecision: Lorentz and Poincaré distances, exterior angle and half-aperture of
// random points at distances 0.5 … 8 from the origin, in float16 and bfloat16: values within 3 % of the
// float64 formula at the rounded points, gradients within 5 % (vector norm) of float64 central
// differences of that formula, nothing non-finite.
func TestDistancesLowPrecision(t *testing.T) {
	const n, m = 24, 6 // rowwise pairs; pairwise is n × m
	var report strings.Builder
	for _, dt := range lowPrecisionDTypes {
		for _, tc := range pairLowPrecisionCases {
			exec := MustNewExec(backend.MustNew(), func(x, y, c *Node) []*Node {
				d := tc.out(x, y, c)
				g := Gradient(ReduceAllSum(d), x, y)
				return []*Node{d, g[0], g[1]}
			})
			rng := rand.New(rand.NewPCG(5, 6))
			maxValue, maxGrad, skipped := 0.0, 0.0, 0
			for _, c := range []float64{1, 0.5} {
				for _, r := range lowPrecisionRadii {
					if tc.maxRadius > 0 && r > tc.maxRadius {
						continue
					}
					rows := n
					if tc.pairwise {
						rows = m
					}
					x := roundedRows(rng, n, tc.radius(r, c), dt)
					y := roundedRows(rng, rows, tc.radius(r*(0.5+rng.Float64()), c), dt)
					out := exec.MustCall(x.tensorIn(dt), y.tensorIn(dt), scalarArray(c).tensorIn(dt))
					values, gx, gy := flat(out[0]), flat(out[1]), flat(out[2])
					cr := roundedTo(c, dt)
					inside := func(p []float64) bool {
						return !strings.Contains(tc.name, "Poincare") || 1-cr*floats.Dot(p, p) >= poincareGapFloor
					}
					for i := 0; i < n; i++ {
						partners := []int{i}
						if tc.pairwise {
							partners = []int{0, 1, 2, 3, 4, 5}
						}
						wantGX := make([]float64, lowPrecisionDim)
						complete := inside(x.row(i)) // every pair of row i has a float64 reference
						for _, j := range partners {
							xi, yj := x.row(i), y.row(j)
							k := i
							if tc.pairwise {
								k = i*m + j
							}
							if !finite(values[k]) {
								t.Errorf("%s %s: value %g at r = %g, c = %g", dt, tc.name, values[k], r, c)
								continue
							}
							if !complete || !inside(yj) {
								complete = false
								continue
							}
							want := tc.ref(xi, yj, c)
							e := relErr(values[k], want)
							maxValue = math.Max(maxValue, e)
							if e > lowPrecisionValueTol {
								t.Errorf("%s %s(x%d, y%d) r = %g, c = %g: %g, float64 %g (relative error %.2g)",
									dt, tc.name, i, j, r, c, values[k], want, e)
							}
							h := 1e-7 * math.Max(1, math.Sqrt(floats.Dot(xi, xi)))
							for d, v := range centralGradient(func(p []float64) float64 { return tc.ref(p, yj, cr) }, xi, h) {
								wantGX[d] += v
							}
						}
						gxi := gx[i*lowPrecisionDim : (i+1)*lowPrecisionDim]
						// Gradient components below the dtype's normal range (HalfAperture far from the
						// origin in float16: ≈ 3e-8 at r = 8) are rounded to a few bits or to 0 by
						// construction: the tolerance adds the dtype's absolute resolution per component,
						// and the reported error covers the rows within the normal range.
						if complete {
							e := vecRelErr(gxi, wantGX)
							if maxAbs(wantGX) >= smallestNormal(dt) {
								maxGrad = math.Max(maxGrad, e)
							} else {
								skipped++
							}
							resolution := math.Sqrt(lowPrecisionDim) * halfSubnormal(dt) / math.Sqrt(floats.Dot(wantGX, wantGX))
							if e > lowPrecisionSlopeTol+resolution {
								t.Errorf("%s %s ∂/∂x%d at r = %g, c = %g: %v, float64 %v (relative error %.2g)",
									dt, tc.name, i, r, c, gxi, wantGX, e)
							}
						} else {
							skipped++
						}
					}
					for i, v := range append(gx, gy...) {
						if !finite(v) {
							t.Errorf("%s %s: gradient entry %d is %g at r = %g, c = %g", dt, tc.name, i, v, r, c)
							break
						}
					}
				}
			}
			exec.Finalize()
			fmt.Fprintf(&report, "  %-8s %-24s max rel. error: value %.2e  gradient %.2e  (%d gradient rows not in it)\n",
				dt, tc.name, maxValue, maxGrad, skipped)
		}
	}
	t.Logf("float16/bfloat16 vs float64 at the rounded points, r ∈ %v, c ∈ {1, 0.5}; the gradient error is over the rows "+
		"with every point ≥ poincareGapFloor inside the ball and a gradient within the dtype's normal range:\n%s",
		lowPrecisionRadii, report.String())
}

// composedCases are the sweep's cases that chain two exported functions: in float16 or bfloat16 the
// intermediate result is rounded, so they are not the float32 computation rounded once.
var composedCases = map[string]bool{"LogMap0∘ExpMap0": true, "PoincareDistance(inside)": true,
	"LogMap0Full(origin+x)": true, "LorentzCentroid": true, "Acos(tanh)": true}

// TestStorageDTypesComputeInFloat32 checks the rule of precision.go on every exported function of
// the robustness sweep: given float16 or bfloat16 inputs, value and gradients are exactly the float32
// ones at the same (rounded) inputs, rounded to the input's dtype. The float32 results are checked
// against float64 references by the other tests. Cosh and Sinh are the exception in float16 (their
// clamp is CoshSinhMaxArgFloat16 there) and are left to TestElementaryFunctionsLowPrecision.
func TestStorageDTypesComputeInFloat32(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	x, y := adversarialPairs(rng, 512, fuzzDim)
	v := gramStack(rng, 256, 3, fuzzDim)
	anchor, o1 := adversarialPairs(rng, 16, fuzzDim)
	o2, _ := adversarialPairs(rng, 16, fuzzDim)
	for _, dt := range lowPrecisionDTypes {
		var cases []finiteCase
		for _, fc := range append(append([]finiteCase(nil), pointwiseCases...), pairwiseCases...) {
			if composedCases[fc.name] || dt == dtypes.Float16 && (fc.name == "Sinh" || fc.name == "Cosh") {
				continue
			}
			cases = append(cases, fc)
		}
		// Volumes of norm-1e4 vectors exceed float16 either way (both sides +Inf); unit scale keeps them in range.
		unit := 1e-4
		checkComputedInFloat32(t, dt, cases, x, y, scalarArray(0.5))
		checkComputedInFloat32(t, dt, volumeCases(3), scaled(v, unit), scaled(anchor, unit), scaled(o1, unit),
			scaled(o2, unit), scaled(anchor, unit), scalarArray(0.3))
	}
}

func scaled(a array, s float64) array {
	a = a.clone()
	for i := range a.data {
		a.data[i] *= s
	}
	return a
}

// checkComputedInFloat32 compares, bit for bit, each case's value and gradients with its inputs in dt
// against the float32 ones at the same inputs (rounded to dt first), converted to dt.
//
// On the Go backend every entry is compared. XLA compiles the two programs separately, and at the
// sweep's adversarial points where float32 itself is rounding noise (ExteriorAngle of x = y at
// ‖x‖ ≈ 2e3 and c = 0.5: 1.76 in float32, π/2 in float64; its ∂/∂x entries 1e-3 of float64's) a
// last-bit difference in the float32 evaluation moves the rounded result: on AVX-512 hosts 16
// float16 entries of its ∂/∂x round differently, e.g. 9.06e-6 instead of 9.54e-6 (all agree with
// --xla_cpu_max_isa=AVX2). There the rule "computed in float32" says nothing, so on XLA an entry
// that differs is forgiven where the float32 result is noise — its row (the point's value, or its
// gradient vector) off the float64 one by more than xlaNoiseTolerance (computeNoise) — and the test
// logs every one.
func checkComputedInFloat32(t *testing.T, dt dtypes.DType, cases []finiteCase, inputs ...array) {
	t.Helper()
	narrowArgs, wideArgs, refArgs := make([]any, len(inputs)), make([]any, len(inputs)), make([]any, len(inputs))
	for i, a := range inputs {
		a = a.clone()
		for k, v := range a.data {
			a.data[k] = roundedTo(v, dt)
		}
		narrowArgs[i], wideArgs[i], refArgs[i] = a.tensorIn(dt), a.tensor(true), a.tensor(false)
	}
	narrow := valuesAndGradients(cases)
	defer narrow.Finalize()
	wide := MustNewExec(backend.MustNew(), func(in []*Node) []*Node {
		var out []*Node
		for _, fc := range cases {
			v := fc.build(in)
			out = append(out, ConvertDType(v, dt))
			for _, g := range Gradient(ReduceAllSum(v), in...) {
				out = append(out, ConvertDType(g, dt))
			}
		}
		return out
	})
	defer wide.Finalize()
	got, want := narrow.MustCall(narrowArgs...), wide.MustCall(wideArgs...)
	var ref []*tensors.Tensor // float64 values and gradients, on XLA only
	if backend.IsXLA() {
		refExec := valuesAndGradients(cases)
		defer refExec.Finalize()
		ref = refExec.MustCall(refArgs...)
	}
	per := 1 + len(inputs)
	var forgiven []string
	for ci, fc := range cases {
		for k := 0; k < per; k++ {
			g, w := flat(got[per*ci+k]), flat(want[per*ci+k])
			var r []float64
			if ref != nil {
				r = flat(ref[per*ci+k])
			}
			row := 1 // entries per row: the last axis of a gradient of points
			if dims := got[per*ci+k].Shape().Dimensions; len(dims) > 1 {
				row = dims[len(dims)-1]
			}
			for e := range g {
				if math.Float64bits(g[e]) == math.Float64bits(w[e]) || math.IsNaN(g[e]) && math.IsNaN(w[e]) {
					continue
				}
				if lo := e - e%row; r != nil && computeNoise(w[lo:lo+row], r[lo:lo+row], dt) {
					forgiven = append(forgiven, fmt.Sprintf("%s output %d entry %d: %g vs %g (float64 %g)", fc.name, k, e, g[e], w[e], r[e]))
					continue
				}
				t.Errorf("%s %s output %d entry %d: %g, float32 rounded %g", dt, fc.name, k, e, g[e], w[e])
				break
			}
		}
	}
	if len(forgiven) > 0 {
		t.Logf("%s on XLA: %d entries differ where float32 is rounding noise: %s", dt, len(forgiven), strings.Join(forgiven, "; "))
	}
}

// xlaNoiseTolerance is how far, in units of dt's precision (ulpAboveOne),
// a float32 result rounded to dt may be from the float64 one and still count as accurate: 4 units of
// relative error (of the row's norm), beyond the half unit of the rounding, plus dt's smallest normal
// value as an absolute floor (below it dt keeps few bits).
const xlaNoiseTolerance = 4

// computeNoise reports whether w, a row of float32 results rounded to dt, is float32 rounding noise:
// off the float64 row r by more than xlaNoiseTolerance units of dt's precision of r's norm (plus dt's
// smallest normal value). Rows with a NaN or an infinity in either are noise unless they are equal.
func computeNoise(w, r []float64, dt dtypes.DType) bool {
	unit := ulpAboveOne(dt)
	var diff, norm float64
	for i := range w {
		norm += r[i] * r[i]
		if w[i] != r[i] { // equal infinities are no difference
			diff += (w[i] - r[i]) * (w[i] - r[i])
		}
	}
	return !(math.Sqrt(diff) <= xlaNoiseTolerance*unit*math.Sqrt(norm)+smallestNormal(dt))
}

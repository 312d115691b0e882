package geom

import (
	"math"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// elementwise evaluates f and its derivative (gradient of Σ f(x)) at xs, in float64 or float32.
func elementwise(t *testing.T, f func(*Node) *Node, xs []float64, float32Mode bool) (values, slopes []float64) {
	t.Helper()
	dt := dtypes.Float64
	if float32Mode {
		dt = dtypes.Float32
	}
	_, values, slopes = elementwiseIn(t, f, xs, dt)
	return values, slopes
}

// elementwiseIn evaluates f and its derivative at xs given to f in dtype dt. It returns the inputs as
// rounded to dt, and the values and slopes converted to float64.
func elementwiseIn(t *testing.T, f func(*Node) *Node, xs []float64, dt dtypes.DType) (rounded, values, slopes []float64) {
	t.Helper()
	exec := MustNewExec(backend.MustNew(), func(x *Node) []*Node {
		y := f(x)
		return []*Node{y, Gradient(ReduceAllSum(y), x)[0]}
	})
	defer exec.Finalize()
	out := exec.MustCall(newArray(xs, len(xs)).tensorIn(dt))
	rounded = make([]float64, len(xs))
	for i, x := range xs {
		rounded[i] = roundedTo(x, dt)
	}
	return rounded, flat(out[0]), flat(out[1])
}

func TestElementaryFunctionsMatchMath(t *testing.T) {
	type fnCase struct {
		name       string
		f          func(*Node) *Node
		ref, slope func(float64) float64
		xs         []float64
	}
	cases := []fnCase{
		{"Acosh", Acosh, math.Acosh, func(x float64) float64 { return 1 / math.Sqrt(x*x-1) },
			[]float64{1 + 1e-6, 1.001, 1.5, 2, 10, 1e3, 1e7, 1e9, 1e15}},
		{"Asinh", Asinh, math.Asinh, func(x float64) float64 { return 1 / math.Sqrt(1+x*x) },
			[]float64{-1e12, -1e9, -3, -1e-7, 0, 1e-9, 1e-6, 0.5, 2, 1e4, 1e9, 1e12}},
		{"Sinh", Sinh, math.Sinh, math.Cosh, []float64{-50, -3, -1e-7, 0, 1e-9, 1e-4, 0.7, 5, 80}},
		{"Cosh", Cosh, math.Cosh, math.Sinh, []float64{-50, -3, -1e-7, 0, 1e-4, 0.7, 5, 80}},
		{"Acos", Acos, acosRef, func(x float64) float64 { return -1 / math.Sqrt(1-x*x) },
			[]float64{-0.999999, -0.7, -1e-8, 0, 1e-9, 0.3, 0.99, 0.999999}},
		{"Asin", Asin, math.Asin, func(x float64) float64 { return 1 / math.Sqrt(1-x*x) },
			[]float64{-0.999999, -0.7, -1e-8, 0, 1e-9, 0.3, 0.99, 0.999999}},
	}
	for _, tc := range cases {
		values, slopes := elementwise(t, tc.f, tc.xs, false)
		for i, x := range tc.xs {
			assertRel(t, tc.name+" value", values[i], tc.ref(x), 1e-12)
			assertRel(t, tc.name+" slope", slopes[i], tc.slope(x), 1e-9)
		}
	}
}

// acosRef is arccos in the form 2·asin(√((1−x)/2)), exact near x = 1 where math.Acos (π/2 − asin x,
// with 1 − x² cancelling) loses about 1e-11 relative.
func acosRef(x float64) float64 {
	if x > 0.5 {
		return 2 * math.Asin(math.Sqrt((1-x)/2))
	}
	return math.Acos(x)
}

// assertRel checks |got − want| ≤ rtol·|want| (exact equality when want = 0).
func assertRel(t *testing.T, what string, got, want, rtol float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > rtol*math.Abs(want) {
		t.Errorf("%s: got %.15g, want %.15g (relative tol %.1g)", what, got, want, rtol)
	}
}

func TestElementaryFunctionsRelativeAccuracyNearZero(t *testing.T) {
	// sinh, asinh, acosh near their zeros: the naive forms lose every digit in float32.
	for _, mode := range []bool{false, true} {
		tol := 1e-14
		if mode {
			tol = 1e-6
		}
		xs := []float64{1e-7, 1e-5, 1e-3}
		s, _ := elementwise(t, Sinh, xs, mode)
		a, _ := elementwise(t, Asinh, xs, mode)
		for i, x := range xs {
			if r := math.Abs(s[i]/math.Sinh(x) - 1); r > tol {
				t.Errorf("float32=%v Sinh(%g) relative error %.2g", mode, x, r)
			}
			if r := math.Abs(a[i]/math.Asinh(x) - 1); r > tol {
				t.Errorf("float32=%v Asinh(%g) relative error %.2g", mode, x, r)
			}
		}
	}
}

func TestElementaryFunctionsGuards(t *testing.T) {
	// At the edges of their domains the values are clamped and the slopes finite.
	for _, mode := range []bool{false, true} {
		v, s := elementwise(t, Acosh, []float64{0, 0.5, 1, 1e30}, mode)
		assertClose(t, "Acosh(0) clamps to acosh(1)", v[0], 0, 0)
		assertClose(t, "Acosh(1)", v[2], 0, 0)
		assertClose(t, "Acosh(1) slope capped", s[2], 1/math.Sqrt(AcoshGradFloor), 1e-6)
		assertClose(t, "Acosh slope below domain", s[1], 0, 0)
		assertClose(t, "Acosh(1e30)", v[3], math.Log(2e30), 1e-6)
		for _, f := range []func(*Node) *Node{Acos, Asin} {
			v, s = elementwise(t, f, []float64{-2, -1, 1, 2}, mode)
			for i := range v {
				if math.IsNaN(v[i]) || math.IsInf(s[i], 0) || math.IsNaN(s[i]) {
					t.Errorf("float32=%v arc-trig at the domain edge: value %g slope %g", mode, v[i], s[i])
				}
			}
		}
		v, s = elementwise(t, Sinh, []float64{-1000, 1000}, mode)
		for i := range v {
			if math.IsInf(v[i], 0) || s[i] != 0 {
				t.Errorf("float32=%v Sinh clamp: value %g slope %g", mode, v[i], s[i])
			}
		}
	}
}

func TestSafeSqrtAndEuclideanNorm(t *testing.T) {
	v, s := elementwise(t, func(x *Node) *Node { return SafeSqrt(x, 1e-12) }, []float64{-1, 0, 1e-14, 4}, false)
	want := []float64{0, 0, 1e-7, 2}
	wantSlope := []float64{0, 0.5e6, 0.5e6, 0.25}
	for i := range v {
		assertClose(t, "SafeSqrt value", v[i], want[i], 1e-15)
		assertClose(t, "SafeSqrt slope", s[i], wantSlope[i], 1e-12)
	}
	// The gradient of the norm is x/‖x‖, and 0 at x = 0.
	exec := MustNewExec(backend.MustNew(), func(x *Node) []*Node {
		n := EuclideanNorm(x)
		return []*Node{n, Gradient(ReduceAllSum(n), x)[0]}
	})
	defer exec.Finalize()
	out := exec.MustCall(tensors.FromValue([][]float64{{3, 4}, {0, 0}}))
	assertClose(t, "‖(3,4)‖", flat(out[0])[0], 5, 1e-15)
	g := flat(out[1])
	for i, w := range []float64{0.6, 0.8, 0, 0} {
		assertClose(t, "∇‖x‖", g[i], w, 1e-15)
	}
}

func TestElementaryFunctionGradientsMatchFiniteDifferences(t *testing.T) {
	// Away from the clamps, where finite differences are meaningful.
	vec := func(v ...float64) array { return newArray(v, len(v)) }
	checkGradients(t, "Acosh", func(in []*Node) *Node { return Acosh(in[0]) }, []array{vec(1.01, 1.7, 30, 2e8)})
	checkGradients(t, "Asinh", func(in []*Node) *Node { return Asinh(in[0]) }, []array{vec(-3e8, -2, 1e-3, 0.4, 7)})
	checkGradients(t, "Sinh", func(in []*Node) *Node { return Sinh(in[0]) }, []array{vec(-4, -1e-3, 0.5, 9)})
	checkGradients(t, "Cosh", func(in []*Node) *Node { return Cosh(in[0]) }, []array{vec(-4, -1e-3, 0.5, 9)})
	checkGradients(t, "Acos", func(in []*Node) *Node { return Acos(in[0]) }, []array{vec(-0.99, -0.2, 0.3, 0.95)})
	checkGradients(t, "Asin", func(in []*Node) *Node { return Asin(in[0]) }, []array{vec(-0.99, -0.2, 0.3, 0.95)})
	checkGradients(t, "SafeSqrt", func(in []*Node) *Node { return SafeSqrt(in[0], 1e-12) }, []array{vec(0.01, 0.3, 50)})
	checkGradients(t, "EuclideanNorm", func(in []*Node) *Node { return EuclideanNorm(in[0]) },
		[]array{newArray([]float64{0.3, -0.4, 1e-3, 2, 5, -1}, 2, 3)})
}

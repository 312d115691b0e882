package geom

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"

	. "github.com/gomlx/gomlx/core/graph"
)

// withZeroTime returns [0, u] rows for the rows u of a 2-D array.
func withZeroTime(u array) array {
	n, d := u.dims[0], u.dims[1]
	out := make([]float64, 0, n*(d+1))
	for i := 0; i < n; i++ {
		out = append(out, 0)
		out = append(out, u.row(i)...)
	}
	return newArray(out, n, d+1)
}

func minkowskiRef(x, y []float64) float64 { return -x[0]*y[0] + floats.Dot(x[1:], y[1:]) }

func TestFullCoordinates(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	u := randomVectors(rng, 8, 3, 1.2)
	u0 := withZeroTime(u)

	// ToFullCoordinates lands on the hyperboloid ⟨X, X⟩_L = −1/c.
	for _, c := range testCurvatures {
		full := eval(t, func(in []*Node) *Node { return ToFullCoordinates(in[0], in[1]) }, u, scalarArray(c))
		fa := newArray(full, 8, 4)
		for i := 0; i < 8; i++ {
			assertClose(t, "⟨X,X⟩_L", minkowskiRef(fa.row(i), fa.row(i)), -1/c, 1e-12)
		}
	}

	// MinkowskiInner against the reference.
	y := withZeroTime(randomVectors(rng, 8, 3, 1))
	inner := eval(t, func(in []*Node) *Node { return MinkowskiInner(in[0], in[1]) }, u0, y)
	for i := range inner {
		assertClose(t, "MinkowskiInner", inner[i], minkowskiRef(u0.row(i), y.row(i)), 1e-13)
	}

	// ExpMap0Full([0, u]) = [x₀, ExpMap0(u, c=1)] below EXP_MAX_NORM, and LogMap0Full inverts it.
	mapped := newArray(eval(t, func(in []*Node) *Node { return ExpMap0Full(in[0]) }, u0), 8, 4)
	back := newArray(eval(t, func(in []*Node) *Node { return LogMap0Full(ExpMap0Full(in[0])) }, u0), 8, 4)
	for i := 0; i < 8; i++ {
		ui := u.row(i)
		n := math.Sqrt(floats.Dot(ui, ui))
		for j := range ui {
			assertRel(t, "ExpMap0Full space", mapped.row(i)[j+1], math.Sinh(n)/n*ui[j], 1e-12)
			assertRel(t, "LogMap0Full(ExpMap0Full(u))", back.row(i)[j+1], ui[j], 1e-10)
		}
		assertClose(t, "ExpMap0Full on the hyperboloid", minkowskiRef(mapped.row(i), mapped.row(i)), -1, 1e-12)
		assertClose(t, "LogMap0Full time", back.row(i)[0], 0, 0)
	}

	// EXP_MAX_NORM: a tangent vector of norm 20 goes as far as one of norm 10.
	far := eval(t, func(in []*Node) *Node { return ExpMap0Full(in[0]) }, newArray([]float64{0, 0, 20, 0}, 1, 4))
	assertRel(t, "ExpMap0Full clamp", far[2], math.Sinh(ExpMapMaxNorm), 1e-12)

	// The log-map guard: the all-zero vector and the origin map to 0, not NaN.
	guard := eval(t, func(in []*Node) *Node { return LogMap0Full(in[0]) }, newArray([]float64{0, 0, 0, 1, 0, 0}, 2, 3))
	for i, v := range guard {
		assertClose(t, "LogMap0Full guard", v, 0, 0)
		_ = i
	}
}

func TestLorentzCentroid(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	// Points on the hyperboloid (k = 1), attention-like weights.
	m, d, q := 5, 3, 2
	pts := newArray(eval(t, func(in []*Node) *Node { return ToFullCoordinates(in[0], ConstAs(in[0], 1)) },
		randomVectors(rng, m, d, 1)), m, d+1)
	w := make([]float64, q*m)
	for i := range w {
		w[i] = rng.Float64()
	}
	w[m] = 1 // second query: one-hot on point 0
	for j := 1; j < m; j++ {
		w[m+j] = 0
	}
	weights := newArray(w, q, m)
	got := newArray(eval(t, func(in []*Node) *Node { return LorentzCentroid(in[0], in[1]) }, weights, pts), q, d+1)
	for i := 0; i < q; i++ {
		sum := make([]float64, d+1)
		for j := 0; j < m; j++ {
			for k := range sum {
				sum[k] += w[i*m+j] * pts.row(j)[k]
			}
		}
		norm := math.Sqrt(math.Abs(minkowskiRef(sum, sum)))
		for k := range sum {
			assertRel(t, "LorentzCentroid", got.row(i)[k], sum[k]/norm, 1e-12)
		}
		assertClose(t, "centroid on the hyperboloid", minkowskiRef(got.row(i), got.row(i)), -1, 1e-12)
	}
	for k := 0; k <= d; k++ {
		assertRel(t, "one-hot centroid is the point", got.row(1)[k], pts.row(0)[k], 1e-12)
	}
	// nil weights: the mean.
	mean := eval(t, func(in []*Node) *Node { return LorentzCentroid(nil, in[0]) }, pts)
	wm := make([]float64, d+1)
	for j := 0; j < m; j++ {
		for k := range wm {
			wm[k] += pts.row(j)[k] / float64(m)
		}
	}
	nm := math.Sqrt(math.Abs(minkowskiRef(wm, wm)))
	for k := range wm {
		assertRel(t, "mean centroid", mean[k], wm[k]/nm, 1e-12)
	}
}

func TestFullCoordinateGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	u0 := withZeroTime(randomVectors(rng, 3, 3, 1))
	pts := newArray(eval(t, func(in []*Node) *Node { return ToFullCoordinates(in[0], ConstAs(in[0], 1)) },
		randomVectors(rng, 4, 3, 1)), 4, 4)
	weights := newArray([]float64{0.1, 0.5, 0.2, 0.2, 0.7, 0.1, 0.1, 0.1}, 2, 4)
	checkGradients(t, "MinkowskiInner", func(in []*Node) *Node { return MinkowskiInner(in[0], in[1]) }, []array{u0, u0})
	checkGradients(t, "ToFullCoordinates", func(in []*Node) *Node { return ToFullCoordinates(in[0], in[1]) },
		[]array{randomVectors(rng, 3, 3, 1), scalarArray(0.7)})
	checkGradients(t, "ExpMap0Full", func(in []*Node) *Node { return ExpMap0Full(in[0]) }, []array{u0})
	checkGradients(t, "LogMap0Full", func(in []*Node) *Node { return LogMap0Full(in[0]) }, []array{pts})
	checkGradients(t, "LorentzCentroid", func(in []*Node) *Node { return LorentzCentroid(in[0], in[1]) }, []array{weights, pts})
}

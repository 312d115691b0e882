package geom

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"

	. "github.com/gomlx/gomlx/core/graph"
)

// curvatures used by the tests (the learned range of HLFormer/MERU is [0.1, 10]).
var testCurvatures = []float64{0.1, 1, 2.5, 10}

func TestLorentzPointsLieOnTheHyperboloid(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := randomVectors(rng, 6, 5, 1.5)
	for _, c := range testCurvatures {
		// ⟨x, x⟩_L = −1/c, with x₀ = LorentzTime.
		inner := eval(t, func(in []*Node) *Node { return LorentzInner(in[0], in[0], in[1]) }, x, scalarArray(c))
		times := eval(t, func(in []*Node) *Node { return LorentzTime(in[0], in[1]) }, x, scalarArray(c))
		for i := range inner {
			assertClose(t, "⟨x,x⟩_L", inner[i], -1/c, 1e-12)
			xi := x.row(i)
			// Independent: −x₀² + ‖x‖² with x₀ from the definition.
			assertClose(t, "x₀", times[i], math.Sqrt(1/c+floats.Dot(xi, xi)), 1e-14)
			assertClose(t, "−x₀²+‖x‖²", -times[i]*times[i]+floats.Dot(xi, xi), -1/c, 1e-12)
		}
	}
}

func TestLorentzInnerAndDistanceMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := randomVectors(rng, 4, 3, 1)
	y := randomVectors(rng, 5, 3, 2)
	for _, c := range testCurvatures {
		pairInner := eval(t, func(in []*Node) *Node { return PairwiseLorentzInner(in[0], in[1], in[2]) }, x, y, scalarArray(c))
		pairDist := eval(t, func(in []*Node) *Node { return PairwiseLorentzDistance(in[0], in[1], in[2]) }, x, y, scalarArray(c))
		// Elementwise with broadcasting: x [4, 1, 3] against y [1, 5, 3].
		bcast := eval(t, func(in []*Node) *Node {
			return LorentzDistance(InsertAxes(in[0], 1), InsertAxes(in[1], 0), in[2])
		}, x, y, scalarArray(c))
		for i := 0; i < 4; i++ {
			for j := 0; j < 5; j++ {
				assertClose(t, "PairwiseLorentzInner", pairInner[i*5+j], lorentzInnerRef(x.row(i), y.row(j), c), 1e-12)
				want := lorentzDistRef(x.row(i), y.row(j), c)
				assertClose(t, "PairwiseLorentzDistance", pairDist[i*5+j], want, 1e-12)
				assertClose(t, "LorentzDistance (broadcast)", bcast[i*5+j], want, 1e-12)
			}
		}
	}
}

func TestExpLogMapIdentities(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	// Tangent vectors of norms 1e-9 … 3: inside MERU's sinh clamp for every test curvature.
	n, d := 40, 4
	u := randomVectors(rng, n, d, 1)
	for i := 0; i < n; i++ {
		scale := math.Pow(10, -9+float64(i)*9.4/float64(n)) / math.Sqrt(floats.Dot(u.row(i), u.row(i)))
		for j := range u.row(i) {
			u.row(i)[j] *= scale
		}
	}
	for _, c := range testCurvatures {
		if math.Sqrt(c)*3 > ExpMapMaxSinhArg {
			t.Fatalf("test norms exceed the exp-map clamp at c=%g", c)
		}
		back := eval(t, func(in []*Node) *Node { return LogMap0(ExpMap0(in[0], in[1]), in[1]) }, u, scalarArray(c))
		dist := eval(t, func(in []*Node) *Node {
			p := ExpMap0(in[0], in[1])
			return LorentzDistance(ZerosLike(p), p, in[1])
		}, u, scalarArray(c))
		mapped := eval(t, func(in []*Node) *Node { return ExpMap0(in[0], in[1]) }, u, scalarArray(c))
		for i := 0; i < n; i++ {
			ui := u.row(i)
			norm := math.Sqrt(floats.Dot(ui, ui))
			for j := range ui {
				assertRel(t, "LogMap0(ExpMap0(u))", back[i*d+j], ui[j], 1e-10)
				// Closed form: exp₀(u) = sinh(√c‖u‖)/(√c‖u‖)·u.
				r := math.Sqrt(c) * norm
				assertRel(t, "ExpMap0 closed form", mapped[i*d+j], math.Sinh(r)/r*ui[j], 1e-12)
			}
			// d(O, exp₀(u)) = ‖u‖; acosh near 1 amplifies rounding, so compare in absolute terms there.
			assertClose(t, "d(O, ExpMap0(u))", dist[i], norm, 1e-7)
			if norm > 1e-2 {
				assertRel(t, "d(O, ExpMap0(u)) relative", dist[i], norm, 1e-9)
			}
		}
	}
}

func TestLorentzGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	x := randomVectors(rng, 3, 4, 0.8)
	y := randomVectors(rng, 3, 4, 1.2)
	for _, c := range []float64{0.3, 2} {
		cc := scalarArray(c)
		checkGradients(t, "LorentzTime", func(in []*Node) *Node { return LorentzTime(in[0], in[1]) }, []array{x, cc})
		checkGradients(t, "LorentzInner", func(in []*Node) *Node { return LorentzInner(in[0], in[1], in[2]) }, []array{x, y, cc})
		checkGradients(t, "PairwiseLorentzInner", func(in []*Node) *Node { return PairwiseLorentzInner(in[0], in[1], in[2]) }, []array{x, y, cc})
		checkGradients(t, "ExpMap0", func(in []*Node) *Node { return ExpMap0(in[0], in[1]) }, []array{x, cc})
		checkGradients(t, "LogMap0", func(in []*Node) *Node { return LogMap0(in[0], in[1]) }, []array{y, cc})
		checkGradients(t, "LorentzDistance", func(in []*Node) *Node { return LorentzDistance(in[0], in[1], in[2]) }, []array{x, y, cc})
		checkGradients(t, "PairwiseLorentzDistance", func(in []*Node) *Node { return PairwiseLorentzDistance(in[0], in[1], in[2]) }, []array{x, y, cc})
	}
}

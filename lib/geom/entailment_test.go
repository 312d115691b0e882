package geom

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"

	. "github.com/gomlx/gomlx/core/graph"
)

// exteriorAngleRef is π − ∠Oxy from the hyperbolic law of cosines, with side lengths measured in units of
// the curvature radius (√c·d), computed from plain-Go distances.
func exteriorAngleRef(x, y []float64, c float64) float64 {
	origin := make([]float64, len(x))
	a := math.Sqrt(c) * lorentzDistRef(x, y, c)      // side x–y
	b := math.Sqrt(c) * lorentzDistRef(origin, x, c) // side O–x
	e := math.Sqrt(c) * lorentzDistRef(origin, y, c) // side O–y, opposite the angle at x
	cosAngle := (math.Cosh(a)*math.Cosh(b) - math.Cosh(e)) / (math.Sinh(a) * math.Sinh(b))
	return math.Pi - math.Acos(math.Max(-1, math.Min(1, cosAngle)))
}

func TestExteriorAngleObeysTheHyperbolicLawOfCosines(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	x := randomVectors(rng, 30, 3, 0.8)
	y := randomVectors(rng, 30, 3, 1.3)
	for _, c := range testCurvatures {
		got := eval(t, func(in []*Node) *Node { return ExteriorAngle(in[0], in[1], in[2]) }, x, y, scalarArray(c))
		for i := range got {
			// MERU's two eps terms (in the denominator and √max(γ²−1, eps)) shift the angle by ~1e-8.
			assertClose(t, "ExteriorAngle vs law of cosines", got[i], exteriorAngleRef(x.row(i), y.row(i), c), 1e-7)
		}
	}
	// Along a geodesic ray from the origin, y beyond x: the exterior angle is 0 (y is straight ahead);
	// y between O and x: π.
	xs := newArray([]float64{0.6, 0.8, 0, 0.6, 0.8, 0}, 2, 3)
	ys := newArray([]float64{1.2, 1.6, 0, 0.3, 0.4, 0}, 2, 3)
	pairs := eval(t, func(in []*Node) *Node { return ExteriorAngle(in[0], in[1], in[2]) }, xs, ys, scalarArray(1))
	assertClose(t, "EA straight ahead", pairs[0], 0, 2e-4)
	assertClose(t, "EA straight back", pairs[1], math.Pi, 2e-4)
}

func TestHalfApertureMatchesThePoincareCone(t *testing.T) {
	// Ganea et al.'s Poincaré-ball cone: HA = asin(K(1 − ‖p‖²)/‖p‖), p = x/(1 + x₀) (HLFormer App. A.1,
	// Eq. 22–24). For curvature −c, HA_c(x) = HA_1(√c·x).
	rng := rand.New(rand.NewPCG(19, 20))
	x := randomVectors(rng, 20, 4, 1.5)
	for _, c := range testCurvatures {
		got := eval(t, func(in []*Node) *Node { return HalfAperture(in[0], in[1], MinRadius) }, x, scalarArray(c))
		for i := range got {
			xs := append([]float64(nil), x.row(i)...)
			for j := range xs {
				xs[j] *= math.Sqrt(c)
			}
			t0 := math.Sqrt(1 + floats.Dot(xs, xs))
			pn := math.Sqrt(floats.Dot(xs, xs)) / (1 + t0)
			want := math.Asin(math.Min(1-MERUEps, MinRadius*(1-pn*pn)/pn))
			assertClose(t, "HalfAperture", got[i], want, 1e-7)
		}
	}
}

func TestEntailmentGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	x := randomVectors(rng, 4, 3, 1)
	y := randomVectors(rng, 4, 3, 1)
	for _, c := range []float64{0.5, 3} {
		cc := scalarArray(c)
		checkGradients(t, "HalfAperture", func(in []*Node) *Node { return HalfAperture(in[0], in[1], MinRadius) }, []array{x, cc})
		checkGradients(t, "ExteriorAngle", func(in []*Node) *Node { return ExteriorAngle(in[0], in[1], in[2]) }, []array{x, y, cc})
	}
}

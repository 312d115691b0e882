package geom

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"

	. "github.com/gomlx/gomlx/core/graph"
)

func poincareDistRef(p, q []float64, c float64) float64 {
	diff := make([]float64, len(p))
	for i := range p {
		diff[i] = p[i] - q[i]
	}
	arg := 1 + 2*c*floats.Dot(diff, diff)/((1-c*floats.Dot(p, p))*(1-c*floats.Dot(q, q)))
	return math.Acosh(arg) / math.Sqrt(c)
}

func TestPoincareBallIsIsometricToTheHyperboloid(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	x := randomVectors(rng, 6, 3, 1)
	y := randomVectors(rng, 6, 3, 2)
	for _, c := range testCurvatures {
		cc := scalarArray(c)
		p := newArray(eval(t, func(in []*Node) *Node { return LorentzToPoincare(in[0], in[1]) }, x, cc), 6, 3)
		q := newArray(eval(t, func(in []*Node) *Node { return LorentzToPoincare(in[0], in[1]) }, y, cc), 6, 3)
		back := eval(t, func(in []*Node) *Node { return PoincareToLorentz(LorentzToPoincare(in[0], in[1]), in[1]) }, x, cc)
		dist := eval(t, func(in []*Node) *Node { return PoincareDistance(in[0], in[1], in[2]) }, p, q, cc)
		pair := eval(t, func(in []*Node) *Node { return PairwisePoincareDistance(in[0], in[1], in[2]) }, p, q, cc)
		for i := 0; i < 6; i++ {
			if c*floats.Dot(p.row(i), p.row(i)) >= 1 {
				t.Fatalf("point outside the ball of radius 1/√c")
			}
			for j := range x.row(i) {
				assertRel(t, "PoincareToLorentz∘LorentzToPoincare", back[i*3+j], x.row(i)[j], 1e-12)
			}
			want := lorentzDistRef(x.row(i), y.row(i), c)
			assertRel(t, "Poincaré distance = Lorentz distance", dist[i], want, 1e-10)
			assertRel(t, "PoincareDistance vs formula", dist[i], poincareDistRef(p.row(i), q.row(i), c), 1e-12)
			for j := 0; j < 6; j++ {
				assertRel(t, "PairwisePoincareDistance", pair[i*6+j], poincareDistRef(p.row(i), q.row(j), c), 1e-9)
			}
		}
	}
}

func TestPoincareGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	p := randomVectors(rng, 3, 2, 0.3)
	q := randomVectors(rng, 3, 2, 0.3)
	cc := scalarArray(1.5)
	checkGradients(t, "PoincareDistance", func(in []*Node) *Node { return PoincareDistance(in[0], in[1], in[2]) }, []array{p, q, cc})
	checkGradients(t, "PairwisePoincareDistance", func(in []*Node) *Node { return PairwisePoincareDistance(in[0], in[1], in[2]) }, []array{p, q, cc})
	checkGradients(t, "LorentzToPoincare", func(in []*Node) *Node { return LorentzToPoincare(in[0], in[1]) }, []array{p, cc})
	checkGradients(t, "PoincareToLorentz", func(in []*Node) *Node { return PoincareToLorentz(in[0], in[1]) }, []array{p, cc})
}

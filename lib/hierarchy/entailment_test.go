package hierarchy

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data/wordnet"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// Independent references for the entailment cone at curvature −1, from the textbooks rather than
// from MERU's closed forms that lib/geom implements.

// refExteriorAngle is π − ∠Oxy from the hyperbolic law of cosines in the triangle O-x-y (space
// coordinates on the hyperboloid of curvature −1): cos∠x = (cosh a cosh b − cosh o)/(sinh a sinh b)
// with a = d(O, x), b = d(x, y), o = d(O, y).
func refExteriorAngle(x, y []float64) float64 {
	norm := func(v []float64) float64 {
		var s float64
		for _, a := range v {
			s += a * a
		}
		return math.Sqrt(s)
	}
	a, o, b := math.Asinh(norm(x)), math.Asinh(norm(y)), refLorentzDistance(x, y, 1)
	cos := (math.Cosh(a)*math.Cosh(b) - math.Cosh(o)) / (math.Sinh(a) * math.Sinh(b))
	return math.Pi - math.Acos(math.Max(-1, math.Min(1, cos)))
}

// refHalfAperture is Ganea et al. 2018's half-aperture in the Poincaré ball, ψ(p) =
// asin(K(1 − ‖p‖²)/‖p‖) with K = 0.1, at the ball image p = x/(1 + x₀) of the hyperboloid point x.
func refHalfAperture(x []float64) float64 {
	var xx float64
	for _, a := range x {
		xx += a * a
	}
	p := math.Sqrt(xx) / (1 + math.Sqrt(1+xx))
	return math.Asin(math.Min(1, 0.1*(1-p*p)/p))
}

// polar2 is the 2-D hyperboloid point at hyperbolic radius r and angle phi (space coordinates).
func polar2(r, phi float64) []float64 {
	return []float64{math.Sinh(r) * math.Cos(phi), math.Sinh(r) * math.Sin(phi)}
}

func TestEvaluateEntailmentOnHandPlacedPoints(t *testing.T) {
	// Node 0 is the parent at radius 2 on the x-axis, HA ≈ 0.055 rad; nodes 1–5 are children:
	// beyond it on a nearby ray (EA ≈ 0.0085, inside), at 0.6 rad (outside), between it and the
	// origin (EA near π), beside it at the same radius, and far out at a small angle (EA ≈ 0.015).
	pts := [][]float64{polar2(2, 0), polar2(3, 0.001), polar2(3, 0.6), polar2(1, 0.05), polar2(2, 0.3), polar2(5, 0.002)}
	e := &Embedding{Manifold: Lorentz, Dim: 2, Curvature: 1, Names: []string{"p", "a", "b", "c", "d", "f"}}
	for _, x := range pts {
		e.Coords = append(e.Coords, math.Sqrt(1+x[0]*x[0]+x[1]*x[1]), x[0], x[1])
	}
	var edges []wordnet.Edge
	var inside, violation float64
	for child := 1; child < len(pts); child++ {
		edges = append(edges, wordnet.Edge{Child: int32(child), Parent: 0})
		v := refExteriorAngle(pts[0], pts[child]) - refHalfAperture(pts[0])
		if v <= 0 {
			inside++
		} else {
			violation += v
		}
	}
	n := float64(len(edges))
	if inside != 2 { // a and f: the design of the points, checked before the code is
		t.Fatalf("the reference puts %g children inside, the points were placed for 2", inside)
	}
	got, err := EvaluateEntailment(backend.MustNew(), e, edges)
	if err != nil {
		t.Fatal(err)
	}
	if got.Pairs != len(edges) || got.Inside != inside/n || math.Abs(got.MeanViolation-violation/n) > 1e-6 {
		t.Errorf("got %+v, want inside %g, mean violation %.9f over %d pairs", got, inside/n, violation/n, len(edges))
	}
	if _, err := EvaluateEntailment(backend.MustNew(), &Embedding{Manifold: Poincare, Dim: 2, Names: e.Names}, edges); err == nil {
		t.Error("a Poincaré embedding was measured with the Lorentz cones")
	}
}

// refConeLoss is the weighted mean of max(0, EA − HA) over the batch's (child, parent) pairs.
func refConeLoss(rows [][]float64, triples [][]int32, weights []float64) float64 {
	var total, wsum float64
	for b, tr := range triples {
		child, parent := rows[tr[0]], rows[tr[1]]
		total += weights[b] * math.Max(0, refExteriorAngle(parent, child)-refHalfAperture(parent))
		wsum += weights[b]
	}
	return total / wsum
}

func TestConeTermAddsWeightedLPop(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const nRows, dim, weight = 6, 2, 0.7
	rows := make([][]float64, nRows)
	var flat []float64
	for i := range rows {
		rows[i] = polar2(0.5+2.5*rng.Float64(), 2*math.Pi*rng.Float64())
		flat = append(flat, rows[i]...)
	}
	triples := [][]int32{{0, 1, 2, 3, 4}, {2, 5, 0, 1, 3}, {4, 3, 5, 0, 1}}
	weights := []float64{1, 1, 0} // the last pair is padding
	var flatTriples []int32
	for _, tr := range triples {
		flatTriples = append(flatTriples, tr...)
	}
	run := func(w float64) (float64, []float64) {
		outs := graph.MustExecOnceN(backend.MustNew(), lossAndGradient(Lorentz, 1, w),
			tensors.FromFlatDataAndDimensions(flat, nRows, dim),
			tensors.FromFlatDataAndDimensions(flatTriples, len(triples), 5),
			tensors.FromFlatDataAndDimensions(weights, len(weights)))
		return tensors.MustCopyFlatData[float64](outs[0])[0], tensors.MustCopyFlatData[float64](outs[1])
	}
	base, _ := run(0)
	loss, grad := run(weight)
	cone := refConeLoss(rows, triples, weights)
	if cone == 0 {
		t.Fatal("the random points satisfy every cone: the test would not see the term")
	}
	// Tolerance: MERU's eps (geom.MERUEps = 1e-8) in the denominators of EA and HA.
	if want := refLoss(Lorentz, rows, triples, weights, 1) + weight*cone; math.Abs(loss-want) > 1e-7 || math.Abs(loss-base-weight*cone) > 1e-7 {
		t.Errorf("loss %.12g (without the cone term %.12g), reference %.12g", loss, base, want)
	}
	num := numericGradient(func(f []float64) float64 {
		r := make([][]float64, nRows)
		for i := range r {
			r[i] = f[i*dim : (i+1)*dim]
		}
		return refLoss(Lorentz, r, triples, weights, 1) + weight*refConeLoss(r, triples, weights)
	}, flat)
	for i := range grad {
		if math.Abs(grad[i]-num[i]) > 1e-6 {
			t.Errorf("∂loss/∂rows[%d][%d] = %.9f, finite differences %.9f", i/dim, i%dim, grad[i], num[i])
		}
	}
}

func TestHoldOutKeepsTheReductionAndSplitsTheRest(t *testing.T) {
	c := treeClosure(t, 3, 3) // 40 nodes, 102 pairs: 39 direct links and 9·1 + 27·2 = 63 implied pairs
	basic := c.Reduction()
	trainSet, held, err := HoldOut(c, 0.25, 9)
	if err != nil {
		t.Fatal(err)
	}
	implied := c.NumEdges() - len(basic)
	if want := int(math.Round(0.25 * float64(implied))); len(held) != want {
		t.Errorf("%d held-out pairs, want round(0.25 × %d) = %d", len(held), implied, want)
	}
	if trainSet.NumEdges()+len(held) != c.NumEdges() || !slices.Equal(trainSet.Nodes, c.Nodes) {
		t.Errorf("train %d + held %d ≠ %d edges, or the nodes changed", trainSet.NumEdges(), len(held), c.NumEdges())
	}
	for _, e := range basic {
		if !slices.Contains(trainSet.Edges, e) {
			t.Errorf("direct link %v was held out", e)
		}
	}
	for _, e := range held {
		if slices.Contains(trainSet.Edges, e) || !slices.Contains(c.Edges, e) {
			t.Errorf("held-out pair %v is in training or not in the closure", e)
		}
	}
	_, again, _ := HoldOut(c, 0.25, 9)
	if !slices.Equal(held, again) {
		t.Error("the same seed drew another split")
	}
	if _, _, err := HoldOut(c, 1, 9); err == nil {
		t.Error("holding out everything was accepted")
	}
}

// RandomMAP against brute force: every placement of a node's k parents among the n ranks is
// equally likely under a random ranking; average their AP.
func TestRandomMAPIsTheAverageOverAllRankings(t *testing.T) {
	c := treeClosure(t, 2, 2) // 7 nodes: n = 6 candidates, k = 1 or 2 parents
	n := c.NumNodes() - 1
	apOf := func(positive []bool) float64 {
		var hits, sum float64
		for r, p := range positive {
			if p {
				hits++
				sum += hits / float64(r+1)
			}
		}
		return sum / hits
	}
	var total float64
	var nodes int
	for _, k := range c.Ancestors() {
		if k == 0 {
			continue
		}
		var sum float64
		var count int
		for mask := 0; mask < 1<<n; mask++ {
			positive := make([]bool, n)
			bits := 0
			for r := range n {
				if mask&(1<<r) != 0 {
					positive[r] = true
					bits++
				}
			}
			if bits == k {
				sum += apOf(positive)
				count++
			}
		}
		total += sum / float64(count)
		nodes++
	}
	if got, want := RandomMAP(c), total/float64(nodes); math.Abs(got-want) > 1e-12 {
		t.Errorf("RandomMAP = %.15g, brute force %.15g", got, want)
	}
}

package hierarchy

import (
	"math"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
)

// A hand-placed Euclidean embedding of a path a → b → c (c is-a b is-a a) where every node sits
// closer to its ancestors than to anything else except in one known place.
func TestEvaluateOnHandPlacedPoints(t *testing.T) {
	tree := treeClosure(t, 2, 1) // n.1 → n, n.2 → n: 3 nodes, 2 edges; nodes sorted n, n.1, n.2
	e := &Embedding{Manifold: Euclidean, Dim: 1, Names: tree.Nodes, Coords: []float64{0, 1, -3}}
	r, err := Evaluate(backend.MustNew(), e, tree)
	if err != nil {
		t.Fatal(err)
	}
	// n.1: parent n at distance 1, non-parent n.2 at 16: rank 1, AP 1.
	// n.2: parent n at distance 9, non-parent n.1 at 16: rank 1, AP 1.
	if r.MeanRank != 1 || r.MAP != 1 || r.Nodes != 2 || r.Edges != 2 {
		t.Errorf("got %+v, want mean rank 1, MAP 1 over 2 nodes and 2 edges", r)
	}
	e.Coords = []float64{0, 1, 0.5} // now n.1 is closer to n.2 (0.25) than to its parent (1)
	r, err = Evaluate(backend.MustNew(), e, tree)
	if err != nil {
		t.Fatal(err)
	}
	// n.1: rank 2, AP 1/2. n.2: parent at 0.25, n.1 at 0.25 — a tie goes to the parent: rank 1.
	if r.MeanRank != 1.5 || r.MAP != 0.75 {
		t.Errorf("got %+v, want mean rank 1.5 and MAP 0.75", r)
	}
}

func TestEvaluateRejectsNonFiniteEmbeddings(t *testing.T) {
	tree := treeClosure(t, 2, 1)
	e := &Embedding{Manifold: Euclidean, Dim: 1, Names: tree.Nodes, Coords: []float64{0, math.NaN(), 1}}
	if _, err := Evaluate(backend.MustNew(), e, tree); err == nil {
		t.Error("a NaN coordinate gave a reconstruction score instead of an error")
	}
}

package hierarchy

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
)

// bruteForce ranks u's parents the slow way: sort every other node by distance and walk the list.
func bruteForce(dist []float64, u int, parents []int32) (ranks []int, ap float64) {
	isParent := map[int]bool{}
	for _, v := range parents {
		isParent[int(v)] = true
	}
	var order []int
	for w := range dist {
		if w != u {
			order = append(order, w)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return dist[order[a]] < dist[order[b]] })
	found, negatives := 0, 0
	for pos, w := range order {
		if !isParent[w] {
			negatives++
			continue
		}
		found++
		ranks = append(ranks, 1+negatives)
		ap += float64(found) / float64(pos+1)
	}
	return ranks, ap / float64(len(parents))
}

func TestRankParentsMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 50 {
		n := 5 + rng.IntN(40)
		dist := make([]float64, n)
		for i := range dist {
			dist[i] = rng.Float64()
		}
		u := rng.IntN(n)
		var parents []int32
		isParent := make([]bool, n)
		for _, w := range rng.Perm(n)[:1+rng.IntN(n-2)] {
			if w != u {
				parents = append(parents, int32(w))
				isParent[w] = true
			}
		}
		if len(parents) == 0 {
			continue
		}
		got, gotAP := rankParents(dist, u, parents, isParent)
		want, wantAP := bruteForce(dist, u, parents)
		if !slices.Equal(got, want) || math.Abs(gotAP-wantAP) > 1e-12 {
			t.Fatalf("trial %d: ranks %v AP %.6f, brute force %v AP %.6f", trial, got, gotAP, want, wantAP)
		}
	}
}

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

package hierarchy

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/geoalign/geoalign/lib/data/wordnet"
)

// maxTriesPerNegative bounds rejection sampling: at most 10·K draws per positive pair, as the
// official sampler (hype/graph_dataset.pyx, max_tries = 10 * nnegs).
const maxTriesPerNegative = 10

// adjacency answers "is (child, parent) in the closure" from the closure's sorted edge list.
type adjacency struct {
	offsets []int32 // parents of child u are parents[offsets[u]:offsets[u+1]], sorted
	parents []int32
}

func newAdjacency(c *wordnet.Closure) *adjacency {
	a := &adjacency{offsets: make([]int32, c.NumNodes()+1), parents: make([]int32, len(c.Edges))}
	for _, e := range c.Edges {
		a.offsets[e.Child+1]++
	}
	for i := 1; i < len(a.offsets); i++ {
		a.offsets[i] += a.offsets[i-1]
	}
	fill := slices.Clone(a.offsets[:len(a.offsets)-1])
	for _, e := range c.Edges {
		a.parents[fill[e.Child]] = e.Parent
		fill[e.Child]++
	}
	for u := range c.NumNodes() {
		slices.Sort(a.parents[a.offsets[u]:a.offsets[u+1]])
	}
	return a
}

func (a *adjacency) has(child, parent int32) bool {
	_, found := slices.BinarySearch(a.parents[a.offsets[child]:a.offsets[child+1]], parent)
	return found
}

// neighbours returns the parents of u (aliases internal storage).
func (a *adjacency) neighbours(u int32) []int32 { return a.parents[a.offsets[u]:a.offsets[u+1]] }

// negativeSampler draws, for a child u, K distinct nodes v' ≠ u with (u, v') not in the closure.
type negativeSampler struct {
	n   int
	adj *adjacency
	// cumulative[i] = Σ_{j ≤ i} count_j^dampening, count_j = how often j is a parent: the
	// burn-in distribution of the official code. Empty when dampening is 0 (uniform).
	cumulative []float64
}

func newNegativeSampler(c *wordnet.Closure, adj *adjacency, dampening float64) *negativeSampler {
	s := &negativeSampler{n: c.NumNodes(), adj: adj}
	if dampening > 0 {
		counts := make([]float64, s.n)
		for _, e := range c.Edges {
			counts[e.Parent]++
		}
		s.cumulative = make([]float64, s.n)
		total := 0.0
		for i, k := range counts {
			if k > 0 {
				total += math.Pow(k, dampening)
			}
			s.cumulative[i] = total
		}
	}
	return s
}

func (s *negativeSampler) draw(rng *rand.Rand, burnIn bool) int32 {
	if burnIn && len(s.cumulative) > 0 {
		x := rng.Float64() * s.cumulative[len(s.cumulative)-1]
		// The first i with cumulative[i] > x: nodes of weight 0 (never a parent) are never drawn.
		return int32(sort.Search(len(s.cumulative), func(i int) bool { return s.cumulative[i] > x }))
	}
	return int32(rng.IntN(s.n))
}

// sample writes K negatives for child u into out (len K). Like the official sampler it rejects
// u itself, true parents and repeats; if fewer than K distinct negatives turn up within the try
// budget it fills the rest by repeating drawn ones, and if none turn up at all it uses u itself
// (whose distance 0 to u then only adds a constant to the softmax denominator).
func (s *negativeSampler) sample(rng *rand.Rand, u int32, burnIn bool, out []int32) {
	k := len(out)
	got := 0
	for tries := 0; tries < maxTriesPerNegative*k && got < k; tries++ {
		v := s.draw(rng, burnIn)
		if v == u || s.adj.has(u, v) || slices.Contains(out[:got], v) {
			continue
		}
		out[got] = v
		got++
	}
	if got == 0 {
		out[0], got = u, 1
	}
	for i := got; i < k; i++ {
		out[i] = out[rng.IntN(got)]
	}
}

package hierarchy

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/geoalign/geoalign/lib/data/wordnet"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// Entailment measures how well an embedding respects a partial order in HLFormer's sense: the
// child of each pair inside the entailment cone of its parent (ConeViolation ≤ 0).
type Entailment struct {
	Inside        float64 // fraction of the pairs whose child lies inside the parent's cone
	MeanViolation float64 // mean over the pairs of max(0, EA − HA), radians: L_pop over the pairs
	Pairs         int
}

// EvaluateEntailment measures the pairs (child, parent) of edges on a Lorentz embedding, in a
// float64 graph (ConeViolation at the embedding's curvature).
func EvaluateEntailment(backend compute.Backend, e *Embedding, edges []wordnet.Edge) (Entailment, error) {
	if e.Manifold != Lorentz {
		return Entailment{}, fmt.Errorf("hierarchy: entailment cones need a lorentz embedding, got %s", e.Manifold)
	}
	if len(edges) == 0 {
		return Entailment{}, fmt.Errorf("hierarchy: no pairs to measure entailment on")
	}
	d := e.Dim
	parents, children := make([]float64, 0, len(edges)*d), make([]float64, 0, len(edges)*d)
	for _, ed := range edges {
		if int(ed.Child) >= e.Len() || int(ed.Parent) >= e.Len() || ed.Child < 0 || ed.Parent < 0 {
			return Entailment{}, fmt.Errorf("hierarchy: edge (%d, %d) outside the %d embedded nodes", ed.Child, ed.Parent, e.Len())
		}
		parents = append(parents, e.Space(int(ed.Parent))...)
		children = append(children, e.Space(int(ed.Child))...)
	}
	out, err := ExecOnce(backend, func(p, ch *Node) *Node {
		return ConeViolation(p, ch, Scalar(p.Graph(), dtypes.Float64, e.Curvature))
	}, tensors.FromFlatDataAndDimensions(parents, len(edges), d), tensors.FromFlatDataAndDimensions(children, len(edges), d))
	if err != nil {
		return Entailment{}, fmt.Errorf("hierarchy: cone violations: %w", err)
	}
	r := Entailment{Pairs: len(edges)}
	for k, v := range tensors.MustCopyFlatData[float64](out) {
		if math.IsNaN(v) {
			ed := edges[k]
			return Entailment{}, fmt.Errorf("hierarchy: cone violation of (%s, %s) is NaN: the embedding is not finite", e.Names[ed.Child], e.Names[ed.Parent])
		}
		if v <= 0 {
			r.Inside++
		} else {
			r.MeanViolation += v
		}
	}
	n := float64(len(edges))
	r.Inside /= n
	r.MeanViolation /= n
	return r, nil
}

// HoldOut splits a closure for transitive-closure completion (Ganea, Bécigneul & Hofmann 2018,
// "Hyperbolic Entailment Cones", §5): every edge of the transitive reduction (the direct is-a
// links) stays in training, and a fraction of the other edges, drawn with seed, is held out. The
// training closure has the same nodes, so an embedding of it is one of c; every held-out pair
// still follows from the training pairs by transitivity.
func HoldOut(c *wordnet.Closure, fraction float64, seed int64) (trainSet *wordnet.Closure, held []wordnet.Edge, err error) {
	if !(fraction > 0 && fraction < 1) {
		return nil, nil, fmt.Errorf("hierarchy: held-out fraction %g, want in (0, 1)", fraction)
	}
	basic := map[wordnet.Edge]bool{}
	for _, e := range c.Reduction() {
		basic[e] = true
	}
	var implied []int // indices into c.Edges of the non-basic edges
	for i, e := range c.Edges {
		if !basic[e] {
			implied = append(implied, i)
		}
	}
	k := int(math.Round(fraction * float64(len(implied))))
	if k == 0 {
		return nil, nil, fmt.Errorf("hierarchy: holding out %g of %d non-basic edges leaves none", fraction, len(implied))
	}
	rng := rand.New(rand.NewPCG(uint64(seed), seedStream))
	rng.Shuffle(len(implied), func(i, j int) { implied[i], implied[j] = implied[j], implied[i] })
	out := make([]bool, len(c.Edges))
	for _, i := range implied[:k] {
		out[i] = true
	}
	trainSet = &wordnet.Closure{Nodes: c.Nodes}
	for i, e := range c.Edges { // c.Edges is sorted, so both subsets are
		if out[i] {
			held = append(held, e)
		} else {
			trainSet.Edges = append(trainSet.Edges, e)
		}
	}
	return trainSet, held, nil
}

// RandomMAP is the reconstruction MAP of Evaluate expected under a uniformly random ranking: for a
// node with k parents among the n = N − 1 other nodes, the expected average precision is
//
//	E[AP] = (H_n + (k − 1)/(n − 1) · (n − H_n)) / n,
//
// H_n the n-th harmonic number (the rank r holds a parent with probability k/n, and then the other
// r − 1 ranks above it hold (r − 1)(k − 1)/(n − 1) parents on average); averaged over the nodes
// with a parent.
func RandomMAP(c *wordnet.Closure) float64 {
	n := c.NumNodes() - 1
	if n < 2 {
		return 1
	}
	var h float64
	for r := 1; r <= n; r++ {
		h += 1 / float64(r)
	}
	var total float64
	var nodes int
	for _, k := range c.Ancestors() {
		if k == 0 {
			continue
		}
		total += (h + float64(k-1)/float64(n-1)*(float64(n)-h)) / float64(n)
		nodes++
	}
	return total / float64(nodes)
}

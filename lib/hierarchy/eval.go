package hierarchy

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/geoalign/geoalign/lib/data/wordnet"
	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// Reconstruction holds the papers' reconstruction metrics of an embedding against its closure.
type Reconstruction struct {
	MeanRank float64 // mean over all evaluated edges (u, v) of the rank of v among u's non-parents
	MAP      float64 // mean over evaluated nodes u of the average precision of ranking u's parents
	Nodes    int     // nodes u evaluated (those with at least one parent)
	Edges    int     // edges ranked
}

// evalBlockElements bounds the size of one distance block, queries × table × dim, so that the
// broadcast distance graphs of the Poincaré and Euclidean models stay within ~32 MB of float64.
const evalBlockElements = 1 << 22

// Evaluate computes the reconstruction metrics over every node with at least one parent.
func Evaluate(backend compute.Backend, e *Embedding, c *wordnet.Closure) (Reconstruction, error) {
	adj := newAdjacency(c)
	var nodes []int32
	for u := range c.NumNodes() {
		if len(adj.neighbours(int32(u))) > 0 {
			nodes = append(nodes, int32(u))
		}
	}
	return evaluateNodes(backend, e, adj, nodes)
}

// EvaluateSample is Evaluate over the given nodes only (as the official reconstruction.py
// -sample option does for the 82,115-node noun closure).
func EvaluateSample(backend compute.Backend, e *Embedding, c *wordnet.Closure, nodes []int32) (Reconstruction, error) {
	return evaluateNodes(backend, e, newAdjacency(c), nodes)
}

// evaluateNodes follows facebookresearch/poincare-embeddings hype/graph.py eval_reconstruction:
// for each node u, the distances from u to every node (u itself excluded) are ranked; the rank of
// a parent v is 1 + the number of non-parents strictly closer to u than v (other parents do not
// count), and the average precision of u is sklearn's average_precision_score with the parents as
// positives, i.e. the mean over parents of (parents up to v)/(position of v). A non-parent at
// exactly the distance of a parent is ranked after it; ties have probability 0 for trained points.
//
// It does not go through lib/retrieval: that package ranks one ground-truth item per query among
// all items, while reconstruction ranks every parent of u among u's non-parents only (the other
// parents do not count) and needs the average precision over several positives.
func evaluateNodes(backend compute.Backend, e *Embedding, adj *adjacency, nodes []int32) (Reconstruction, error) {
	var r Reconstruction
	if len(nodes) == 0 {
		return r, fmt.Errorf("hierarchy: nothing to evaluate (no node has a parent)")
	}
	n, d := e.Len(), e.Dim
	q := max(1, min(len(nodes), evalBlockElements/(n*d)))
	exec := MustNewExec(backend, pairwiseDistance(e.Manifold, e.Curvature))
	space := e.SpaceMatrix()
	table := tensors.FromFlatDataAndDimensions(space, n, d)
	defer table.MustFinalizeAll()

	isParent := make([]bool, n)
	var rankSum, apSum float64
	for lo := 0; lo < len(nodes); lo += q {
		block := nodes[lo:min(lo+q, len(nodes))]
		queries := make([]float64, q*d) // padded to q rows: one compiled graph for every block
		for i, u := range block {
			copy(queries[i*d:(i+1)*d], space[int(u)*d:(int(u)+1)*d])
		}
		qt := tensors.FromFlatDataAndDimensions(queries, q, d)
		out, err := exec.Call(qt, table)
		qt.MustFinalizeAll()
		if err != nil {
			return r, fmt.Errorf("hierarchy: evaluation distances: %w", err)
		}
		dist := tensors.MustCopyFlatData[float64](out[0])
		out[0].MustFinalizeAll()
		for k, v := range dist[:len(block)*n] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return r, fmt.Errorf("hierarchy: distance from %s to %s is %v: the embedding is not finite",
					e.Names[block[k/n]], e.Names[k%n], v)
			}
		}
		for i, u := range block {
			row := dist[i*n : (i+1)*n]
			parents := adj.neighbours(u)
			for _, v := range parents {
				isParent[v] = true
			}
			ranks, ap := rankParents(row, int(u), parents, isParent)
			for _, v := range parents {
				isParent[v] = false
			}
			for _, k := range ranks {
				rankSum += float64(k)
			}
			apSum += ap
			r.Edges += len(ranks)
			r.Nodes++
		}
	}
	r.MeanRank = rankSum / float64(r.Edges)
	r.MAP = apSum / float64(r.Nodes)
	return r, nil
}

// rankParents ranks the parents of u given u's distances to every node. It returns each parent's
// rank (1 + non-parents strictly closer) and u's average precision. O(N log P) for P parents.
func rankParents(dist []float64, u int, parents []int32, isParent []bool) (ranks []int, ap float64) {
	pd := make([]float64, len(parents))
	for i, v := range parents {
		pd[i] = dist[v]
	}
	slices.Sort(pd)
	// before[j] counts the non-parents w with pd[j−1] ≤ d_w < pd[j], so the non-parents strictly
	// closer than the i-th parent are before[0] + … + before[i].
	before := make([]int, len(pd)+1)
	for w, dw := range dist {
		if w == u || isParent[w] {
			continue
		}
		j := sort.Search(len(pd), func(i int) bool { return pd[i] > dw })
		before[j]++
	}
	ranks = make([]int, len(pd))
	closer := 0
	for i := range pd {
		closer += before[i]
		ranks[i] = 1 + closer
		ap += float64(i+1) / float64(i+1+closer)
	}
	return ranks, ap / float64(len(pd))
}

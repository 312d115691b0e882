package hierarchy

import (
	"fmt"
	"math"

	"github.com/geoalign/geoalign/lib/data/wordnet"
	"github.com/geoalign/geoalign/lib/retrieval"
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
// positives. That is lib/retrieval's multi-positive protocol (PositiveRanks) on the negated
// distances with TieOptimistic: a non-parent at exactly the distance of a parent is ranked after it
// (ties have probability 0 for trained points).
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

	var acc retrieval.MultiPositiveAccumulator
	scores := make([]float64, n)
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
			for k, d := range dist[i*n : (i+1)*n] {
				scores[k] = -d // higher = better
			}
			if err := acc.Add(scores, adj.neighbours(u), int(u), retrieval.TieOptimistic); err != nil {
				return r, fmt.Errorf("hierarchy: ranking the parents of %s: %w", e.Names[u], err)
			}
		}
	}
	m, err := acc.Metrics()
	if err != nil {
		return r, err
	}
	return Reconstruction{MeanRank: m.MeanRank, MAP: m.MAP, Nodes: m.Queries, Edges: m.Positives}, nil
}

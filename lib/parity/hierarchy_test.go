package parity

import (
	"fmt"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/data/wordnet"
	"github.com/geoalign/geoalign/lib/hierarchy"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// hierarchyClosure is the transitive closure of a binary tree of depth 2 (7 nodes, 10 edges): one
// batch of 10 pairs, so that an epoch of hierarchy.Trainer is one step.
func hierarchyClosure(t *testing.T) *wordnet.Closure {
	t.Helper()
	var b strings.Builder
	for _, child := range []string{"n.1", "n.2"} {
		fmt.Fprintf(&b, "%s\tn\n", child)
		for _, leaf := range []string{".1", ".2"} {
			fmt.Fprintf(&b, "%s%s\t%s\n%s%s\tn\n", child, leaf, child, child, leaf)
		}
	}
	c, err := wordnet.ReadTSV(strings.NewReader(b.String()), "parity tree")
	if err != nil {
		t.Fatal(err)
	}
	if c.NumEdges() != 10 {
		t.Fatalf("closure has %d edges, want 10", c.NumEdges())
	}
	return c
}

// hierarchyConfig is the papers' setting (PaperConfig: burn-in at η/10 with dampened negatives,
// reprojection) on the 7-node tree: d = 3, 3 negatives, 3 one-step epochs, the given loss dtype.
// The initial points are drawn uniform in (−0.3, 0.3) instead of the papers' (−0.001, 0.001): see
// doc.go on the conditioning of Lorentz distances between nearly equal points.
func hierarchyConfig(m hierarchy.Manifold, coneWeight float64, dt dtypes.DType) hierarchy.Config {
	cfg := hierarchy.PaperConfig(m, 3)
	cfg.Epochs, cfg.BatchSize, cfg.Negatives = 3, 10, 3
	cfg.InitRange = 0.3
	cfg.ConeWeight = coneWeight
	cfg.DType = dt
	return cfg
}

// hierarchyTriples is a fixed batch of NegativeSamplingLoss over the 7 rows (by node index of the
// closure): child, parent, then 3 nodes that are not its ancestors; the last pair is padding
// (weight 0).
var (
	hierarchyTriples = [][]string{
		{"n.1", "n", "n.2", "n.2.1", "n.1.1"},
		{"n.1.1", "n.1", "n.2", "n.1.2", "n.2.2"},
		{"n.2.2", "n", "n.1", "n.2.1", "n.1.2"},
		{"n.2.1", "n.2", "n.1.1", "n.1", "n.2.2"},
	}
	hierarchyWeights = []float64{1, 1, 1, 0}
)

// hierarchyLossAndGradient runs on b the graph of the trainer's step (the loss of
// hierarchy.NegativeSamplingLoss, plus ConeWeight × hierarchy.ConeLoss, and its gradient with
// respect to the rows) on the space coordinates of every node of emb.
// TODO(contract): the trainer's own graph (lossAndGradient) is unexported; this rebuilds it from
// the exported losses.
func hierarchyLossAndGradient(b compute.Backend, cfg hierarchy.Config, c *wordnet.Closure, emb *hierarchy.Embedding) (float64, []float64, error) {
	index := c.Index()
	triples := make([]int32, 0, len(hierarchyTriples)*5)
	for _, row := range hierarchyTriples {
		for _, name := range row {
			triples = append(triples, index[name])
		}
	}
	n, d := emb.Len(), cfg.Dim
	rows := make([]float64, 0, n*d)
	for i := range n {
		rows = append(rows, emb.Space(i)...)
	}
	var rowsT, weightsT *tensors.Tensor
	if cfg.DType == dtypes.Float64 {
		rowsT = tensors.FromFlatDataAndDimensions(rows, n, d)
		weightsT = tensors.FromFlatDataAndDimensions(append([]float64(nil), hierarchyWeights...), len(hierarchyWeights))
	} else {
		rowsT = tensors.FromFlatDataAndDimensions(float32s(rows), n, d)
		weightsT = tensors.FromFlatDataAndDimensions(float32s(hierarchyWeights), len(hierarchyWeights))
	}
	exec, err := graph.NewExec(b, func(rows, triples, weights *graph.Node) (*graph.Node, *graph.Node) {
		curvature := graph.Scalar(rows.Graph(), rows.DType(), cfg.Curvature)
		loss := hierarchy.NegativeSamplingLoss(cfg.Manifold, rows, triples, weights, curvature)
		if cfg.ConeWeight > 0 {
			loss = graph.Add(loss, graph.MulScalar(hierarchy.ConeLoss(rows, triples, weights, curvature), cfg.ConeWeight))
		}
		return loss, graph.Gradient(loss, rows)[0]
	})
	if err != nil {
		return 0, nil, err
	}
	defer exec.Finalize()
	outs, err := exec.Exec(rowsT, tensors.FromFlatDataAndDimensions(triples, len(hierarchyTriples), 5), weightsT)
	if err != nil {
		return 0, nil, err
	}
	return flat64(outs[0])[0], flat64(outs[1]), nil
}

func float32s(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

func TestHierarchyBackendParity(t *testing.T) {
	for _, dt := range []dtypes.DType{dtypes.Float32, dtypes.Float64} {
		for _, v := range []struct {
			m    hierarchy.Manifold
			cone float64
		}{{hierarchy.Lorentz, 0}, {hierarchy.Lorentz, 0.1}, {hierarchy.Poincare, 0}, {hierarchy.Euclidean, 0}} {
			t.Run(fmt.Sprintf("%s/cone=%g/%s", v.m, v.cone, dt), func(t *testing.T) {
				testHierarchy(t, hierarchyConfig(v.m, v.cone, dt))
			})
		}
	}
}

func testHierarchy(t *testing.T, cfg hierarchy.Config) {
	goB, xlaB := backends(t)
	tol := toleranceOf(cfg.DType)
	c := hierarchyClosure(t)
	var tr pair[*hierarchy.Trainer]
	var err error
	if tr.Go, err = hierarchy.NewTrainer(goB, c, cfg); err != nil {
		t.Fatal(err)
	}
	if tr.XLA, err = hierarchy.NewTrainer(xlaB, c, cfg); err != nil {
		t.Fatal(err)
	}
	tr.Go.Quiet, tr.XLA.Quiet = true, true
	// The trainer initialises the table on the host (math/rand/v2 PCG from Config.Seed): both
	// start equal without a copy, which this checks.
	init := append([]float64(nil), tr.Go.Emb.Coords...)
	if d := maxDiff(init, tr.XLA.Emb.Coords); d != 0 {
		t.Fatalf("initial embeddings differ by %g", d)
	}

	// 1. Forward and backward on a fixed batch.
	var loss pair[float64]
	var grad pair[[]float64]
	if loss.Go, grad.Go, err = hierarchyLossAndGradient(goB, cfg, c, tr.Go.Emb); err != nil {
		t.Fatal(err)
	}
	if loss.XLA, grad.XLA, err = hierarchyLossAndGradient(xlaB, cfg, c, tr.XLA.Emb); err != nil {
		t.Fatal(err)
	}
	checkLoss(t, "loss", loss, tol.Loss)
	checkGradients(t, pair[map[string][]float64]{map[string][]float64{"rows": grad.Go}, map[string][]float64{"rows": grad.XLA}}, tol)

	// 2. Three Riemannian SGD steps of the trainer (one per epoch; negatives from its host sampler).
	// The table is float64 on the host whatever the loss dtype: its rounding slack is float64's.
	initW := map[string][]float64{"embedding": init}
	tol.Epsilon = float64Tolerance.Epsilon
	for step := 1; step <= 3; step++ {
		var s pair[hierarchy.EpochStats]
		if s.Go, err = tr.Go.RunEpoch(); err != nil {
			t.Fatal(err)
		}
		if s.XLA, err = tr.XLA.RunEpoch(); err != nil {
			t.Fatal(err)
		}
		checkLoss(t, "step loss", pair[float64]{s.Go.Loss, s.XLA.Loss}, tol.Loss)
		checkWeights(t, step, initW, pair[map[string][]float64]{map[string][]float64{"embedding": tr.Go.Emb.Coords}, map[string][]float64{"embedding": tr.XLA.Emb.Coords}}, tol)
	}
}

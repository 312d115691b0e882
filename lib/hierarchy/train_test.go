package hierarchy

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data/wordnet"
)

func TestNegativeSamplerRejectsParentsAndLeavesDuringBurnIn(t *testing.T) {
	tree := treeClosure(t, 3, 3)
	adj := newAdjacency(tree)
	isParentOfSomething := make([]bool, tree.NumNodes())
	for _, e := range tree.Edges {
		isParentOfSomething[e.Parent] = true
	}
	s := newNegativeSampler(tree, adj, 0.75)
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]int32, 5)
	for trial := range 2000 {
		u := int32(rng.IntN(tree.NumNodes()))
		burnIn := trial%2 == 0
		s.sample(rng, u, burnIn, out)
		for _, v := range out {
			if v == u && len(adj.neighbours(u)) < tree.NumNodes()-1 {
				t.Fatalf("negative of %s is itself", tree.Nodes[u])
			}
			if adj.has(u, v) {
				t.Fatalf("negative %s of %s is a true parent", tree.Nodes[v], tree.Nodes[u])
			}
			if burnIn && !isParentOfSomething[v] {
				t.Fatalf("burn-in drew the leaf %s, whose weight count^0.75 is 0", tree.Nodes[v])
			}
		}
	}
}

func TestHyperbolicModelsReconstructSmallTree(t *testing.T) {
	tree := treeClosure(t, 2, 4) // 31 nodes, 98 closure edges
	for _, m := range []Manifold{Lorentz, Poincare} {
		cfg := PaperConfig(m, 2)
		cfg.Epochs = 400
		tr, err := NewTrainer(backend.MustNew(), tree, cfg)
		if err != nil {
			t.Fatal(err)
		}
		tr.Quiet = true
		if err := tr.Train(); err != nil {
			t.Fatal(err)
		}
		r, err := Evaluate(backend.MustNew(), tr.Emb, tree)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %+v", m, r)
		if r.MAP < 0.9 || r.MeanRank > 1.3 {
			t.Errorf("%s d=2 on a binary tree of depth 4: %+v; want MAP ≥ 0.9 and mean rank ≤ 1.3", m, r)
		}
	}
}

// A run interrupted by a checkpoint and resumed ends bit for bit where the uninterrupted run ends.
func TestCheckpointResumesExactly(t *testing.T) {
	tree := treeClosure(t, 2, 3)
	cfg := PaperConfig(Lorentz, 3)
	cfg.Epochs, cfg.BurnInEpochs = 6, 2
	whole, err := NewTrainer(backend.MustNew(), tree, cfg)
	if err != nil {
		t.Fatal(err)
	}
	whole.Quiet = true
	if err := whole.Train(); err != nil {
		t.Fatal(err)
	}

	path := filepath.Join(t.TempDir(), "run.ckpt")
	first, _ := NewTrainer(backend.MustNew(), tree, cfg)
	first.Quiet = true
	first.Config.Epochs = 3
	first.CheckpointPath, first.CheckpointEvery = path, 3
	if err := first.Train(); err != nil {
		t.Fatal(err)
	}
	resumed, err := LoadCheckpoint(backend.MustNew(), tree, path)
	if err != nil {
		t.Fatal(err)
	}
	resumed.Quiet = true
	resumed.Config.Epochs = 6
	if err := resumed.Train(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(resumed.Emb.Coords, whole.Emb.Coords) {
		t.Error("resumed run differs from the uninterrupted one")
	}
	if len(resumed.History) != 6 || resumed.History[5].Loss != whole.History[5].Loss {
		t.Errorf("history: resumed %d epochs, last loss %v vs %v", len(resumed.History),
			resumed.History[len(resumed.History)-1].Loss, whole.History[5].Loss)
	}
	if _, err := LoadCheckpoint(backend.MustNew(), treeClosure(t, 3, 2), path); err == nil {
		t.Error("loading a checkpoint for another closure should fail")
	}
}

func TestConfigValidateNamesTheField(t *testing.T) {
	cfg := PaperConfig(Lorentz, 10)
	cfg.Curvature = -1
	if err := cfg.Validate(); err == nil {
		t.Error("negative curvature accepted")
	}
	cfg = PaperConfig("hyperbolic", 10)
	if err := cfg.Validate(); err == nil {
		t.Error("unknown manifold accepted")
	}
}

func ExampleTrainer() {
	// The is-a closure of a tiny taxonomy, as lib/data/wordnet would build it.
	c := &wordnet.Closure{
		Nodes: []string{"animal", "cat", "dog", "mammal"},
		Edges: []wordnet.Edge{{Child: 1, Parent: 0}, {Child: 1, Parent: 3}, {Child: 2, Parent: 0}, {Child: 2, Parent: 3}, {Child: 3, Parent: 0}},
	}
	cfg := PaperConfig(Lorentz, 2)
	cfg.Epochs, cfg.BatchSize, cfg.Negatives = 50, 2, 1
	tr, err := NewTrainer(backend.MustNew(), c, cfg)
	if err != nil {
		panic(err)
	}
	tr.Quiet = true
	if err := tr.Train(); err != nil {
		panic(err)
	}
	r, _ := Evaluate(backend.MustNew(), tr.Emb, c)
	fmt.Printf("mean rank %.1f, MAP %.1f over %d edges\n", r.MeanRank, r.MAP, r.Edges)
	// Output: mean rank 1.0, MAP 1.0 over 5 edges
}

func TestTrainingReportsDivergence(t *testing.T) {
	cfg := PaperConfig(Euclidean, 2)
	cfg.LearningRate, cfg.BurnInEpochs, cfg.Epochs = 1e12, 0, 20
	tr, err := NewTrainer(backend.MustNew(), treeClosure(t, 3, 2), cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr.Quiet = true
	if err := tr.Train(); err == nil || !strings.Contains(err.Error(), "diverged") {
		t.Errorf("Train with lr 1e12: error %v, want a divergence report", err)
	}
}

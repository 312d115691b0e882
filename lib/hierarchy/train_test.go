package hierarchy

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data/wordnet"
	"github.com/geoalign/geoalign/lib/models"
	"github.com/geoalign/geoalign/lib/runner"
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
		tr := quietTrainer(t, tree, cfg)
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

// TestResumeContinuesExactly: a run given a directory, stopped after 1 of 2 epochs (RunEpoch) and
// continued by a new Trainer on the same directory, ends bit for bit where the uninterrupted run
// ends — table, history (times aside) and the sampler's state; the directory's embedding reads back
// (LoadEmbedding); another closure or configuration is refused on the same directory.
func TestResumeContinuesExactly(t *testing.T) {
	tree := treeClosure(t, 2, 3)
	cfg := PaperConfig(Lorentz, 3)
	cfg.Epochs, cfg.BurnInEpochs = 2, 1
	whole := quietTrainer(t, tree, cfg)
	if err := whole.Train(); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	first, _ := NewTrainer(backend.MustNew(), tree, cfg)
	first.Quiet = true
	if err := first.Open(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := first.RunEpoch(); err != nil {
		t.Fatal(err)
	}
	resumed, _ := NewTrainer(backend.MustNew(), tree, cfg)
	resumed.Quiet = true
	if err := resumed.Open(dir); err != nil {
		t.Fatal(err)
	}
	if resumed.Epoch() != 1 || !slices.Equal(resumed.Emb.Coords, first.Emb.Coords) {
		t.Fatalf("reopened at epoch %d (want 1), table equal to the stopped run's: %v", resumed.Epoch(), slices.Equal(resumed.Emb.Coords, first.Emb.Coords))
	}
	if err := resumed.Train(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(resumed.Emb.Coords, whole.Emb.Coords) {
		t.Error("resumed run differs from the uninterrupted one")
	}
	strip := func(h []EpochStats) []EpochStats {
		out := slices.Clone(h)
		for i := range out {
			out[i].Seconds = 0
		}
		return out
	}
	if !slices.Equal(strip(resumed.History), strip(whole.History)) || len(whole.History) != 2 || !whole.History[0].BurnIn || whole.History[1].BurnIn {
		t.Errorf("history: resumed %+v, uninterrupted %+v", resumed.History, whole.History)
	}
	a, _ := resumed.pcg.MarshalBinary()
	b, _ := whole.pcg.MarshalBinary()
	if !slices.Equal(a, b) {
		t.Error("the sampler's generator differs after the resumed run")
	}
	emb, err := LoadEmbedding(dir, tree)
	if err != nil || !slices.Equal(emb.Coords, whole.Emb.Coords) || emb.Manifold != Lorentz || emb.Dim != 3 {
		t.Errorf("LoadEmbedding: %v", err)
	}
	if _, err := LoadEmbedding(dir, treeClosure(t, 3, 2)); err == nil {
		t.Error("LoadEmbedding accepted another closure")
	}
	other := cfg
	other.LearningRate /= 2
	o, _ := NewTrainer(backend.MustNew(), tree, other)
	o.Quiet = true
	if err := o.Open(dir); err == nil || !strings.Contains(err.Error(), "another configuration") {
		t.Errorf("a run directory reopened with another learning rate: %v", err)
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
	cfg = PaperConfig(Poincare, 10)
	cfg.ConeWeight = 0.1
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "ConeWeight") {
		t.Errorf("the Lorentz cone term on a Poincaré embedding: %v", err)
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
	tr := quietTrainer(t, treeClosure(t, 3, 2), cfg)
	if err := tr.Train(); err == nil || !strings.Contains(err.Error(), "diverged") {
		t.Errorf("Train with lr 1e12: error %v, want a divergence report", err)
	}
}

// quietTrainer is NewTrainer on the default backend without progress output; an error fails t.
func quietTrainer(t *testing.T, c *wordnet.Closure, cfg Config) *Trainer {
	t.Helper()
	tr, err := NewTrainer(backend.MustNew(), c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr.Quiet = true
	return tr
}

// TestRunThroughRunnerIsTheTrainersRun: a hierarchy run trained as a models.Run through
// lib/runner.Train (the run directory `geoalign train` writes) ends with the table, bit for bit,
// and the epoch statistics (times aside) of the Trainer trained alone in memory; its store held
// the Trainer's initial table before training; config.json names the model and its identity,
// curves.png is drawn without a validation panel; the same command again only reopens the
// finished run, and another configuration is refused naming config.json.
func TestRunThroughRunnerIsTheTrainersRun(t *testing.T) {
	tree := treeClosure(t, 2, 3)
	cfg := PaperConfig(Lorentz, 3)
	cfg.Epochs, cfg.BurnInEpochs = 3, 1
	alone := quietTrainer(t, tree, cfg)
	initial := slices.Clone(alone.Emb.Coords)
	if err := alone.Train(); err != nil {
		t.Fatal(err)
	}

	dir := filepath.Join(t.TempDir(), "run")
	train := func(c Config) (*Run, *runner.Result, error) {
		r, err := NewRun(backend.MustNew(), tree, c, RunEval{})
		if err != nil {
			t.Fatal(err)
		}
		raw, err := r.Identity()
		if err != nil {
			t.Fatal(err)
		}
		res, err := runner.Train(dir, runner.Spec{Model: ModelName, Config: raw}, r, models.Output{Quiet: true, Label: "tree"})
		return r, res, err
	}
	r, err := NewRun(backend.MustNew(), tree, cfg, RunEval{})
	if err != nil {
		t.Fatal(err)
	}
	if e, err := r.Embedding(); err != nil || !slices.Equal(e.Coords, initial) {
		t.Fatalf("the run's table before Train is not the Trainer's initial one (%v)", err)
	}
	r, res, err := train(cfg)
	if err != nil {
		t.Fatal(err)
	}
	strip := func(h []EpochStats) []EpochStats {
		out := slices.Clone(h)
		for i := range out {
			out[i].Seconds = 0
		}
		return out
	}
	e, err := r.Embedding()
	if err != nil || !slices.Equal(e.Coords, alone.Emb.Coords) {
		t.Fatalf("the table trained through runner.Train differs from the Trainer's (%v)", err)
	}
	if !slices.Equal(strip(r.History()), strip(alone.History)) || len(res.Records) != 3 || res.Records[2].Epoch != 3 || res.Warning != "" {
		t.Errorf("records: %+v (warning %q), history %+v; the Trainer's %+v", res.Records, res.Warning, r.History(), alone.History)
	}
	spec, err := runner.ReadSpec(dir)
	if err != nil {
		t.Fatal(err)
	}
	var id runDescription
	if err := json.Unmarshal(spec.Config, &id); err != nil || spec.Model != ModelName || id.Closure != closureFingerprint(tree) || id.Config.Epochs != 0 || id.Config.Dim != 3 {
		t.Errorf("config.json: model %q, config %s (%v)", spec.Model, spec.Config, err)
	}
	if _, err := os.Stat(filepath.Join(dir, runner.CurvesFile)); err != nil {
		t.Error(err)
	}
	// Once more on the finished run: only reopened, the same table and records.
	again, res2, err := train(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if e2, _ := again.Embedding(); !slices.Equal(e2.Coords, alone.Emb.Coords) || len(res2.Records) != 3 || res2.Records[2].Seconds != res.Records[2].Seconds {
		t.Errorf("the finished run reopened: %d records, table equal %v", len(res2.Records), slices.Equal(e2.Coords, alone.Emb.Coords))
	}
	other := cfg
	other.LearningRate /= 2
	if _, _, err := train(other); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, runner.ConfigFile)+": config: ") {
		t.Errorf("another learning rate on the run directory: %v", err)
	}
	// In memory: the same table, and the store holds it.
	mem, err := NewRun(backend.MustNew(), tree, cfg, RunEval{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Train(models.Output{Quiet: true}); err != nil {
		t.Fatal(err)
	}
	if e, err := mem.Embedding(); err != nil || !slices.Equal(e.Coords, alone.Emb.Coords) {
		t.Errorf("the table trained in memory differs from the Trainer's (%v)", err)
	}
}

// TestRunEvaluationCarriesItsOwnMetric: Evaluate's Metrics are the reconstruction of the training
// closure (the same numbers as Evaluate on the trained table); a hold-out run's test split is the
// full closure's reconstruction and the held-out pairs' entailment; there is no validation split
// and no score matrix.
func TestRunEvaluationCarriesItsOwnMetric(t *testing.T) {
	be := backend.MustNew()
	full := treeClosure(t, 2, 3) // 15 nodes; the implied (non-basic) edges can be held out
	trainSet, held, err := HoldOut(full, 0.5, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := PaperConfig(Lorentz, 2)
	cfg.Epochs, cfg.BurnInEpochs = 2, 1
	r, err := NewRun(be, trainSet, cfg, RunEval{Full: full, HeldOut: held})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Train(models.Output{Quiet: true}); err != nil {
		t.Fatal(err)
	}
	e, _ := r.Embedding()
	wantTrain, _ := Evaluate(be, e, trainSet)
	wantFull, _ := Evaluate(be, e, full)
	wantHeld, _ := EvaluateEntailment(be, e, held)
	ev, err := r.Evaluate("train", false)
	if err != nil {
		t.Fatal(err)
	}
	if m := ev.Metrics; m[MetricMAP] != wantTrain.MAP || m[MetricMeanRank] != wantTrain.MeanRank || int(m[MetricEdges]) != trainSet.NumEdges() || int(m[MetricPairs]) != trainSet.NumEdges() || ev.Rows != wantTrain.Nodes {
		t.Errorf("train: %v (rows %d), want the reconstruction %+v of %d pairs", m, ev.Rows, wantTrain, trainSet.NumEdges())
	}
	ev, err = r.Evaluate("test", false)
	if err != nil {
		t.Fatal(err)
	}
	if m := ev.Metrics; m[MetricMAP] != wantFull.MAP || int(m[MetricEdges]) != full.NumEdges() || m[MetricInside] != wantHeld.Inside || int(m[MetricPairs]) != len(held) {
		t.Errorf("test: %v, want the full closure's %+v and the held-out pairs' %+v", m, wantFull, wantHeld)
	}
	if _, err := r.Evaluate("val", false); err == nil {
		t.Error("a validation split was evaluated")
	}
	if _, err := r.Evaluate("train", true); err == nil {
		t.Error("a score matrix was kept")
	}
	if b, err := json.Marshal(ev.Metrics); err != nil || !strings.Contains(string(b), `"inside"`) {
		t.Errorf("metrics as JSON: %s (%v)", b, err)
	}
	// A plain run's test split is its training closure, without entailment.
	plain, err := NewRun(be, full, cfg, RunEval{})
	if err != nil {
		t.Fatal(err)
	}
	if s, err := plain.Score("test"); err != nil || s.Entailment != nil || s.Reconstruction.Edges != full.NumEdges() {
		t.Errorf("plain run's test split: %+v (%v)", s, err)
	}
	poincare := PaperConfig(Poincare, 2)
	if _, err := NewRun(be, trainSet, poincare, RunEval{Full: full, HeldOut: held}); err == nil {
		t.Error("a held-out split measured by cones on a Poincaré run")
	}
	if _, err := NewRun(be, trainSet, cfg, RunEval{Full: full}); err == nil {
		t.Error("RunEval.Full without HeldOut accepted")
	}
}

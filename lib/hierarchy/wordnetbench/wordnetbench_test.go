package wordnetbench

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data/wordnet"
	"github.com/geoalign/geoalign/lib/hierarchy"
	"github.com/geoalign/geoalign/lib/models"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/runner"
	"github.com/gomlx/compute/dtypes"
)

// smallClosure is cat, dog → mammal → animal.
func smallClosure() *wordnet.Closure {
	return &wordnet.Closure{
		Nodes: []string{"animal.n.01", "cat.n.01", "dog.n.01", "mammal.n.01"},
		Edges: []wordnet.Edge{{Child: 1, Parent: 0}, {Child: 1, Parent: 3}, {Child: 2, Parent: 0}, {Child: 2, Parent: 3}, {Child: 3, Parent: 0}},
	}
}

func TestTableAggregatesSeedsAndLabelsPaperColumns(t *testing.T) {
	cfg := func(m hierarchy.Manifold, seed int64) hierarchy.Config {
		c := hierarchy.PaperConfig(m, 10)
		c.Seed = seed
		return c
	}
	res := &Results{ClosureName: Mammal, Description: "test closure", Runs: []Run{
		{Config: cfg(hierarchy.Poincare, 1), Result: hierarchy.Reconstruction{MeanRank: 1, MAP: 0.9}, TrainSeconds: 10},
		{Config: cfg(hierarchy.Poincare, 2), Result: hierarchy.Reconstruction{MeanRank: 3, MAP: 0.7}, TrainSeconds: 20},
		{Config: cfg(hierarchy.Lorentz, 1), Result: hierarchy.Reconstruction{MeanRank: 2, MAP: 0.8}, TrainSeconds: 30},
	}}
	tbl := res.Table()
	if len(tbl.Rows) != 2 {
		t.Fatalf("%d rows, want one per model", len(tbl.Rows))
	}
	// Poincaré: mean rank 2 ± √2, MAP 0.8 ± 0.1414, 15 s; paper 4.02 / 0.851 (2017 Table 1, d = 10).
	want := []string{"poincare", "10", "float64", "300", "2.000 ± 1.414", "0.8000 ± 0.1414", "15.0", "4.02", "0.851"}
	if got := tbl.Rows[0]; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Poincaré row %q, want %q", got, want)
	}
	if got := tbl.Rows[1]; got[7] != "—" || got[8] != "—" {
		t.Errorf("Lorentz has no published noun number, got %q %q", got[7], got[8])
	}
	md, err := tbl.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"nouns MR (paper)", "Neither paper reports mammal-closure numbers", "Seeds: [1 2]"} {
		if !strings.Contains(md, s) {
			t.Errorf("Markdown lacks %q:\n%s", s, md)
		}
	}
	res.ClosureName = Noun
	if md, _ := res.Table().Markdown(); strings.Contains(md, "nouns MR") || !strings.Contains(md, "| MR (paper) |") {
		t.Errorf("on the noun closure the paper columns are plain MR/MAP (paper):\n%s", md)
	}
}

func TestRunAllAndFigures(t *testing.T) {
	c := smallClosure()
	opts := Options{
		Models: []hierarchy.Manifold{hierarchy.Lorentz}, Dims: []int{2}, DTypes: []dtypes.DType{dtypes.Float32},
		Seeds: []int64{1, 2}, Quiet: true, Log: &strings.Builder{},
		Adjust: func(c *hierarchy.Config) { c.Epochs, c.BatchSize, c.Negatives = 30, 2, 1 },
	}
	opts.CheckpointDir = t.TempDir()
	res, err := RunAll(backend.MustNew(), "small", c, "4-node test closure", opts)
	if err != nil {
		t.Fatal(err)
	}
	// Repeated on the same run directories, the finished runs are only re-evaluated: the same
	// embeddings, results and (recorded) training times.
	again, err := RunAll(backend.MustNew(), "small", c, "4-node test closure", opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range again.Runs {
		if !slices.Equal(r.Emb.Coords, res.Runs[i].Emb.Coords) || r.Result != res.Runs[i].Result || r.TrainSeconds != res.Runs[i].TrainSeconds {
			t.Errorf("run %d repeated: %+v, first %+v", i, r.Result, res.Runs[i].Result)
		}
	}
	if len(res.Runs) != 2 || res.Runs[1].Config.Seed != 2 || res.Runs[0].Config.DType != dtypes.Float32 {
		t.Fatalf("runs: %+v", res.Runs)
	}
	// Each run is a lib/runner run directory, as `geoalign train` writes it, whose embedding reads
	// back (notebook 14 draws its figures so).
	for _, r := range res.Runs {
		dir := RunDir(opts.CheckpointDir, "small", r.Config)
		if spec, err := runner.ReadSpec(dir); err != nil || spec.Model != hierarchy.ModelName {
			t.Errorf("run directory of seed %d: %v", r.Config.Seed, err)
		}
		if e, err := hierarchy.LoadEmbedding(dir, c); err != nil || !slices.Equal(e.Coords, r.Emb.Coords) {
			t.Errorf("embedding of seed %d read back from its run directory: %v", r.Config.Seed, err)
		}
	}
	if !strings.Contains(opts.Log.(*strings.Builder).String(), "small lorentz d=2 float32 seed 2: MR") {
		t.Errorf("log: %q", opts.Log.(*strings.Builder).String())
	}
	if _, err := DiskFigure(backend.MustNew(), res.Runs[0].Emb, c, []string{"mammal.n.01"}); err != nil {
		t.Error(err)
	}
	if _, err := TangentFigure(backend.MustNew(), res.Runs[0].Emb, c, nil); err != nil {
		t.Error(err)
	}
	if _, err := NormDepthFigure(backend.MustNew(), res.Runs[0].Emb, c); err != nil {
		t.Error(err)
	}
	euclid := &hierarchy.Embedding{Manifold: hierarchy.Euclidean, Dim: 2, Names: c.Nodes, Coords: make([]float64, 8)}
	if _, err := DiskFigure(backend.MustNew(), euclid, c, nil); err == nil {
		t.Error("a Euclidean embedding drawn in the Poincaré disk")
	}
}

// TestRunAllResumesADirectoryOfBefore: a run directory made before the benchmark trained through
// lib/runner (Trainer.Open's checkpoints, no config.json) is continued as it is — to the same
// table as a run trained at once, in memory — and not made a runner directory.
func TestRunAllResumesADirectoryOfBefore(t *testing.T) {
	c := smallClosure()
	opts := Options{Models: []hierarchy.Manifold{hierarchy.Lorentz}, Dims: []int{2}, DTypes: []dtypes.DType{dtypes.Float64},
		Seeds: []int64{1}, Quiet: true, Log: &strings.Builder{}, Adjust: func(c *hierarchy.Config) { c.Epochs, c.BurnInEpochs, c.BatchSize, c.Negatives = 4, 1, 2, 1 }}
	mem, err := RunAll(backend.MustNew(), "small", c, "test closure", opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.CheckpointDir = t.TempDir()
	cfg := opts.Config(hierarchy.Lorentz, 2, dtypes.Float64, 1)
	half := cfg
	half.Epochs = 2
	old, err := hierarchy.NewRun(backend.MustNew(), c, half, hierarchy.RunEval{})
	if err != nil {
		t.Fatal(err)
	}
	dir := RunDir(opts.CheckpointDir, "small", cfg)
	if _, err := old.Train(models.Output{Dir: dir, Quiet: true}); err != nil { // the layout of before: checkpoints only
		t.Fatal(err)
	}
	res, err := RunAll(backend.MustNew(), "small", c, "test closure", opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Runs[0]; !slices.Equal(got.Emb.Coords, mem.Runs[0].Emb.Coords) || got.Result != mem.Runs[0].Result || len(got.Loss) != 4 {
		t.Errorf("continued run: %+v after %d epochs, in memory %+v", got.Result, len(got.Loss), mem.Runs[0].Result)
	}
	if _, err := runner.ReadSpec(dir); err == nil {
		t.Error("a directory of before was given a config.json")
	}
}

func TestShortName(t *testing.T) {
	for in, want := range map[string]string{"dog.n.01": "dog", "even-toed_ungulate.n.01": "even-toed_ungulate", "a.b.n.12": "a.b", "plain": "plain"} {
		if got := shortName(in); got != want {
			t.Errorf("shortName(%q) = %q, want %q", in, got, want)
		}
	}
}

func ExamplePaperNouns() {
	mr, mapScore, ok := PaperNouns(hierarchy.Poincare, 10)
	fmt.Println(mr, mapScore, ok)
	_, _, ok = PaperNouns(hierarchy.Lorentz, 10)
	fmt.Println(ok)
	// Output:
	// 4.02 0.851 true
	// false
}

func TestRunConePairsTheArmsBySeed(t *testing.T) {
	c := smallClosure() // 3 direct links; cat → animal and dog → animal are implied
	base := ConeBase(2)
	base.Epochs, base.BurnInEpochs, base.BatchSize, base.Negatives = 3, 1, 2, 1
	var log strings.Builder
	opts := ConeOptions{Seeds: []int64{4, 7}, HeldOut: 0.5, SplitSeed: 1, ConeWeight: 0.1, Base: base,
		CheckpointDir: t.TempDir(), Quiet: true, Log: &log}
	res, err := RunCone(backend.MustNew(), "small", c, "4-node test closure", opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.TrainPairs != 4 || res.HeldOutPairs != 1 || len(res.Initial) != 2 {
		t.Fatalf("%d training and %d held-out pairs, %d floors; want 4, 1, 2", res.TrainPairs, res.HeldOutPairs, len(res.Initial))
	}
	for i, seed := range opts.Seeds {
		w, l := res.Without[i], res.With[i]
		if w.Seed != seed || l.Seed != seed || w.ConeWeight != 0 || l.ConeWeight != 0.1 {
			t.Errorf("seed %d: runs %+v and %+v", seed, w, l)
		}
		if w.Full.Edges != 5 || w.HeldOut.Pairs != 1 || w.Train.Pairs != 4 {
			t.Errorf("seed %d: measured %d full-closure edges, %d held-out and %d training pairs", seed, w.Full.Edges, w.HeldOut.Pairs, w.Train.Pairs)
		}
	}
	// The two arms differ only by the cone term: the same seed, other run directories.
	if w, l := res.Without[0].Full, res.With[0].Full; w == l {
		t.Errorf("the cone term changed nothing (%+v): both arms shared a run", w)
	}
	if !strings.Contains(log.String(), "small_holdout0.5_split1 cone λ=0.1 seed 7") {
		t.Errorf("log: %q", log.String())
	}
	md, err := res.Table(report.Provenance{Data: "test", Kind: report.Synthetic, Seeds: []int64{4, 7}}).Markdown()
	if err != nil || !strings.Contains(md, "with L_pop (λ = 0.1)") || !strings.Contains(md, "untrained (initial)") {
		t.Errorf("table (%v):\n%s", err, md)
	}
}

// TestConeCurveNote: the cone experiment's curve note reads every run's last epoch as kept and
// calls a loss that still drops by more than the seeds differ "still falling", one that moves less
// "flat"; its figure draws.
func TestConeCurveNote(t *testing.T) {
	r := &ConeResults{ClosureName: "toy", Options: ConeOptions{ConeWeight: 0.1}}
	r.Options.Base.Epochs, r.Options.Base.BurnInEpochs = 3, 1
	arm := func(losses ...[]float64) []ConeRun {
		var out []ConeRun
		for _, l := range losses {
			out = append(out, ConeRun{Loss: l})
		}
		return out
	}
	// Changes −0.5 in every run; last values 1.0, 1.1 in each arm → s.d. 0.0707: still falling.
	r.Without, r.With = arm([]float64{3, 1.5, 1.0}, []float64{3, 1.6, 1.1}), arm([]float64{3, 1.5, 1.0}, []float64{3, 1.6, 1.1})
	if got := r.CurveNote("c"); !strings.Contains(got, "keeps its last epoch (3)") || !strings.Contains(got, "still falling") {
		t.Errorf("CurveNote = %q, want the last epoch kept and a loss still falling", got)
	}
	// Changes −0.01; last values 1.0 and 2.0 → s.d. 0.707: flat.
	r.Without, r.With = arm([]float64{3, 1.01, 1.0}, []float64{3, 2.01, 2.0}), arm([]float64{3, 1.01, 1.0}, []float64{3, 2.01, 2.0})
	if got := r.CurveNote("c"); !strings.Contains(got, "flat at the end") {
		t.Errorf("CurveNote = %q, want flat", got)
	}
	if _, err := r.LearningCurve(); err != nil {
		t.Fatal(err)
	}
	r.With = arm(nil, nil) // an arm without any loss recorded is an error, not an empty figure
	if _, err := r.LearningCurve(); err == nil {
		t.Error("learning curve of an arm without losses: no error")
	}
}

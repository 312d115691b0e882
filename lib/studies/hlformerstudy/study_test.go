package hlformerstudy

import (
	"math"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/models/hlformer"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/gomlx/compute/dtypes"
)

// The study pipeline end to end on a tiny synthetic world: Table 1 (three variants × two seeds), the
// paired comparison, and Fig. 5's POP distances.
func TestStudyTable1AndFigure5(t *testing.T) {
	backend.SkipOnXLA(t, "trains Table 1's HLFormer variants: the study's logic is backend-independent and runs on the Go backend in every go test; "+
		"on XLA other initial weights (Philox, not PCG) give other numbers; the models on XLA: lib/parity, lib/cmd/geoalign's TestTrainEval*")
	setup, err := SyntheticSetup(3, 64)
	if err != nil {
		t.Fatal(err)
	}
	scale := Scale{Name: "test", Dim: 8, LorentzDim: 7, FrameLen: 16, QueryLen: 8, Epochs: 1, BatchVideos: 12, LearningRate: 1e-3}
	st := NewStudy(backend.MustNew(), setup, scale, []int64{0}, nil, "")
	tab, err := st.Table1()
	if err != nil {
		t.Fatal(err)
	}
	md, err := tab.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 3 || strings.Contains(md, "(paper)") || !strings.Contains(md, "synthetic") {
		t.Fatalf("table 1:\n%s", md)
	}
	// Selection on the validation split carved from train, the table from the test split.
	r := st.runs[HybridVariant.Name]
	ev, err := hlformer.NewEvaluator(st.Backend, &hlformer.Model{Config: r.Config}, r.Results[0].Store, dtypes.Float32)
	if err != nil {
		t.Fatal(err)
	}
	val, _, err := ev.Evaluate(setup.Val)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Results[0].Val().SumR; math.Abs(got-val.T2V.SumR) > 1e-9 || val.T2V.SumR == r.Results[0].Test.SumR {
		t.Fatalf("selected epoch's validation SumR %g; the kept model scores %g on the validation split, %g on test", got, val.T2V.SumR, r.Results[0].Test.SumR)
	}
	if r.Results[0].Test.Queries != setup.Test.NumQueries() || r.Results[0].Embeddings.Videos != setup.Test.NumVideos() {
		t.Fatalf("test metrics over %d queries and embeddings of %d videos; the test split has %d and %d",
			r.Results[0].Test.Queries, r.Results[0].Embeddings.Videos, setup.Test.NumQueries(), setup.Test.NumVideos())
	}
	seen := map[string]bool{}
	for _, id := range setup.Train.VideoIDs {
		seen[id] = true
	}
	for _, id := range append(append([]string(nil), setup.Val.VideoIDs...), setup.Test.VideoIDs...) {
		if seen[id] {
			t.Fatalf("video %s is in two of train, val and test", id)
		}
		seen[id] = true
	}
	cmp, err := st.Compare("hybrid beats Euclidean-only", "—", EuclideanOnlyVariant, HybridVariant)
	if err != nil {
		t.Fatal(err)
	}
	sec := &reproduce.Section{}
	t5, err := st.Figure5(sec, 10, 20)
	f5 := sec.Comparisons
	if err != nil {
		t.Fatal(err)
	}
	if len(t5.Rows) != 2 || len(f5) != 2 {
		t.Fatalf("fig 5 table rows %v, %d comparisons", t5.Rows, len(f5))
	}
	// One seed: every claim is inconclusive by rule (or gated), never holds or contradicted.
	claims, err := reproduce.Decide(append([]reproduce.Comparison{cmp}, f5...))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range claims {
		if c.N != 1 || (c.Outcome != reproduce.Inconclusive && c.Outcome != reproduce.NotTestable) {
			t.Fatalf("one-seed claim: n = %d, %s", c.N, c.Verdict())
		}
	}
	d, err := hlformer.POPDistances(st.Backend, &hlformer.Model{Config: st.runs[HybridVariant.Name].Config}, st.runs[HybridVariant.Name].Results[0].Store, setup.Test, 5, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Queries) != 7 || len(d.Clips) != 5*32 || d.C < hlformer.CurvatureMin || d.C > hlformer.CurvatureMax {
		t.Fatalf("distances: %d queries, %d clips, c = %g", len(d.Queries), len(d.Clips), d.C)
	}
	for _, x := range append(append(d.Queries, d.Clips...), d.Frames...) {
		if !(x >= 0) {
			t.Fatalf("distance %g", x)
		}
	}
}

// SumR's random-ranking level (the collapse gate's) against a direct count: with n videos and one
// relevant video per query, a random ranking puts it in the top K with probability min(K, n)/n.
func TestSumRRandom(t *testing.T) {
	for _, c := range []struct {
		n    int
		want float64
	}{{1334, 100 * 116.0 / 1334}, {50, 100 * (1 + 5 + 10 + 50) / 50.0}, {1, 400}} {
		if got := SumR.RandomLevel(0, c.n); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("n = %d: %v, want %v", c.n, got, c.want)
		}
	}
}

// The run cache keys every run on everything that determines it: the same inputs give the same
// directory, and a change of a training field (the scale's epochs), of the data or of the seed gives
// another (issue 18: editing a scale never re-evaluates old checkpoints).
func TestRunDirKeysOnScaleDataAndSeed(t *testing.T) {
	a, err := SyntheticSetup(3, 32)
	if err != nil {
		t.Fatal(err)
	}
	b, err := SyntheticSetup(4, 32)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	rc := CIScale.RunConfig(a.Train.Dim, a.Train.QueryDim)
	dir := func(s *Setup, tr hlformer.Training, seed int64) string {
		c := rc
		c.Training, c.Training.Seed = tr, seed
		d, err := runDir(root, s, c)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	tc := rc.Training
	base := dir(a, tc, 1)
	longer := tc
	longer.Epochs++
	if dir(a, tc, 1) != base {
		t.Fatal("the same run got two directories")
	}
	for name, d := range map[string]string{"epochs": dir(a, longer, 1), "data": dir(b, tc, 1), "seed": dir(a, tc, 2)} {
		if d == base {
			t.Errorf("a change of %s kept the run directory %s", name, d)
		}
	}
}

// A scale with a budget trains its claimed variants on every seed and the others (descriptive) on
// SweepSeeds only: Table 2 shows the descriptive row without declaring a claim for it, and Compare
// refuses a descriptive variant (its seeds could not pair with the full model's).
func TestDescriptiveVariantsAreNotClaims(t *testing.T) {
	backend.SkipOnXLA(t, "trains HLFormer variants for 2 seeds: the study's logic is backend-independent and runs on the Go backend in every go test; "+
		"on XLA other initial weights (Philox, not PCG) give other numbers; the models on XLA: lib/parity, lib/cmd/geoalign's TestTrainEval*")
	setup, err := SyntheticSetup(3, 64)
	if err != nil {
		t.Fatal(err)
	}
	scale := Scale{Name: "test", Dim: 8, LorentzDim: 7, FrameLen: 16, QueryLen: 8, Epochs: 1, BatchVideos: 12, LearningRate: 1e-3,
		Claims: []string{NoPOPVariant.Name}, SweepSeeds: 1, Ablations: []string{NoGazeVariant.Name}}
	st := NewStudy(backend.MustNew(), setup, scale, []int64{0, 1}, nil, "")
	sec := &reproduce.Section{}
	tab, err := st.Table2(sec)
	cmps := sec.Comparisons
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 2 || len(cmps) != 0 {
		t.Fatalf("table 2: %d rows, %d comparisons; want the full model and the descriptive w/o gaze row, no comparison", len(tab.Rows), len(cmps))
	}
	md, err := tab.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md, "(1 seed)") || !strings.Contains(md, "DESCRIPTIVE") {
		t.Fatalf("the descriptive row is not marked as such:\n%s", md)
	}
	if got := st.runs[NoGazeVariant.Name].Seeds; len(got) != 1 || got[0] != 0 {
		t.Fatalf("descriptive variant trained on seeds %v, want [0]", got)
	}
	if got := st.runs[HybridVariant.Name].Seeds; len(got) != 2 {
		t.Fatalf("full model trained on seeds %v, want [0 1]", got)
	}
	if _, err := st.Compare("c", "p", NoGazeVariant, HybridVariant); err == nil {
		t.Fatal("Compare accepted a descriptive variant")
	}
	if !st.Claimed(NoPOPVariant) || st.Claimed(NoGlanceVariant) {
		t.Fatal("Claimed does not follow Scale.Claims")
	}
}

package gramstudy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data/synth"
	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/gomlx/compute/dtypes"
)

// Metric.Random's closed form against an enumeration of every ranking of a small split: 6 items,
// class-level relevance with classes {0,1}, {2,3,4}, {5} (r = 2, 3, 1 relevant items per query).
func TestRandomRecallMatchesEnumeration(t *testing.T) {
	class := []int{0, 0, 1, 1, 1, 2}
	emb := &gram.Embeddings{N: 6, Relevant: func(a, b int) bool { return class[a] == class[b] }}
	perm := []int{0, 1, 2, 3, 4, 5}
	var permute func(k int, visit func())
	permute = func(k int, visit func()) {
		if k == len(perm) {
			visit()
			return
		}
		for i := k; i < len(perm); i++ {
			perm[k], perm[i] = perm[i], perm[k]
			permute(k+1, visit)
			perm[k], perm[i] = perm[i], perm[k]
		}
	}
	for _, k := range []int{1, 2, 3} {
		hits, total := 0, 0
		permute(0, func() {
			for q := range class {
				total++
				for _, item := range perm[:k] {
					if class[item] == class[q] {
						hits++
						break
					}
				}
			}
		})
		want := 100 * float64(hits) / float64(total)
		if got := (Metric{K: k}).Random(emb); math.Abs(got-want) > 1e-9 {
			t.Errorf("K = %d: closed form %v, enumeration %v", k, got, want)
		}
	}
	if got := (Metric{K: 1}).Random(&gram.Embeddings{N: 8}); math.Abs(got-12.5) > 1e-12 {
		t.Errorf("instance-level R@1 over 8 items: %v, want 12.5", got)
	}
}

// A saturated set (FSDD digits: every model at 100 % R@1 on every seed) is "not testable: ceiling"
// under the claim rule, never a verdict.
func TestCompareAtCeilingIsNotTestable(t *testing.T) {
	d := &gram.Dataset{Name: "FSDD digits (class-level)", Kind: "real"}
	runs := func(r1 ...float64) []*Run {
		var out []*Run
		for i, v := range r1 {
			var e gram.Evaluation
			e.T2V.Ks, e.T2V.Recall = []int{1}, []float64{v}
			out = append(out, &Run{Seed: int64(i + 1), Eval: e})
		}
		return out
	}
	full := runs(100, 100, 100, 100, 100)
	cs, err := reproduce.Decide([]reproduce.Comparison{Compare(PaperGRAM, "GRAM beats cosine", "—", d, T2VR1, "cosine", full, "GRAM", full)})
	if err != nil {
		t.Fatal(err)
	}
	if cs[0].Outcome != reproduce.NotTestable || cs[0].Gate != reproduce.GateCeiling {
		t.Fatalf("saturated comparison: %s", cs[0].Verdict())
	}
}

func TestVolumeIntuitionMatchesClosedForm(t *testing.T) {
	_, maxErr, err := VolumeIntuition(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if maxErr > 1e-9 {
		t.Fatalf("geom.GramVolume vs (1 − cos θ)√(1 + 2cos θ): max error %v", maxErr)
	}
}

// TestLowPrecisionSanity: float32 Lorentz and Poincaré distances at r = 1 are accurate to 1e-4 with
// no non-finite value; float16 Lorentz at r = 8 (sinh(8)² > 65504 if computed in float16) stays finite
// and accurate, because lib/geom computes low precision in float32.
func TestLowPrecisionSanity(t *testing.T) {
	_, cells, _ := LowPrecision(Options{})
	for _, k := range []string{"Lorentz/Float32/1", "Poincaré/Float32/1"} {
		c := cells[k]
		if c.Unsupported != "" || c.MedianRelErr > 1e-4 || c.NonFinite > 0 || c.NonFiniteGrad > 0 {
			t.Errorf("%s: %+v", k, c)
		}
	}
	if c := cells["Lorentz/"+dtypes.Float16.String()+"/8"]; c.Unsupported == "" && (c.NonFinite > 0 || c.NonFiniteGrad > 0 || c.MedianRelErr > 1e-3) {
		t.Errorf("float16 Lorentz at r = 8: %+v", c)
	}
}

// TestCacheReloadsFinishedRuns: a run trained with a CacheDir is reloaded, not retrained, by a second
// call (same evaluation, same history, and the warm-start stage's history too).
func TestCacheReloadsFinishedRuns(t *testing.T) {
	backend.SkipOnXLA(t, "trains GRAM and its warm start: the study's logic is backend-independent and runs on the Go backend in every go test; "+
		"on XLA other initial weights (Philox, not PCG) give other numbers; the models on XLA: lib/parity, lib/cmd/geoalign's TestTrainEval*")
	d := tinySet(t)
	o := Options{CacheDir: t.TempDir(), Seeds: []int64{1}}
	v := tiny(GRAMFromCosine)
	first, err := o.Train(d, v, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	second, err := o.Train(d, v, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if second.Trainer.GlobalStep() != first.Trainer.GlobalStep() || len(second.History) != len(first.History) ||
		len(second.WarmHistory) != len(first.WarmHistory) || len(first.WarmHistory) == 0 {
		t.Fatalf("reloaded run: steps %d vs %d, history %d vs %d, warm %d vs %d", second.Trainer.GlobalStep(), first.Trainer.GlobalStep(),
			len(second.History), len(first.History), len(second.WarmHistory), len(first.WarmHistory))
	}
	if second.Eval.T2V.R(1) != first.Eval.T2V.R(1) || second.Eval.V2T.MnR != first.Eval.V2T.MnR {
		t.Fatalf("reloaded evaluation %v differs from %v", second.Eval.T2V, first.Eval.T2V)
	}
	if h := second.History[len(second.History)-1]; h.Eval == nil || h.Eval.T2V.R(1) != first.History[len(first.History)-1].Eval.T2V.R(1) {
		t.Fatalf("per-epoch evaluations were not restored: %+v", h.Eval)
	}
}

// latentSet is a small real-valued set with k modalities of dimension 6: sample i has a latent
// z_i ~ N(0, I_4), and modality m sees z_i W_m plus Gaussian noise of s.d. noise (W_m fixed random).
func latentSet(seed uint64, k, nTrain, nTest int, noise float64) *gram.Dataset {
	rng := rand.New(rand.NewPCG(seed, 11))
	const latent, dim = 4, 6
	w := make([][]float64, k)
	for m := range w {
		w[m] = make([]float64, latent*dim)
		for i := range w[m] {
			w[m][i] = rng.NormFloat64()
		}
	}
	split := func(n int) *gram.Split {
		feats := make([][]float32, k)
		for i := 0; i < n; i++ {
			z := make([]float64, latent)
			for j := range z {
				z[j] = rng.NormFloat64()
			}
			for m := range feats {
				for c := 0; c < dim; c++ {
					x := noise * rng.NormFloat64()
					for j, zj := range z {
						x += zj * w[m][j*dim+c]
					}
					feats[m] = append(feats[m], float32(x))
				}
			}
		}
		dims := make([]int, k)
		for m := range dims {
			dims[m] = dim
		}
		s, err := gram.NewSplit(feats, dims, nil)
		if err != nil {
			panic(err)
		}
		return s
	}
	names := []string{"text", "image", "speech (fr)", "speech (es)", "speech (ru)"}[:k]
	d := &gram.Dataset{Name: "latent set (k modalities)", Kind: "synthetic", Modalities: names, Train: split(nTrain), Test: split(nTest)}
	d.Standardize()
	return d
}

// TestModalityCountClaimsCarryRuleOutcomes runs the k-modality study on a tiny 4-modality set with
// 5 seeds: one model per k = 2, 3, 4 embedding k modalities, the claims compare k + 1 with k on the
// same seeds, and the claim rule decides each of them (tested with n = 5, Δ the mean of the paired
// differences, or stopped by a gate), and the table and plot have one row / point per k.
func TestModalityCountClaimsCarryRuleOutcomes(t *testing.T) {
	backend.SkipOnXLA(t, "trains 3 GRAM models for 5 seeds and checks a table value of the Go backend's run (52.8): the study's logic is backend-independent and runs on the Go backend in every go test; "+
		"on XLA other initial weights (Philox, not PCG) give other numbers; the models on XLA: lib/parity, lib/cmd/geoalign's TestTrainEval*")
	d := latentSet(1, 4, 128, 40, 1.0)
	v := Variant{Label: "GRAM", Config: gram.DefaultConfig()}
	v.Config.Hidden, v.Config.ContraDim, v.Config.MatchHidden, v.Config.BatchSize, v.Config.LearningRate = 16, 8, 8, 16, 1e-2
	o := Options{Seeds: []int64{1, 2, 3, 4, 5}}
	km, cs, err := o.ModalityCount(Runs{}, d, v, 1)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(km.K) != "[2 3 4]" || len(cs) != 2 {
		t.Fatalf("k %v, %d claims", km.K, len(cs))
	}
	for i, k := range km.K {
		for _, r := range km.Runs[i] {
			if r.Test.NumModalities() != k {
				t.Fatalf("k = %d: a run embeds %d modalities", k, r.Test.NumModalities())
			}
		}
	}
	decided, err := reproduce.Decide(cs)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range decided {
		a, b := Values(km.Runs[i], T2DataR1), Values(km.Runs[i+1], T2DataR1)
		if fmt.Sprint(cs[i].A.Values) != fmt.Sprint(a) || fmt.Sprint(cs[i].B.Values) != fmt.Sprint(b) || cs[i].A.Name != fmt.Sprintf("k = %d", km.K[i]) {
			t.Fatalf("claim %d pairs %s %v with %s %v, want k = %d %v and k = %d %v", i, cs[i].A.Name, cs[i].A.Values, cs[i].B.Name, cs[i].B.Values, km.K[i], a, km.K[i+1], b)
		}
		t.Logf("%s", c)
		switch c.Outcome {
		case reproduce.Holds, reproduce.Contradicted, reproduce.Inconclusive:
			mean := 0.0
			for j := range a {
				mean += (b[j] - a[j]) / float64(len(a))
			}
			if c.N != 5 || c.Diff == nil || math.Abs(c.Diff.Mean-mean) > 1e-9 || c.P == nil {
				t.Errorf("claim %d: n %d, diff %+v (want mean %v), p %+v", i, c.N, c.Diff, mean, c.P)
			}
		case reproduce.NotTestable:
			if c.Gate == "" {
				t.Errorf("claim %d not testable without a gate: %s", i, c.Verdict())
			}
		default:
			t.Errorf("claim %d: outcome %q is not a comparison's", i, c.Outcome)
		}
	}
	tab := km.Table(o)
	if len(tab.Rows) != 3 || tab.Rows[0][len(tab.Rows[0])-1] != "52.8" || tab.Rows[2][1] != "text + image + speech (fr) + speech (es)" {
		t.Fatalf("table rows %v", tab.Rows)
	}
	if _, err := km.Plot(); err != nil {
		t.Fatal(err)
	}
	if _, err := TrainingCurves("k", []CurveRow{km.CurveRow()}); err != nil {
		t.Fatal(err)
	}
}

// TestNoClaimOnFewDistinctTexts: a test split with 10 distinct texts (FSDD digits' number words) is
// a sanity check with no claim; one with 100 distinct texts is claimable.
func TestNoClaimOnFewDistinctTexts(t *testing.T) {
	mk := func(distinct int) *gram.Dataset {
		const n = 200
		text, other := make([]float32, n), make([]float32, n)
		for i := range text {
			text[i], other[i] = float32(i%distinct), float32(i)
		}
		s, err := gram.NewSplit([][]float32{text, other}, []int{1, 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return &gram.Dataset{Name: "FSDD digits", Test: s}
	}
	if q := DistinctQueries(mk(10).Test); q != 10 {
		t.Fatalf("DistinctQueries = %d, want 10", q)
	}
	if why := NoClaimReason(mk(10), nil); !strings.Contains(why, "10 distinct texts") || !strings.Contains(why, "about 10 points") {
		t.Fatalf("reason %q", why)
	}
	if why := NoClaimReason(mk(MinDistinctQueries), nil); why != "" {
		t.Fatalf("%d distinct texts: %q", MinDistinctQueries, why)
	}
}

// Suite.Section finds a section by name in either paper, so the names must be unique across both;
// an unknown name is an error that lists them.
func TestSuiteSectionNames(t *testing.T) {
	s := &Suite{Sets: make([]*gram.Dataset, 3), Runs: Runs{}}
	seen := map[string]string{}
	for _, paper := range []string{"gram", "hypergram"} {
		names := reproduce.Names(s.Sections(paper))
		if len(names) == 0 {
			t.Fatalf("%s: no sections", paper)
		}
		for _, n := range names {
			if p, ok := seen[n]; ok {
				t.Errorf("section %q is in both %s and %s", n, p, paper)
			}
			seen[n] = paper
		}
	}
	_, err := s.Section("table9")
	if err == nil || !strings.Contains(err.Error(), "table9") || !strings.Contains(err.Error(), "geometries") {
		t.Errorf("unknown section: err = %v, want one naming it and the sections", err)
	}
}

// A progress bar names a modality subset by its modalities (the short name alone cuts them off).
func TestBarNameKeepsTheSubset(t *testing.T) {
	for name, want := range map[string]string{
		"Tux Paint stamps [text–image (k = 2)]":                                                            "Tux Paint stamps [text–image (k = 2)]",
		"Tux Paint multilingual (speech fr, es, ru) [k = 3]":                                               "Tux Paint multilingual [k = 3]",
		"synthetic tri-modal (depth 3, branching 4, richness 0, gap 1)":                                    "synthetic tri-modal",
		"synthetic tri-modal (depth 3, noise [0.3 0.3 0.3], uninformative audio 0.3)":                      "synthetic tri-modal",
		"synthetic tri-modal (depth 3, noise [0.3 0.3 0.3], uninformative audio 0.3) [text–image (k = 2)]": "synthetic tri-modal [text–image (k = 2)]",
	} {
		if got := barName(&gram.Dataset{Name: name}); got != want {
			t.Errorf("barName(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestTrainIsTheModelsRun: a variant trained through the study (gram.NewRun, Run.Train into a run
// directory, the model reopened from it) has the same weights, the same history and the same test
// evaluation, bit for bit, as the same configuration and seed trained by the model's own trainer in
// memory; with a run cache, a second call reloads the run instead of training it again.
func TestTrainIsTheModelsRun(t *testing.T) {
	backend.SkipOnXLA(t, "trains GRAM twice on the Go backend; the study's logic is backend-independent")
	d := tinySet(t)
	v := tiny(GRAM)
	o := Options{FixedEpochs: 3, CacheDir: t.TempDir()}
	got, err := o.Train(d, v, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := v.Config
	cfg.Epochs, cfg.Seed, cfg.EvalEvery, cfg.Quiet = 3, 4, 1, true
	ref, err := gram.NewTrainer(backend.MustNew(), d, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := ref.Train(); err != nil {
		t.Fatal(err)
	}
	if len(got.History) != 3 || got.History[0].Epoch != 1 || got.History[2].Epoch != 3 {
		t.Fatalf("history of %d epochs, first %d: want epochs 1…3", len(got.History), got.History[0].Epoch)
	}
	for i, h := range got.History {
		r := ref.History[i]
		if h.Loss != r.Loss || h.Temperature != r.Temperature || h.Best != r.Best || h.Eval == nil || r.Eval == nil || !reflect.DeepEqual(*h.Eval, *r.Eval) {
			t.Errorf("epoch %d: study loss %v τ %v best %t, trainer loss %v τ %v best %t", h.Epoch, h.Loss, h.Temperature, h.Best, r.Loss, r.Temperature, r.Best)
		}
	}
	for v := range ref.Store.IterVariables() {
		if !strings.HasPrefix(v.Path(), "/encoder_") && !strings.HasPrefix(v.Path(), "/contra_head_") {
			continue
		}
		w := got.Trainer.Store.GetVariable(v.Path())
		if w == nil {
			t.Fatalf("%s missing from the study's model", v.Path())
		}
		a, b := fmt.Sprint(v.MustValue().Value()), fmt.Sprint(w.MustValue().Value())
		if a != b {
			t.Errorf("%s differs between the study's model and the trainer's", v.Path())
		}
	}
	want, err := ref.Evaluate(d.Test)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Eval, want) {
		t.Errorf("test evaluation %v, trainer's %v", got.Eval.T2V, want.T2V)
	}
	again, err := o.Train(d, v, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	if again.Trainer.GlobalStep() != got.Trainer.GlobalStep() || !reflect.DeepEqual(again.Eval, got.Eval) || len(again.History) != 3 {
		t.Errorf("reloaded run: step %d eval %v, first %d %v", again.Trainer.GlobalStep(), again.Eval.T2V, got.Trainer.GlobalStep(), got.Eval.T2V)
	}
}

// TestWarmStartIsInitFrom: GRAM's cosine → volume recipe through the study (two runs in run
// directories, the second warm-started from the first: models.WarmStarter) has the same histories
// and test evaluation, bit for bit, as the two stages trained by the model's own trainers and
// Trainer.InitFrom in memory (the study's path before the contract had a warm start).
func TestWarmStartIsInitFrom(t *testing.T) {
	backend.SkipOnXLA(t, "trains GRAM's two stages twice on the Go backend; the study's logic is backend-independent")
	d := tinySet(t)
	v := tiny(GRAMFromCosine)
	warm := *v.WarmStart
	got, err := Options{FixedEpochs: 4}.Train(d, v, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	stage := func(cfg gram.Config, epochs int) *gram.Trainer {
		cfg.Epochs, cfg.Seed, cfg.EvalEvery, cfg.Quiet = epochs, 3, 1, true
		tr, err := gram.NewTrainer(backend.MustNew(), d, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	first, second := stage(warm, 2), stage(v.Config, 2)
	if err := first.Train(); err != nil {
		t.Fatal(err)
	}
	if err := second.InitFrom(first); err != nil {
		t.Fatal(err)
	}
	if err := second.Train(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want []gram.EpochStats
	}{{"warm stage", got.WarmHistory, first.History}, {"volume stage", got.History, second.History}} {
		if len(c.got) != 2 || len(c.want) != 2 {
			t.Fatalf("%s: %d and %d epochs, want 2", c.name, len(c.got), len(c.want))
		}
		for i := range c.got {
			g, w := c.got[i], c.want[i]
			if g.Epoch != w.Epoch || g.Loss != w.Loss || g.Temperature != w.Temperature || !reflect.DeepEqual(g.Eval, w.Eval) {
				t.Errorf("%s, epoch %d: study loss %v τ %v, trainers' loss %v τ %v", c.name, g.Epoch, g.Loss, g.Temperature, w.Loss, w.Temperature)
			}
		}
	}
	want, err := second.Evaluate(d.Test)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Eval, want) {
		t.Errorf("test evaluation %v, trainers' %v", got.Eval.T2V, want.T2V)
	}
}

// tinySet is the small synthetic set the training tests use: 200 training and 60 test tuples of
// three 8-d modalities.
func tinySet(t *testing.T) *gram.Dataset {
	t.Helper()
	d, err := gram.SyntheticTriModal(synth.TriModalConfig{Seed: 2, Depth: 2, Branching: 3, LatentDim: 8, LevelDecay: 0.6,
		Dims: [3]int{8, 8, 8}, N: 260, Noise: [3]float64{0.1, 0.1, 0.1}}, 60)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// tiny is v with small layers (Hidden 16, ContraDim and MatchHidden 8), its warm start's too.
func tiny(v Variant) Variant {
	small := func(c gram.Config) gram.Config {
		c.Hidden, c.ContraDim, c.MatchHidden = 16, 8, 8
		return c
	}
	v.Config = small(v.Config)
	if v.WarmStart != nil {
		v.WarmStart = new(small(*v.WarmStart))
	}
	return v
}

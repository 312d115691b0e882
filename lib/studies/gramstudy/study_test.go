package gramstudy

import (
	"math"
	"testing"

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
	if r := Pearson([]float64{1, 2, 3, 4}, []float64{2, 4, 6, 8}); math.Abs(r-1) > 1e-12 {
		t.Errorf("Pearson of a line = %v", r)
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
	_, cells, _, err := LowPrecision(Options{})
	if err != nil {
		t.Fatal(err)
	}
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
	d, err := gram.SyntheticTriModal(synth.TriModalConfig{Seed: 2, Depth: 2, Branching: 3, LatentDim: 8, LevelDecay: 0.6,
		Dims: [3]int{8, 8, 8}, N: 260, Noise: [3]float64{0.1, 0.1, 0.1}}, 60)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{CacheDir: t.TempDir(), Seeds: []int64{1}}
	v := GRAMFromCosine
	v.Config.Hidden, v.Config.ContraDim, v.Config.MatchHidden = 16, 8, 8
	warm := *v.WarmStart
	warm.Hidden, warm.ContraDim, warm.MatchHidden = 16, 8, 8
	v.WarmStart = &warm
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

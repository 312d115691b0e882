package gramstudy

import (
	"math"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/data/synth"
	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/gomlx/compute/dtypes"
)

func TestCompareVerdicts(t *testing.T) {
	if v := Compare("a > b", "a", []float64{10, 11, 12}, "b", []float64{5, 6, 7.5}); !v.Holds || !strings.HasPrefix(v.Statement, "**holds**") {
		t.Errorf("clear improvement: %+v", v)
	}
	if v := Compare("a > b", "a", []float64{1, 2, 3}, "b", []float64{5, 6, 7}); v.Holds || !v.Reversed {
		t.Errorf("clear regression: %+v", v)
	}
	// Paired differences +1, −1, +0.5: mean 1/6, far within two standard errors.
	if v := Compare("a > b", "a", []float64{2, 1, 1.5}, "b", []float64{1, 2, 1}); v.Holds || v.Reversed || !strings.Contains(v.Statement, "noise") {
		t.Errorf("noise: %+v", v)
	}
	if r := Pearson([]float64{1, 2, 3, 4}, []float64{2, 4, 6, 8}); math.Abs(r-1) > 1e-12 {
		t.Errorf("Pearson of a line = %v", r)
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
// no non-finite value; float16 Lorentz overflows (sinh(8)² > 65504) at r = 8.
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
	if c := cells["Lorentz/"+dtypes.Float16.String()+"/8"]; c.Unsupported == "" && c.NonFinite == 0 {
		t.Errorf("float16 Lorentz at r = 8 should overflow: %+v", c)
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

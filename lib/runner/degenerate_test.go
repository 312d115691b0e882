package runner

import (
	"math"
	"path/filepath"
	"testing"
)

func TestRandomSumR(t *testing.T) {
	// 20 items, 20 queries, R@1/5/10: 100·(1 + 5 + 10)/20 = 80, and Σ 100·√(p(1 − p)/20) for
	// p = 1/20, 5/20, 10/20 = 25.736195425421972 (Python, math.sqrt).
	mean, sd := randomSumR([]int{1, 5, 10}, 20, 20)
	if math.Abs(mean-80) > 1e-12 || math.Abs(sd-25.736195425421972) > 1e-12 {
		t.Errorf("randomSumR = %v ± %v, want 80 ± 25.736195425421972", mean, sd)
	}
}

// TestCurvesWithoutValidation: histories without any validation (a run whose metric is its own,
// lib/hierarchy) draw the loss alone instead of failing on an empty validation curve, and are not
// validated; one record with a validation makes them so.
func TestCurvesWithoutValidation(t *testing.T) {
	h := []Epoch{{Epoch: 1, Loss: 2}, {Epoch: 2, Loss: 1.5}}
	if validated(h, h) {
		t.Error("histories without validation read as validated")
	}
	if err := WriteCurves(filepath.Join(t.TempDir(), CurvesFile), "toy", h, h); err != nil {
		t.Errorf("curves without validation: %v", err)
	}
	if !validated(h, []Epoch{{Epoch: 1, Loss: 1, Val: map[string]float64{"x": 1}}}) {
		t.Error("a validation record not seen")
	}
}

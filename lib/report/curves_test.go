package report

import (
	"math"
	"strings"
	"testing"
)

func TestLearningCurves(t *testing.T) {
	// Two runs of 3 and 2 epochs: epoch 1 {1, 3} → mean 2, s.e. √2/√2 = 1; epoch 2 {2, 4} → 3 ± 1;
	// epoch 3 {3} → 3 with no bar (by hand).
	mean, se := epochMeans([][]float64{{1, 2, 3}, {3, 4}})
	want, wantSE := []float64{2, 3, 3}, []float64{1, 1, 0}
	if len(mean) != 3 {
		t.Fatalf("epochMeans: %d epochs, want 3", len(mean))
	}
	for e := range want {
		if math.Abs(mean[e]-want[e]) > 1e-12 || math.Abs(se[e]-wantSE[e]) > 1e-12 {
			t.Errorf("epoch %d: %g ± %g, want %g ± %g", e+1, mean[e], se[e], want[e], wantSE[e])
		}
	}
	p, err := LearningCurves("loss", "train loss", Curve{Label: "HLFormer", PerRun: [][]float64{{1, 2, 3}, {3, 4}}},
		Curve{Label: "Euclidean-only", PerRun: [][]float64{{2, 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if f, err := Render(p, 0, 0); err != nil || len(f.PNG) == 0 {
		t.Errorf("Render: %v", err)
	}
	if _, err := LearningCurves("loss", "train loss", Curve{Label: "empty"}); err == nil || !strings.Contains(err.Error(), `"empty"`) {
		t.Errorf("a curve without values: err = %v", err)
	}
}

package gramstudy

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/geoalign/geoalign/lib/retrieval"
)

// history builds a one-stage history with the given validation SumRs and training losses, Best
// marking every new maximum (strictly higher), as lib/train's loop does, and α per epoch if given.
func history(sumR, loss []float64, alpha ...float64) []gram.EpochStats {
	h := make([]gram.EpochStats, len(sumR))
	best := math.Inf(-1)
	for i, v := range sumR {
		h[i] = gram.EpochStats{Epoch: i + 1, Loss: loss[i], Validation: &gram.Evaluation{T2V: retrieval.Metrics{SumR: v}}, Best: v > best}
		best = max(best, v)
		if i < len(alpha) {
			h[i].Alpha = alpha[i]
		}
	}
	return h
}

// groupCurves gives each run's values by epoch (report.CurvesGrid averages them), a warm-started
// run's through both stages, and NaN where an epoch has no validation.
func TestGroupCurves(t *testing.T) {
	runs := []*Run{
		{History: history([]float64{10, 20}, []float64{3, 1})},
		{History: history([]float64{14, 20}, []float64{5, 1})},
	}
	val, loss := groupCurves("g", runs)
	if !reflect.DeepEqual(val.PerRun, [][]float64{{10, 20}, {14, 20}}) || !reflect.DeepEqual(loss.PerRun, [][]float64{{3, 1}, {5, 1}}) {
		t.Errorf("curves %v, %v", val.PerRun, loss.PerRun)
	}
	warm := []*Run{{WarmHistory: history([]float64{5}, []float64{9}), History: history([]float64{7, 8}, []float64{2, 1})}}
	warm[0].History[0].Validation = nil
	val, loss = groupCurves("warm", warm)
	if v := val.PerRun[0]; len(v) != 3 || v[0] != 5 || !math.IsNaN(v[1]) || v[2] != 8 || !reflect.DeepEqual(loss.PerRun[0], []float64{9, 2, 1}) {
		t.Errorf("warm-started curves %v, %v: want the warm epoch then the two volume epochs, NaN where not validated", val.PerRun, loss.PerRun)
	}
}

// ConvergenceNotes name the best epoch range and say whether the runs ending at their best epoch are
// flat there (report.EndOfCurves); TrainingCurves draws one
// row of two panels per data set with one legend entry per group.
func TestConvergenceNotesAndCurves(t *testing.T) {
	d := &gram.Dataset{Name: "toy set (test)"}
	trainer := &gram.Trainer{ValSplit: &gram.Split{N: 100}}
	loss := []float64{4, 3, 2, 1}
	rows := []CurveRow{{Data: d, Groups: map[string][]*Run{
		"flat": {
			{Data: d, Trainer: trainer, History: history([]float64{100, 150, 140, 140}, loss)},
			{Data: d, Trainer: trainer, History: history([]float64{100, 120, 150, 149}, loss)},
		},
		"rising":   {{Data: d, Trainer: trainer, History: history([]float64{100, 150, 160, 170}, loss)}},
		"ensemble": {{Data: d}}, // no trainer, no history: skipped
	}}}
	notes := ConvergenceNotes(rows)
	if len(notes) != 3 {
		t.Fatalf("notes %q, want one per trained group and one for the row", notes)
	}
	if !strings.Contains(notes[0], "flat on toy set: best epoch median 3, range 2–3 of 4 (2 runs)") {
		t.Errorf("flat group's note %q", notes[0])
	}
	if !strings.Contains(notes[1], "rising on toy set: best epoch 4 of 4 (1 runs)") {
		t.Errorf("rising group's note %q", notes[1])
	}
	// Only the "rising" run ends at its best epoch: gain 170 − 160 = +10 against the spread of the
	// "flat" group's last values {140, 149}, s.d. 9/√2 = 6.36 (the one-run group has none): rising.
	for _, want := range []string{"toy set, end of the validation curves", "by +10.00", "n = 1", "is 6.36", "still rising"} {
		if !strings.Contains(notes[2], want) {
			t.Errorf("row note %q, missing %q", notes[2], want)
		}
	}
	flatOnly := []CurveRow{{Data: d, Groups: map[string][]*Run{"flat": rows[0].Groups["flat"]}}}
	if got := ConvergenceNotes(flatOnly); len(got) != 2 || !strings.HasSuffix(got[1], "no run's best epoch is its last.") {
		t.Errorf("flat-only notes %q, want the row to say no run ends at its best epoch", got)
	}
	g, err := TrainingCurves("toy", append(rows, rows[0]))
	if err != nil {
		t.Fatal(err)
	}
	if len(g) != 2 || len(g[0]) != 2 || len(g[1]) != 2 {
		t.Fatalf("grid of %d rows, want 2 rows of 2 panels", len(g))
	}
	if _, err := g.Render(); err != nil {
		t.Fatal(err)
	}
}

// α is identified when runs from different starts end within alphaSameTolerance seed standard
// deviations of each other, and not when their end points differ by more.
func TestAlphaIdentifiability(t *testing.T) {
	d := &gram.Dataset{Name: "toy set (test)"}
	run := func(alpha0, final float64) *Run {
		v := HyperGRAM
		v.Config.AlphaInit, v.Config.AlphaLRMultiplier = alpha0, AlphaMobileLR
		return &Run{Variant: v, Data: d, History: history([]float64{1, 2}, []float64{2, 1}, alpha0, final)}
	}
	same := map[string][]*Run{"low": {run(0.2, 0.90), run(0.2, 0.92)}, "high": {run(0.8, 0.91), run(0.8, 0.93)}}
	apart := map[string][]*Run{"low": {run(0.2, 0.40), run(0.2, 0.42)}, "high": {run(0.8, 0.91), run(0.8, 0.93)}}
	for _, c := range []struct {
		groups map[string][]*Run
		want   string
	}{{same, "α is identified"}, {apart, "not identified"}} {
		notes := alphaIdentifiability(c.groups)
		if len(notes) != 1 || !strings.Contains(notes[0], c.want) || !strings.Contains(notes[0], "0.20 → ") {
			t.Errorf("notes %q, want one saying %q", notes, c.want)
		}
	}
}

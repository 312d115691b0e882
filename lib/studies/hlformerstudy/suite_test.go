package hlformerstudy

import (
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/models/hlformer"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/geoalign/geoalign/lib/retrieval"
)

// history is a run of len(sumR) epochs whose validation SumR are sumR, best at best (0-based).
func history(best int, sumR ...float64) Run {
	r := Run{Result: &hlformer.Result{BestEpoch: best}}
	for e, v := range sumR {
		r.History = append(r.History, hlformer.EpochStats{Epoch: e, Loss: []float64{10 - float64(e)}, Val: retrieval.Metrics{SumR: v}})
	}
	return r
}

func TestLearningCurvesAndNote(t *testing.T) {
	runs := []*Runs{
		{Variant: HybridVariant, Runs: reproduce.Runs[Run]{Seeds: []int64{0, 1}, Results: []Run{history(2, 100, 150, 160), history(1, 100, 170, 165)}}},
		{Variant: EuclideanOnlyVariant, Runs: reproduce.Runs[Run]{Seeds: []int64{0}, Results: []Run{history(1, 90, 140)}}},
	}
	loss, val, err := LearningCurves("Table 1", runs)
	if err != nil || loss == nil || val == nil {
		t.Fatalf("LearningCurves: %v", err)
	}
	note := CurvesNote("table1-curves-loss-full", "table1-curves-val-full", runs)
	for _, want := range []string{"table1-curves-loss-full and table1-curves-val-full",
		ShortName(HybridVariant.Name) + " 3, 2", ShortName(EuclideanOnlyVariant.Name) + " 2",
		"for 2 of the runs: " + ShortName(HybridVariant.Name) + " seed 0, " + ShortName(EuclideanOnlyVariant.Name) + " seed 0."} {
		if !strings.Contains(note, want) {
			t.Errorf("note lacks %q:\n%s", want, note)
		}
	}
}

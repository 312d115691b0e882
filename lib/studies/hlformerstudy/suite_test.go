package hlformerstudy

import (
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/train"
)

// history is a run of len(sumR) epochs whose validation SumR are sumR, best at best (0-based).
func history(best int, sumR ...float64) Run {
	r := Run{Result: &train.Result{}}
	for e, v := range sumR {
		r.Records = append(r.Records, train.Record{Epoch: e + 1, Loss: 10 - float64(e), Val: retrieval.Values(retrieval.Report{T2V: retrieval.Metrics{SumR: v}})})
	}
	r.Best = &r.Records[best]
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

package garestudy

import (
	"math"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/train"
)

func fakeRuns(r1 [][]float64) *Runs {
	d := &gare.Dataset{Name: "test set", Kind: "synthetic"}
	r := &Runs{Train: d, Test: d}
	for v, row := range r1 {
		r.Variants = append(r.Variants, Variant{Name: string(rune('a' + v))})
		runs := reproduce.Runs[Result]{Name: r.Variants[v].Name, Seeds: []int64{1, 2, 3}}
		for _, x := range row {
			m := retrieval.Metrics{Ks: []int{1, 5, 10}, Recall: []float64{x, x, x}, MnR: 100 - x}
			runs.Results = append(runs.Results, Result{Outcome: Outcome{Report: retrieval.Report{T2V: m, V2T: &m}}})
		}
		r.Results = append(r.Results, runs)
	}
	return r
}

func TestPairedDifferences(t *testing.T) {
	r := fakeRuns([][]float64{{10, 12, 11}, {12, 14, 13.5}})
	if d := reproduce.Paired(r.Results[0], r.Results[1], R1); d.Mean < 2.16 || d.Mean > 2.17 || d.N != 3 {
		t.Errorf("paired difference %+v, want mean 13/6", d)
	}
	if d := reproduce.Differences(r.Results[0], r.Results[1], MnR); d[0] != -2 || d[2] != -2.5 {
		t.Errorf("MnR differences %v, want −2, −2, −2.5", d)
	}
}

// TestRandomLevels: the metrics' level under random ranking against the metrics of the exact
// uniform rank distribution (every rank 1…n once), computed by lib/retrieval.
func TestRandomLevels(t *testing.T) {
	for _, n := range []int{7, 100, 1863} {
		ranks := make([]int, n)
		for i := range ranks {
			ranks[i] = i + 1
		}
		uniform, err := retrieval.FromRanks(ranks, retrieval.TextVideoKs, retrieval.MedianNumPy)
		if err != nil {
			t.Fatal(err)
		}
		rep := retrieval.Report{T2V: uniform, V2T: &uniform}
		for _, m := range []Metric{R1, R5, R10, MnR, V2TR1} {
			if got, want := m.Random(n, n), m.Of(Result{Outcome: Outcome{Report: rep}}); math.Abs(got-want) > 1e-9*want {
				t.Errorf("n = %d, %s: random level %g, uniform ranks give %g", n, m.Name, got, want)
			}
		}
	}
	if !R1.Higher || MnR.Higher || R1.Best != 100 || MnR.Best != 1 {
		t.Error("R@K is higher-is-better with best 100, MnR lower-is-better with best 1")
	}
}

func TestTablesCarryProvenanceAndPaperColumns(t *testing.T) {
	r := fakeRuns([][]float64{{10, 12, 11}, {12, 14, 13}})
	r.Variants[0].Paper = [4]string{"46.6", "73.4", "82.2", "12.6"}
	tbl := r.Table("t", report.Provenance{Data: "d", Kind: report.Synthetic}, CiteTable3)
	md, err := tbl.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md, "R@1 (paper)") || !strings.Contains(md, "46.6") || !strings.Contains(md, "11.0 ± 1.0") {
		t.Fatalf("table lacks the paper column or our mean ± std:\n%s", md)
	}
}

func TestSyntheticSplitHasOneTestPairPerConcept(t *testing.T) {
	train, test, err := SyntheticData(600, 400, 0.5, 7)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, c := range test.Concept {
		if seen[c] {
			t.Fatalf("concept %d appears twice in the test set", c)
		}
		seen[c] = true
	}
	dup := 0
	for _, n := range concepts(train) {
		if n > 1 {
			dup += n
		}
	}
	if train.NumTexts != 400 || dup == 0 {
		t.Fatalf("train has %d pairs and %d false-negative pairs; want 400 and > 0 at rate 0.5", train.NumTexts, dup)
	}
}

// TestLongerTrainingValues: the kept model's validation SumR is the one of the last record marked
// Best (not the largest value, not the last record), and the validation split's size.
func TestLongerTrainingValues(t *testing.T) {
	rec := func(best bool, sumr float64) train.Record {
		return train.Record{Val: map[string]float64{retrieval.ValMetric: sumr}, Best: best}
	}
	curve := []train.Record{rec(true, 100), rec(true, 150), {Loss: 1}, rec(false, 149), rec(true, 151), rec(false, 140)}
	kept := func(curve []train.Record) float64 { return validationSumR.Of(Result{Outcome: Outcome{Curve: curve}}) }
	if got := kept(curve); got != 151 {
		t.Errorf("kept validation SumR %g, want 151 (the last Best record)", got)
	}
	if got := kept([]train.Record{rec(false, 10)}); got != 0 {
		t.Errorf("no Best record: %g, want 0", got)
	}
	cfg := gare.DefaultConfig()
	cfg.ValFraction = 0.1
	if got := valPairs(cfg, 1235); got != 124 {
		t.Errorf("validation pairs of 1235 at 10 %%: %d, want 124", got)
	}
}

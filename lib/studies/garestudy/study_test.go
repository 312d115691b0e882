package garestudy

import (
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/retrieval"
)

func fakeRuns(r1 [][]float64) *Runs {
	d := &gare.Dataset{Name: "test set", Kind: "synthetic"}
	r := &Runs{Train: d, Test: d, Seeds: []uint64{1, 2, 3}}
	for v, row := range r1 {
		r.Variants = append(r.Variants, Variant{Name: string(rune('a' + v))})
		var res []Result
		for _, x := range row {
			m := retrieval.Metrics{Ks: []int{1, 5, 10}, Recall: []float64{x, x, x}, MnR: 100 - x}
			res = append(res, Result{Report: retrieval.Report{T2V: m, V2T: &m}})
		}
		r.Results = append(r.Results, res)
	}
	return r
}

func TestVerdictOutcomes(t *testing.T) {
	r := fakeRuns([][]float64{{10, 12, 11}, {12, 14, 13.5}, {9, 11, 10}, {10.5, 11.5, 11}})
	for _, tc := range []struct {
		a, b int
		m    Metric
		want string
	}{
		{0, 1, R1, Holds},       // +2, +2, +2.5
		{0, 2, R1, DoesNotHold}, // −1 on every seed
		{0, 3, R1, WithinNoise}, // +0.5, −0.5, 0
		{0, 1, MnR, Holds},      // lower MnR is better
	} {
		if got := r.Verdict("c", "p", tc.a, tc.b, tc.m).Result; got != tc.want {
			t.Errorf("%s vs %s on %s: %q, want %q", r.Variants[tc.b].Name, r.Variants[tc.a].Name, tc.m.Name, got, tc.want)
		}
	}
	if d := r.Paired(0, 1, R1); d.Mean < 2.16 || d.Mean > 2.17 || d.N != 3 {
		t.Errorf("paired difference %+v, want mean 13/6", d)
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

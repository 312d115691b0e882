package reproduce

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/geoalign/geoalign/lib/report"
	"gonum.org/v1/plot"
)

// TestRunSections: the driver runs only the wanted sections, in order; saves every artifact with the
// suffix; writes claims.json with each section's comparisons before its findings and the extra
// claims last, decided as one family; and names the skipped sections in pending.json.
func TestRunSections(t *testing.T) {
	dir := t.TempDir()
	seeds := []int64{1, 2, 3, 4, 5}
	cmp := func(claim string, shift float64) Comparison {
		a := Sample{Name: "a", Seeds: seeds, Values: []float64{10, 11, 12, 13, 14}, Learned: true}
		b := Sample{Name: "b", Seeds: seeds, Values: []float64{10 + shift, 11.5 + shift, 12 + shift, 13.5 + shift, 14 + shift}, Learned: true}
		return Comparison{Paper: "P", Claim: claim, PaperFigure: "Table 1", Data: "synthetic", Metric: "R@1", Higher: true, Best: 100, A: a, B: b}
	}
	ran := []string{}
	sections := []NamedSection{
		Step("table1", func(sec *Section) error {
			ran = append(ran, "table1")
			sec.Table("table1", report.NewTable("T1", report.Provenance{Data: "synthetic", Kind: report.Synthetic}, "x"))
			sec.Plot("table1-curves", plot.New())
			sec.Comparisons = []Comparison{cmp("first", 2), cmp("second", 3)}
			sec.Findings = []Claim{Describe("P", "third", "Fig. 1", "synthetic", "ours")}
			return nil
		}),
		Step("table2", func(sec *Section) error { ran = append(ran, "table2"); return nil }),
		Step("fig3", func(sec *Section) error {
			ran = append(ran, "fig3")
			sec.Findings = []Claim{Describe("P", "fourth", "Fig. 3", "synthetic", "ours")}
			return nil
		}),
	}
	opts := Options{Sections: []string{"fig3", "table1"}}
	out, err := RunSections(opts, "p", dir, "-ci", sections, Untestable("P", "fifth", "Table 9", "no data"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ran, []string{"table1", "fig3"}) || len(out) != 2 {
		t.Errorf("ran %v (%d sections returned), want table1, fig3", ran, len(out))
	}
	for _, f := range []string{"table1-ci.md", "table1-ci.json", "table1-curves-ci.png", "table1-curves-ci.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("artifact not saved: %v", err)
		}
	}
	claims, err := ReadClaims(filepath.Join(dir, "claims.json"))
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, c := range claims {
		order = append(order, c.Claim)
	}
	if !reflect.DeepEqual(order, []string{"first", "second", "third", "fourth", "fifth"}) {
		t.Errorf("claims in order %v", order)
	}
	// One Holm family: the two tested claims, decided together.
	for _, c := range claims[:2] {
		if c.P == nil || c.P.Family != 2 {
			t.Errorf("%s: p %+v, want a family of 2", c.Claim, c.P)
		}
	}
	p, err := ReadPending(dir)
	if err != nil || p == nil || !reflect.DeepEqual(p.Sections, []string{"table2"}) {
		t.Errorf("pending = %+v, %v; want table2", p, err)
	}
}

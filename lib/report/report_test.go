package report

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

func TestSummarizeClosedForm(t *testing.T) {
	// 2, 4, 4, 4, 5, 5, 7, 9: mean 5, sum of squared deviations 32, sample std sqrt(32/7).
	got := Summarize([]float64{2, 4, 4, 4, 5, 5, 7, 9})
	if got.Mean != 5 || math.Abs(got.Std-math.Sqrt(32.0/7)) > 1e-12 || got.N != 8 {
		t.Fatalf("Summarize = %+v", got)
	}
	if s := Summarize([]float64{3}); s.Std != 0 || s.Mean != 3 {
		t.Fatalf("single value: %+v", s)
	}
	if s := Summarize(nil); !math.IsNaN(s.Mean) {
		t.Fatalf("empty: %+v", s)
	}
	if f := (MeanStd{Mean: 12.345, Std: 0.5}).Format(1); f != "12.3 ± 0.5" {
		t.Fatalf("Format = %q", f)
	}
}

func TestTableRequiresProvenanceAndCitations(t *testing.T) {
	tb := NewTable("t", Provenance{}, "a")
	tb.AddRow(1)
	if _, err := tb.Markdown(); err == nil {
		t.Fatal("a table without provenance must not render")
	}
	tb = NewTable("t", Provenance{Data: "toy", Kind: Synthetic, Seeds: []int64{1, 2}}, "method", "R@1")
	tb.Columns = append(tb.Columns, Column{Name: "R@1", Paper: true})
	tb.Rows = nil
	tb.AddRow("x", "1.0", "2.0")
	if _, err := tb.Markdown(); err == nil {
		t.Fatal("a paper column without citation must not render")
	}
}

func TestTableRendersMarkedPaperColumnAndProvenance(t *testing.T) {
	tb := NewTable("Retrieval", Provenance{Data: "toy set", Kind: Synthetic, Seeds: []int64{0, 1, 2}}, "method", "R@1")
	tb.AddPaperColumn("R@1", "GRAM Table 1")
	tb.AddRow("GRAM", Summarize([]float64{1, 2, 3}), "54.8")
	md, err := tb.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| method | R@1 | R@1 (paper) |", "2.00 ± 1.00", "toy set (synthetic)", "Seeds: [0 1 2] (n = 3)", "GRAM Table 1"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	tb.Provenance.Notes = []string{"Trained 3 epochs.", "Floor: zero-training R@1 0.5 (random ranking).", "Another floor note."}
	h, err := tb.HTML()
	if err != nil || !strings.Contains(h, "<th style=\"font-style:italic\">R@1 (paper)</th>") {
		t.Errorf("html: %v\n%s", err, h)
	}
	// The provenance folds under <details>; its summary (data, seeds, the first floor note) stays visible.
	summary := "<summary>Data: toy set (synthetic) · n = 3 seeds · Floor: zero-training R@1 0.5 (random ranking) — provenance (6 lines)</summary>"
	if !strings.Contains(h, `<details style="font-size:smaller">`+summary+"<ul><li>Data: toy set (synthetic).</li>") ||
		!strings.Contains(h, "<li>Another floor note.</li></ul></details></div>") {
		t.Errorf("html provenance not folded under its summary %q:\n%s", summary, h)
	}
	base := filepath.Join(t.TempDir(), "sub", "tbl")
	if err := tb.Save(base); err != nil {
		t.Fatal(err)
	}
	c, _ := os.ReadFile(base + ".csv")
	if !strings.HasPrefix(string(c), "method,R@1,R@1 (paper)\nGRAM,2.00 ± 1.00,54.8\n") {
		t.Errorf("csv = %q", c)
	}
}

func TestAddRowPanicsOnMisalignedRow(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("expected panic")
		}
	}()
	NewTable("t", Provenance{}, "a", "b").AddRow(1)
}

func TestRenderIsDeterministicPNGAndSVG(t *testing.T) {
	mk := func() *plot.Plot {
		p := plot.New()
		l, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
		p.Add(l)
		return p
	}
	a, err := Render(mk(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Render(mk(), 0, 0)
	if string(a.PNG[:8]) != "\x89PNG\r\n\x1a\n" || !strings.Contains(string(a.SVG), "<svg") {
		t.Fatal("not a PNG/SVG")
	}
	if string(a.PNG) != string(b.PNG) {
		t.Fatal("PNG rendering is not deterministic")
	}
}

// Histograms gives each sample the fraction of its values per bin over the samples' common range.
func TestHistogramsFractions(t *testing.T) {
	samples := []Series{{Name: "a", Y: []float64{0, 0.9, 2, 4}}, {Name: "b", Y: []float64{3, 4}}}
	centres, fractions := binFractions(2, samples) // range [0, 4]: bins [0, 2) and [2, 4]
	if want := []float64{1, 3}; !reflect.DeepEqual(centres, want) {
		t.Errorf("centres %v, want %v", centres, want)
	}
	if want := [][]float64{{0.5, 0.5}, {0, 1}}; !reflect.DeepEqual(fractions, want) {
		t.Errorf("fractions %v, want %v", fractions, want)
	}
	if _, err := Histograms("h", "x", 0, samples...); err == nil {
		t.Error("Histograms with 0 bins: no error")
	}
	p, err := Histograms("h", "x (units)", 2, samples...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Render(p, 0, 0); err != nil {
		t.Fatal(err)
	}
}

// A table's Code (the key of the code that computed it) is a provenance line that starts with its
// key, and survives Save and LoadTable.
func TestTableRendersCodeKey(t *testing.T) {
	tb := NewTable("T", Provenance{Data: "toy", Kind: Synthetic, Commit: "abc",
		Code: &Code{Key: "k123", Packages: []string{"github.com/geoalign/geoalign/lib/studies/gramstudy"}, Source: "0123456789abcdef", Backend: "go"}}, "a")
	tb.AddRow(1)
	md, err := tb.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	want := "- Code: k123 (the source of lib/studies/gramstudy and the packages of this module it imports, sha256 0123456789ab; backend go).\n"
	if !strings.Contains(md, "- Commit: abc.\n"+want) {
		t.Errorf("Markdown lacks the line %q after the commit:\n%s", want, md)
	}
	base := filepath.Join(t.TempDir(), "t")
	if err := tb.Save(base); err != nil {
		t.Fatal(err)
	}
	back, err := LoadTable(base + ".json")
	if err != nil || back.Provenance.Code == nil || !reflect.DeepEqual(back.Provenance.Code, tb.Provenance.Code) {
		t.Errorf("Code after Save and LoadTable: %+v (%v), want %+v", back.Provenance.Code, err, tb.Provenance.Code)
	}
}

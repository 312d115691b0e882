package reproduce

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/atomicfile"
)

func TestClaimsRoundTripIntoReport(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "gram")
	if err := SaveClaims(dir, []Claim{{Paper: "GRAM", Claim: "a", Ours: "1", Outcome: Descriptive}}); err == nil || !strings.Contains(err.Error(), `"data"`) {
		t.Fatalf("a claim without data must be refused naming the field: %v", err)
	}
	if err := SaveClaims(dir, []Claim{{Paper: "GRAM", Claim: "a", Data: "synthetic", Outcome: Descriptive}}); err == nil {
		t.Fatal("an outcome without a computed result must be refused")
	}
	if err := SaveClaims(dir, []Claim{{Paper: "GRAM", Claim: "a", Data: "synthetic", Ours: "1", Outcome: DoesNotHold}}); err == nil {
		t.Fatal(`the old rule's "does not hold" must be refused`)
	}
	if err := SaveClaims(dir, []Claim{{Paper: "GRAM", Claim: "a", Data: "synthetic", Ours: "1", Outcome: Holds}}); err == nil {
		t.Fatal("holds without its test must be refused")
	}
	if _, err := os.Stat(dir); err == nil {
		t.Fatal("a refused SaveClaims created its directory")
	}

	seeds := []int64{1, 2, 3, 4, 5}
	decided, err := Decide([]Comparison{{
		Paper: "GRAM", Claim: "volume beats cosine", PaperFigure: "Table 1", Data: "synthetic | tri-modal", Metric: "R@1", Higher: true,
		A:     Sample{Name: "cosine", Seeds: seeds, Values: []float64{40, 42, 41, 43, 40.5}, Learned: true},
		B:     Sample{Name: "volume", Seeds: seeds, Values: []float64{42.1, 43.8, 43.4, 44.9, 42.7}, Learned: true},
		Floor: &Sample{Name: "zero-training", Values: []float64{10.5}},
	}, {
		Paper: "GRAM", Claim: "digits: volume beats cosine", Data: "FSDD", Metric: "R@1", Higher: true, Best: 100,
		A: Sample{Name: "cosine", Seeds: seeds, Values: []float64{100, 100, 100, 100, 100}},
		B: Sample{Name: "volume", Seeds: seeds, Values: []float64{100, 100, 100, 100, 100}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	claims := append(decided,
		Untestable("GRAM", "ITM rerank helps", "Table 2", "no BERT"),
		Describe("GRAM", "the angle", "Fig. 3", "synthetic", "85.91°"))
	if err := SaveClaims(dir, claims); err != nil {
		t.Fatal(err)
	}
	// An old-rule claims.json beside it is refused, naming the file.
	os.MkdirAll(filepath.Join(root, "old"), 0o755)
	os.WriteFile(filepath.Join(root, "old", "claims.json"), []byte(`[{"paper":"x","claim":"y","ours":"1","data":"d","verdict":"does not hold"}]`), 0o644)
	if _, err := LoadClaims(root); err == nil || !strings.Contains(err.Error(), filepath.Join("old", "claims.json")) {
		t.Fatalf("LoadClaims of an old-rule file: %v", err)
	}
	os.RemoveAll(filepath.Join(root, "old"))

	got, err := LoadClaims(root)
	if err != nil || len(got) != 4 || got[0].Source != "gram/claims.json" {
		t.Fatalf("LoadClaims = %+v, %v", got, err)
	}
	if got[0].Outcome != Holds || got[0].P == nil || got[0].P.Holm != decided[0].P.Holm || got[0].Floor != "zero-training 10.5" {
		t.Fatalf("claims.json does not round-trip: %+v", got[0])
	}
	os.WriteFile(filepath.Join(root, "REPORT.head.md"), []byte("# Report\n"), 0o644)
	os.WriteFile(filepath.Join(root, "REPORT.limits.md"), []byte("## Limits\n"), 0o644)
	if err := WriteReport(root, got, nil); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(root, "REPORT.md"))
	md := string(b)
	// numpy: means 43.38, 41.30, s.e. 0.479, 0.539; paired 2.08 ± 0.107; scipy ttest_rel p = 4.09e-5.
	row := "| volume beats cosine | Table 1 | R@1: volume 43.38 ± 0.48 vs cosine 41.30 ± 0.54 | 5 | +2.08 ± 0.11 | " +
		"< 0.0001 (raw < 0.0001, m = 1) | zero-training 10.5 | synthetic \\| tri-modal | holds |"
	for _, want := range []string{"# Report\n", "## GRAM", "| claim | paper | ours | n | Δ (B − A) | p | floor | data | outcome |", row,
		"| 5 | +0 ± 0 | — | — | FSDD | not testable: ceiling — cosine and volume are identical on every seed |",
		"## Claims not testable here", "| GRAM | ITM rerank helps | Table 2 | no BERT |",
		"| 85.91° | — | — | — | — | synthetic | descriptive |", "## Limits"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if strings.Count(md, "**The claim rule**") != 1 || strings.Index(md, "**The claim rule**") > strings.Index(md, "## GRAM") {
		t.Errorf("the rule must be stated once, in the header:\n%s", md)
	}
	for _, gone := range []string{"does not hold", "partly"} {
		if strings.Contains(md, gone) {
			t.Errorf("report contains %q", gone)
		}
	}
	if strings.Contains(md, "## Not in this report") {
		t.Errorf("a report with nothing pending has a pending section:\n%s", md)
	}
	// Experiments without claims are named in a section of their own, before the papers' tables.
	if err := WriteReport(root, got, nil, Pending{Paper: "gare"}, Pending{Paper: "hlformer", Sections: []string{"table2", "fig3"}}); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(filepath.Join(root, "REPORT.md"))
	md = string(b)
	if i, j := strings.Index(md, "## Not in this report"), strings.Index(md, "## GRAM"); i < 0 || i > j ||
		!strings.Contains(md, "- `gare`: no claims.json\n- `hlformer`: sections not run yet: table2, fig3\n") || !strings.Contains(md, row) {
		t.Errorf("pending experiments not named before the tables:\n%s", md)
	}
	// Atomic writes leave no temporary file behind.
	for _, d := range []string{root, dir} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if atomicfile.IsTemp(e.Name()) {
				t.Errorf("temporary file left in %s: %s", d, e.Name())
			}
		}
	}
	// A refused save leaves the previous claims.json as it was.
	before, _ := os.ReadFile(filepath.Join(dir, "claims.json"))
	SaveClaims(dir, []Claim{{Paper: "GRAM", Claim: "bad"}})
	if after, _ := os.ReadFile(filepath.Join(dir, "claims.json")); string(after) != string(before) {
		t.Error("a refused SaveClaims changed claims.json")
	}
}

package reproduce

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestClaimsRoundTripIntoReport(t *testing.T) {
	root := t.TempDir()
	if err := SaveClaims(filepath.Join(root, "gram"), []Claim{{Paper: "GRAM", Claim: "a", Verdict: Holds}}); err == nil {
		t.Fatal("a claim without data must be refused")
	}
	if err := SaveClaims(filepath.Join(root, "gram"), []Claim{{Paper: "GRAM", Claim: "a", Data: "synthetic", Verdict: Holds}}); err == nil {
		t.Fatal("a verdict without a computed result must be refused")
	}
	claims := []Claim{
		{Paper: "GRAM", Claim: "volume beats cosine", PaperFigure: "Table 1", Ours: "1.0 ± 0.1 (n=3)", Data: "synthetic", Verdict: Holds, Why: "x|y"},
		{Paper: "GRAM", Claim: "ITM rerank helps", Data: "none", Verdict: NotTestable, Why: "no BERT"},
	}
	if err := SaveClaims(filepath.Join(root, "gram"), claims); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "REPORT.head.md"), []byte("# Report\n"), 0o644)
	got, err := LoadClaims(root)
	if err != nil || len(got) != 2 || got[0].Source != "gram/claims.json" {
		t.Fatalf("LoadClaims = %+v, %v", got, err)
	}
	if err := WriteReport(root, got); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(root, "REPORT.md"))
	for _, want := range []string{"# Report", "## GRAM", "| volume beats cosine | Table 1 | 1.0 ± 0.1 (n=3) | synthetic | holds: x\\|y |", "not testable here: no BERT"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

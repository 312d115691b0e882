package reproduce

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/encoders"
)

func TestAlternativeSection(t *testing.T) {
	root := t.TempDir()
	main := []Claim{
		{Paper: "GRAM", Claim: "volume beats cosine (Tux Paint)", Ours: "R@1 43 vs 41", Data: "Tux Paint (GloVe 6B-100d)", Outcome: Holds},
		{Paper: "GRAM", Claim: "alpha helps", Ours: "R@1 40 vs 41", Data: "Tux Paint (GloVe 6B-100d)", Outcome: Inconclusive},
		{Paper: "GRAM", Claim: "digits ceiling", Ours: "R@1 100 vs 100", Data: "FSDD digits (real)", Outcome: Tautology},
	}
	alt := []Claim{
		{Paper: "GRAM", Claim: "volume beats cosine (Tux Paint, MiniLM all-MiniLM-L6-v2 text)", Ours: "R@1 30 vs 28", Data: "Tux Paint (MiniLM all-MiniLM-L6-v2 text)", Outcome: Holds, N: 5, Floor: "random 2",
			Diff: &Diff{Mean: 2, StdErr: 0.5}, P: &PValue{Raw: 0.001, Holm: 0.002, Family: 2}},
		{Paper: "GRAM", Claim: "alpha helps", Ours: "R@1 31 vs 28", Data: "Tux Paint (MiniLM all-MiniLM-L6-v2 text)", Outcome: Holds,
			Diff: &Diff{Mean: 3, StdErr: 0.5}, P: &PValue{Raw: 0.001, Holm: 0.002, Family: 2}},
		{Paper: "GRAM", Claim: "digits ceiling", Ours: "R@1 100 vs 100", Data: "FSDD digits (real)", Outcome: Tautology},
		{Paper: "GRAM", Claim: "only in the MiniLM run", Ours: "x", Data: "Tux Paint (MiniLM all-MiniLM-L6-v2 text)", Outcome: Descriptive},
	}
	for i, want := range []string{"agree: holds", "differ: main run inconclusive", "same runs (no text): tautology", "no main-run claim"} {
		if got := Agreement(alt[i], encoders.MiniLM, main); got != want {
			t.Errorf("Agreement(%q) = %q, want %q", alt[i].Claim, got, want)
		}
	}
	// LoadAlternatives finds <root>/minilm's claims (and none for GloVe, the main run's encoder).
	dir := AlternativeDir(root, encoders.MiniLM)
	if dir != filepath.Join(root, "minilm") {
		t.Fatalf("AlternativeDir = %s", dir)
	}
	if err := SaveClaims(filepath.Join(dir, "gram"), alt); err != nil {
		t.Fatal(err)
	}
	alts, err := LoadAlternatives(root, encoders.GloVe)
	if err != nil || len(alts) != 1 || alts[0].Text != encoders.MiniLM || len(alts[0].Claims) != len(alt) {
		t.Fatalf("LoadAlternatives = %+v, %v", alts, err)
	}
	if none, err := LoadAlternatives(dir, encoders.MiniLM); err != nil || len(none) != 0 {
		t.Fatalf("LoadAlternatives of the MiniLM run itself = %+v, %v", none, err)
	}
	if err := WriteReport(root, main, alts); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(root, "REPORT.md"))
	md := string(b)
	for _, want := range []string{
		"## With MiniLM all-MiniLM-L6-v2 text (minilm/)",
		"### GRAM, minilm",
		"| volume beats cosine (Tux Paint, MiniLM all-MiniLM-L6-v2 text) | R@1 30 vs 28 | 5 | +2.00 ± 0.50 | 0.002 (raw 0.001, m = 2) | random 2 | Tux Paint (MiniLM all-MiniLM-L6-v2 text) | holds | agree: holds |",
		"| alpha helps | R@1 31 vs 28 | — | +3.00 ± 0.50 | 0.002 (raw 0.001, m = 2) | — | Tux Paint (MiniLM all-MiniLM-L6-v2 text) | holds | differ: main run inconclusive |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("REPORT.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Index(md, "## GRAM") > strings.Index(md, "## With MiniLM") {
		t.Errorf("the alternative's section must follow the main tables:\n%s", md)
	}
}

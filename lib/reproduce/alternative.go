package reproduce

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/geoalign/geoalign/lib/encoders"
)

// Alternative is a second run of the experiments with another text encoder: `geoalign figures
// --text minilm` writes it under <root>/minilm (AlternativeDir), and the REPORT.md of <root> sets
// its claims beside the main run's (issue 33: "the evidence without the shortcut").
type Alternative struct {
	Text   encoders.Text // the encoder of that run
	Dir    string        // its directory, relative to the report's root ("minilm")
	Claims []Claim
}

// AlternativeDir is where the run of the experiments with text encoder t is written when the
// main run (GloVe, the default) is at root: <root>/<t> ("figures/minilm").
func AlternativeDir(root string, t encoders.Text) string { return filepath.Join(root, t.String()) }

// LoadAlternatives returns the runs with another text encoder than main found under root: each
// encoder's AlternativeDir that holds claims (LoadClaims). None is not an error.
func LoadAlternatives(root string, main encoders.Text) ([]Alternative, error) {
	var alts []Alternative
	for _, t := range []encoders.Text{encoders.GloVe, encoders.MiniLM} {
		if t == main {
			continue
		}
		dir := AlternativeDir(root, t)
		if _, err := os.Stat(dir); err != nil {
			continue
		}
		cs, err := LoadClaims(dir)
		if err != nil {
			return nil, err
		}
		if len(cs) > 0 {
			alts = append(alts, Alternative{Text: t, Dir: t.String(), Claims: cs})
		}
	}
	return alts, nil
}

// Agreement compares one claim of an alternative run with encoder t with the main run's claim of the
// same paper and text — the alternative's text with the encoder's name taken out of its data sets'
// names (", MiniLM all-MiniLM-L6-v2 text", Text.Describe) —: "same runs (no text)" when both were
// computed on the same data (the experiment reads no encoded text, so the two runs are the same
// runs), "agree" or "differ" by outcome, or "no main-run claim" when the main run has none (a
// section not run there).
func Agreement(alt Claim, t encoders.Text, main []Claim) string {
	text := strings.ReplaceAll(alt.Claim, ", "+t.Describe(), "")
	for _, m := range main {
		if m.Paper != alt.Paper || m.Claim != text {
			continue
		}
		switch {
		case m.Data == alt.Data:
			return "same runs (no text): " + string(m.Outcome)
		case m.Outcome == alt.Outcome:
			return "agree: " + string(m.Outcome)
		}
		return "differ: main run " + string(m.Outcome)
	}
	return "no main-run claim"
}

// writeAlternative renders an Alternative's section of REPORT.md: one table per paper, the columns
// of the main tables plus the verdict of the main run on the same claim (Agreement).
func writeAlternative(b *strings.Builder, a Alternative, main []Claim) {
	fmt.Fprintf(b, "## With %s (%s/)\n\n", a.Text.Describe(), a.Dir)
	fmt.Fprintf(b, "The same experiments with the real tracks' texts encoded by %s instead of the main run's "+
		"(`geoalign figures --full --text %s --out <this directory>/%s`), decided by the same rule; their figures, "+
		"learning curves and tables are under `%s/`, their own report is `%s/REPORT.md`, which also names the papers and sections "+
		"not run with this encoder (a paper run in part has a Holm family of its run sections only, so its outcomes are "+
		"provisional). The last column compares each verdict with the main run's on the same claim.\n\n",
		a.Text.Describe(), a.Text, a.Dir, a.Dir, a.Dir)
	papers, byPaper, _ := groupByPaper(a.Claims) // the untestable ones are listed once, with the main run's
	for _, p := range papers {
		fmt.Fprintf(b, "### %s, %s\n\n| claim | ours | n | Δ (B − A) | p | floor | data | outcome | main run |\n|---|---|---|---|---|---|---|---|---|\n",
			p, a.Text)
		for _, c := range byPaper[p] {
			n, diff, pv, floor := c.testCells()
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", cell(c.Claim), cell(c.Ours), n, diff, pv,
				cell(floor), cell(c.Data), cell(c.Verdict()), cell(Agreement(c, a.Text, main)))
		}
		b.WriteString("\n")
	}
}

package reproduce

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Verdict of a paper's claim as tested here.
type Verdict string

const (
	Holds        Verdict = "holds"
	DoesNotHold  Verdict = "does not hold"
	Partly       Verdict = "partly holds"
	NotTestable  Verdict = "not testable here"
	Inconclusive Verdict = "inconclusive"
)

// Claim is one row of figures/REPORT.md: a headline claim of a paper, what the paper reports,
// what we computed (never typed: Ours is formatted from numbers computed in the run), on which
// data, and the verdict with its reason.
type Claim struct {
	Paper       string  `json:"paper"`
	Claim       string  `json:"claim"`
	PaperFigure string  `json:"paper_figure"` // the paper's number/figure, with table/figure reference
	Ours        string  `json:"ours"`         // mean ± std (n seeds), computed
	Data        string  `json:"data"`         // real / label-derived / synthetic, which
	Verdict     Verdict `json:"verdict"`
	Why         string  `json:"why"` // the reason for the verdict, with the numbers that decide it
	Source      string  `json:"source"`
}

// SaveClaims writes a paper's claims to <dir>/claims.json, the file REPORT.md is built from.
func SaveClaims(dir string, claims []Claim) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, c := range claims {
		if c.Claim == "" || c.Verdict == "" || c.Data == "" {
			return fmt.Errorf("reproduce: claim %d of %s lacks its text, verdict or data", i, dir)
		}
		if c.Verdict != NotTestable && c.Ours == "" {
			return fmt.Errorf("reproduce: claim %q has a verdict but no computed result", c.Claim)
		}
	}
	b, err := json.MarshalIndent(claims, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "claims.json"), append(b, '\n'), 0o644)
}

// LoadClaims reads every figures/*/claims.json below root, ordered by paper.
func LoadClaims(root string) ([]Claim, error) {
	files, err := filepath.Glob(filepath.Join(root, "*", "claims.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var all []Claim
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var cs []Claim
		if err := json.Unmarshal(b, &cs); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		for i := range cs {
			if cs[i].Source == "" {
				rel, _ := filepath.Rel(root, f)
				cs[i].Source = rel
			}
		}
		all = append(all, cs...)
	}
	return all, nil
}

// WriteReport renders REPORT.md from the claims and a fixed preamble and "cannot be tested"
// section (prose kept in figures/REPORT.head.md and figures/REPORT.limits.md, no numbers).
func WriteReport(root string, claims []Claim) error {
	var b strings.Builder
	if head, err := os.ReadFile(filepath.Join(root, "REPORT.head.md")); err == nil {
		b.Write(head)
		b.WriteString("\n")
	}
	byPaper := map[string][]Claim{}
	var papers []string
	for _, c := range claims {
		if _, ok := byPaper[c.Paper]; !ok {
			papers = append(papers, c.Paper)
		}
		byPaper[c.Paper] = append(byPaper[c.Paper], c)
	}
	for _, p := range papers {
		fmt.Fprintf(&b, "## %s\n\n| claim | paper | ours | data | verdict |\n|---|---|---|---|---|\n", p)
		for _, c := range byPaper[p] {
			verdict := string(c.Verdict)
			if c.Why != "" {
				verdict += ": " + c.Why
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", cell(c.Claim), cell(c.PaperFigure), cell(c.Ours), cell(c.Data), cell(verdict))
		}
		b.WriteString("\n")
	}
	if lim, err := os.ReadFile(filepath.Join(root, "REPORT.limits.md")); err == nil {
		b.Write(lim)
	}
	return os.WriteFile(filepath.Join(root, "REPORT.md"), []byte(b.String()), 0o644)
}

func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

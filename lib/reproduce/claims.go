package reproduce

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/geoalign/geoalign/lib/atomicfile"
)

// Claim is one row of figures/REPORT.md and one entry of a paper's claims.json: a claim of a
// paper, what the paper reports, what we computed, on which data, and the outcome of the claim
// rule (Decide) with the numbers that decide it. Only the rule's constructors (Decide, Describe,
// Untestable) should make one.
type Claim struct {
	Paper       string  `json:"paper"`
	Claim       string  `json:"claim"`
	PaperFigure string  `json:"paper_figure"` // the paper's number/figure, with table/figure reference
	Ours        string  `json:"ours"`         // computed: each sample's mean ± s.e., never typed
	Data        string  `json:"data"`         // real / label-derived / synthetic, which
	Metric      string  `json:"metric,omitempty"`
	N           int     `json:"n,omitempty"`     // seeds paired; 0 for descriptive and untestable rows
	Diff        *Diff   `json:"diff,omitempty"`  // B − A over the seeds; nil below two seeds
	P           *PValue `json:"p,omitempty"`     // nil unless the claim was tested (in its paper's Holm family)
	Floor       string  `json:"floor,omitempty"` // the zero-training baseline of the split, where one applies
	Outcome     Outcome `json:"outcome"`
	Gate        Gate    `json:"gate,omitempty"`   // the validity gate that made the claim not testable
	Reason      string  `json:"reason,omitempty"` // why: the gate's numbers, the seed count, the tautology
	Source      string  `json:"source,omitempty"`
}

// Verdict is the outcome as REPORT.md prints it: "holds", "inconclusive: n = 3 < 5 seeds",
// "not testable: ceiling — …", "tautology: …".
func (c Claim) Verdict() string {
	switch {
	case c.Gate != "":
		return fmt.Sprintf("%s: %s — %s", c.Outcome, c.Gate, c.Reason)
	case c.Reason != "":
		return fmt.Sprintf("%s: %s", c.Outcome, c.Reason)
	}
	return string(c.Outcome)
}

// String is the claim on one line with every number the rule used, what a notebook prints:
// "<claim> → <verdict> (<ours>; n = 5, Δ = +2.41 ± 0.38, Holm p = 0.0032; floor …)".
func (c Claim) String() string {
	var parts []string
	if c.Ours != "" {
		parts = append(parts, c.Ours)
	}
	var test []string
	if c.N > 0 {
		test = append(test, fmt.Sprintf("n = %d", c.N))
	}
	if c.Diff != nil {
		test = append(test, "Δ = "+pm(c.Diff.Mean, c.Diff.StdErr, true))
	}
	if c.P != nil {
		if p := pval(c.P.Holm); strings.HasPrefix(p, "<") {
			test = append(test, "Holm p "+p) // "Holm p < 0.0001"
		} else {
			test = append(test, "Holm p = "+p)
		}
	}
	if len(test) > 0 {
		parts = append(parts, strings.Join(test, ", "))
	}
	if c.Floor != "" {
		parts = append(parts, "floor "+c.Floor)
	}
	s := c.Claim + " → " + c.Verdict()
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, "; ") + ")"
	}
	return s
}

// check returns an error naming the field a claim lacks or gets wrong.
func (c Claim) check() error {
	switch {
	case c.Claim == "":
		return fmt.Errorf("field \"claim\" is empty")
	case c.Data == "":
		return fmt.Errorf("claim %q: field \"data\" is empty", c.Claim)
	case !slices.Contains(outcomes, c.Outcome):
		return fmt.Errorf("claim %q: field \"outcome\" is %q, not one of the rule's outcomes %v (a claim must come from reproduce.Decide, Describe or Untestable)",
			c.Claim, c.Outcome, outcomes)
	case c.Ours == "" && c.Outcome != NotTestable && c.Outcome != Tautology:
		return fmt.Errorf("claim %q: outcome %q but field \"ours\" (the computed result) is empty", c.Claim, c.Outcome)
	case (c.Outcome == Holds || c.Outcome == Contradicted) && (c.P == nil || c.Diff == nil):
		return fmt.Errorf("claim %q: outcome %q without its test (fields \"p\" and \"diff\")", c.Claim, c.Outcome)
	}
	return nil
}

// SaveClaims writes a paper's claims to <dir>/claims.json (atomically), the file REPORT.md is
// built from. It refuses a claim that lacks its text, data, computed result or a rule's outcome.
func SaveClaims(dir string, claims []Claim) error {
	for i, c := range claims {
		if err := c.check(); err != nil {
			return fmt.Errorf("reproduce: %s claim %d: %w", dir, i, err)
		}
	}
	b, err := json.MarshalIndent(claims, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, "claims.json"), append(b, '\n'), 0o644)
}

// LoadClaims reads every figures/*/claims.json below root (ReadClaims), ordered by paper. A claim
// that the rule could not have written (a missing field, an outcome of the old per-paper rules) is
// an error naming the file.
func LoadClaims(root string) ([]Claim, error) {
	files, err := filepath.Glob(filepath.Join(root, "*", "claims.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var all []Claim
	for _, f := range files {
		cs, err := ReadClaims(f)
		if err != nil {
			return nil, err
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

// ReadClaims reads one paper's claims.json (SaveClaims writes it): the claims as the rule decided
// them, in the paper's order. A claim that the rule could not have written is an error naming the
// file and the claim.
func ReadClaims(path string) ([]Claim, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cs []Claim
	if err := json.Unmarshal(b, &cs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i := range cs {
		if err := cs[i].check(); err != nil {
			return nil, fmt.Errorf("%s: claim %d: %w", path, i, err)
		}
	}
	return cs, nil
}

// WriteReport renders <root>/REPORT.md (atomically) from the claims: the preamble
// <root>/REPORT.head.md, the claim rule stated once (RuleText), one table per paper, and the
// "claims not testable here" (every Untestable claim, by paper, with its reason), and the "cannot be
// tested" section <root>/REPORT.limits.md (both prose files: no numbers; optional). pending names
// the experiments whose claims are not all among these — no <root>/<paper>/claims.json at all
// (Pending.Sections empty), or one written by a run of some sections only (SavePending): the report
// says so in a section of its own instead of leaving them out silently.
//
// alts are the same experiments run with another text encoder (LoadAlternatives): after the main
// tables, each gets a section with its claims under the same rule and, per claim, whether its
// verdict agrees with the main run's (Agreement).
func WriteReport(root string, claims []Claim, alts []Alternative, pending ...Pending) error {
	var b strings.Builder
	if head, err := os.ReadFile(filepath.Join(root, "REPORT.head.md")); err == nil {
		b.Write(head)
		b.WriteString("\n")
	}
	b.WriteString(RuleText())
	b.WriteString("\n")
	if len(pending) > 0 {
		b.WriteString("## Not in this report\n\nThe results of these experiments are not (all) decided by the rule above under this " +
			"directory. An experiment without `<paper>/claims.json` has not been regenerated with the current engine, so none of " +
			"its results is reported here. An experiment with pending sections was rendered from the sections that have " +
			"finished (`geoalign figures --sections`): its claims below form a Holm family of those sections' claims only, " +
			"so their outcomes are provisional — the claims of the pending sections can only raise the adjusted p-values. " +
			"`make figures` regenerates everything.\n\n")
		for _, p := range pending {
			if len(p.Sections) == 0 {
				fmt.Fprintf(&b, "- `%s`: no claims.json\n", p.Paper)
				continue
			}
			fmt.Fprintf(&b, "- `%s`: sections not run yet: %s\n", p.Paper, strings.Join(p.Sections, ", "))
		}
		b.WriteString("\n")
	}
	papers, byPaper, untestable := groupByPaper(claims)
	for _, p := range papers {
		fmt.Fprintf(&b, "## %s\n\n| claim | paper | ours | n | Δ (B − A) | p | floor | data | outcome |\n|---|---|---|---|---|---|---|---|---|\n", p)
		for _, c := range byPaper[p] {
			n, diff, pv, floor := c.testCells()
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", cell(c.Claim), cell(c.PaperFigure), cell(c.Ours),
				n, diff, pv, cell(floor), cell(c.Data), cell(c.Verdict()))
		}
		b.WriteString("\n")
	}
	for _, a := range alts {
		writeAlternative(&b, a, claims)
	}
	if len(untestable) > 0 {
		b.WriteString("## Claims not testable here\n\nEach claim of the papers that no experiment here can test, with the reason.\n\n| paper | claim | paper's evidence | reason |\n|---|---|---|---|\n")
		for _, c := range untestable {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(c.Paper), cell(c.Claim), cell(c.PaperFigure), cell(c.Reason))
		}
		b.WriteString("\n")
	}
	if lim, err := os.ReadFile(filepath.Join(root, "REPORT.limits.md")); err == nil {
		b.Write(lim)
	}
	return atomicfile.WriteFile(filepath.Join(root, "REPORT.md"), []byte(b.String()), 0o644)
}

// groupByPaper splits claims into the tested or gated ones by paper (papers in order of first
// appearance) and those not testable here at all (Untestable, as opposed to gated), which REPORT.md
// lists once in a section of their own.
func groupByPaper(claims []Claim) (papers []string, byPaper map[string][]Claim, untestable []Claim) {
	byPaper = map[string][]Claim{}
	for _, c := range claims {
		if _, ok := byPaper[c.Paper]; !ok {
			papers = append(papers, c.Paper)
		}
		if c.Outcome == NotTestable && c.Gate == "" {
			untestable = append(untestable, c)
			continue
		}
		byPaper[c.Paper] = append(byPaper[c.Paper], c)
	}
	return papers, byPaper, untestable
}

// testCells are a claim's n, Δ, p and floor cells of a REPORT.md table ("—" where there is none).
func (c Claim) testCells() (n, diff, p, floor string) {
	const dash = "—"
	n, diff, p, floor = dash, dash, dash, dash
	if c.N > 0 {
		n = fmt.Sprint(c.N)
	}
	if c.Diff != nil {
		diff = pm(c.Diff.Mean, c.Diff.StdErr, true)
	}
	if c.P != nil {
		p = fmt.Sprintf("%s (raw %s, m = %d)", pval(c.P.Holm), pval(c.P.Raw), c.P.Family)
	}
	if c.Floor != "" {
		floor = c.Floor
	}
	return n, diff, p, floor
}

func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

package nb

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
)

// markdownEscaper keeps a claim's text literal in Markdown: its names (t_i, L_IB, S_ii) and
// products (a*b) must not turn into emphasis.
var markdownEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "|", `\|`, "<", "&lt;")

// claimMarkdown is one claim as the rule returned it (reproduce.Claim.String: the claim, its
// outcome and every number the rule used), as a Markdown list item.
func claimMarkdown(c reproduce.Claim) string {
	return "- " + markdownEscaper.Replace(c.String())
}

// claimsMarkdown is one list item per claim.
func claimsMarkdown(cs []reproduce.Claim) string {
	lines := make([]string, len(cs))
	for i, c := range cs {
		lines[i] = claimMarkdown(c)
	}
	return strings.Join(lines, "\n")
}

// Claims are a paper's claims as the claim rule decided them once, over the paper's whole family,
// in the finished full run: figures/<paper>/claims.json of the checkout, which `make figures`
// writes (reproduce.ReadClaims). paper is the directory name: gram, hypergram, gare, hlformer.
func Claims(paper string) ([]reproduce.Claim, error) {
	return reproduce.ReadClaims(Path("figures", paper, "claims.json"))
}

// ShowClaims shows a paper's claims (Claims) under a line naming their file — or, when that file
// is missing or was not written by the claim rule, says so and what writes it. A notebook shows
// its paper's claims this way, never by deciding comparisons of its own: the Holm adjustment
// covers the paper's whole family only when the claims are decided together.
func ShowClaims(paper string) {
	file := filepath.Join("figures", paper, "claims.json")
	cs, err := Claims(paper)
	if err != nil {
		msg := strings.ReplaceAll(err.Error(), Root()+string(filepath.Separator), "")
		Markdown(fmt.Sprintf("*The full run's claims cannot be read (%s): `make figures` writes `%s` with the claim rule.*",
			markdownEscaper.Replace(msg), file))
		return
	}
	Markdown(fmt.Sprintf("**The %d claims of `%s`**, as the claim rule decided them together in the full run "+
		"(`make figures`; not recomputed here):", len(cs), file))
	if p, err := reproduce.ReadPending(Path("figures", paper)); err != nil || p != nil {
		what := "its record of pending sections cannot be read"
		if p != nil {
			what = "sections " + strings.Join(p.Sections, ", ") + " have not finished"
		}
		Markdown(fmt.Sprintf("*Partial run: %s. These claims are one Holm family of the finished sections only, so "+
			"their outcomes are provisional (the pending claims can only raise the adjusted p-values).*", what))
	}
	Show(cs)
}

// Committed shows a committed full-run result beside a notebook's small-scale run: the table
// figures/<base>.json (report.LoadTable) with its provenance, then each figure
// figures/<name>.{png,svg}, none of them recomputed. A result not committed yet is said so.
func Committed(base string, figures ...string) {
	t, err := report.LoadTable(Path("figures", base+".json"))
	if err != nil {
		Markdown(fmt.Sprintf("*The full run's `figures/%s` is not committed yet (`make figures` writes it).*", base))
		return
	}
	Markdown(fmt.Sprintf("**Committed full-run result** (`figures/%s.*`, computed by `make figures` at commit %s; not recomputed here):",
		base, t.Provenance.Commit))
	Table(t, "")
	for _, f := range figures {
		png, err1 := os.ReadFile(Path("figures", f+".png"))
		svg, err2 := os.ReadFile(Path("figures", f+".svg"))
		if err1 == nil && err2 == nil {
			Figure(report.Figure{PNG: png, SVG: svg}, "")
		}
	}
}

// Unfinished reports whether a notebook running its full configuration (Full) should skip section
// of paper, and says so in the notebook: the committed full run has not finished it
// (figures/<paper>/pending.json lists it, or figures/<paper>/claims.json is missing). At the full
// configuration a section is read from the run cache that `make figures` filled; one it has not
// finished would train for hours inside a cell. At the small configuration nothing is skipped.
//
//	if nb.Unfinished("hlformer", "table2") {
//		return
//	}
func Unfinished(paper, section string) bool {
	if !Full() {
		return false
	}
	dir := Path("figures", paper)
	p, err := reproduce.ReadPending(dir)
	_, noClaims := os.Stat(filepath.Join(dir, "claims.json"))
	if err == nil && noClaims == nil && (p == nil || !slices.Contains(p.Sections, section)) {
		return false
	}
	Markdown(fmt.Sprintf("*The full run of `%s` (section `%s`) has not finished, so this notebook does not train it here: "+
		"`make figures` does (checkpointed; `geoalign figures --full --paper %s --sections %s` for this section alone).*",
		paper, section, paper, section))
	return true
}

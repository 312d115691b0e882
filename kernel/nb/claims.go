package nb

import (
	"strings"

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

package nb

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/geoalign/geoalign/lib/reproduce"
)

// claimField is one non-empty field of a reproduce.Claim, named by its JSON name.
type claimField struct{ name, value string }

// claimFields lists the claim's non-empty fields in the struct's order, whatever fields the
// claim rule gives Claim: the rendering shows what the rule returned, never a fixed selection.
func claimFields(c reproduce.Claim) []claimField {
	v := reflect.ValueOf(c)
	var out []claimField
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if !f.IsExported() || v.Field(i).IsZero() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out = append(out, claimField{strings.ReplaceAll(name, "_", " "), fmt.Sprint(v.Field(i).Interface())})
	}
	return out
}

// isOutcome tells the field holding the rule's decision, shown first and in bold.
func isOutcome(name string) bool { return name == "verdict" || name == "outcome" }

// claimLine is "**<outcome>** — <claim> · <field>: <value> · …".
func claimLine(c reproduce.Claim) string {
	var head, claim string
	var rest []string
	for _, f := range claimFields(c) {
		switch {
		case isOutcome(f.name) && head == "":
			head = "**" + f.value + "**"
		case f.name == "claim":
			claim = f.value
		default:
			rest = append(rest, f.name+": "+f.value)
		}
	}
	return strings.Join(nonEmpty(head, claim, strings.Join(rest, " · ")), " — ")
}

// claimsTable is a Markdown table of the claims, one column per field that any of them sets.
func claimsTable(cs []reproduce.Claim) string {
	var cols []string
	rows := make([]map[string]string, len(cs))
	for i, c := range cs {
		rows[i] = map[string]string{}
		for _, f := range claimFields(c) {
			if !slices.Contains(cols, f.name) {
				cols = append(cols, f.name)
			}
			rows[i][f.name] = f.value
		}
	}
	var b strings.Builder
	b.WriteString("| " + strings.Join(cols, " | ") + " |\n|" + strings.Repeat("---|", len(cols)) + "\n")
	for _, r := range rows {
		cells := make([]string, len(cols))
		for j, col := range cols {
			cells[j] = strings.NewReplacer("|", `\|`, "\n", " ").Replace(r[col])
			if isOutcome(col) && cells[j] != "" {
				cells[j] = "**" + cells[j] + "**"
			}
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	return b.String()
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/runcache"
)

// DataKind says what kind of data a result was computed on (lib/data.Kind, named here for tables).
type DataKind = data.Kind

// The kinds of data, as lib/data defines them.
const (
	Real         = data.Real
	LabelDerived = data.LabelDerived
	Synthetic    = data.Synthetic
)

// Provenance records what a table was computed from. Every rendered table states it.
type Provenance struct {
	Data     string   `json:"data"`     // e.g. "Charades-STA test split, GloVe 100-d queries"
	Kind     DataKind `json:"kind"`     // real / label-derived / synthetic
	Seeds    []int64  `json:"seeds"`    // seeds the numbers are aggregated over
	Config   any      `json:"config"`   // the configuration that produced the numbers
	Behavior string   `json:"behavior"` // "official code" or "paper" variant, per docs/official-code.md
	Backend  string   `json:"backend"`  // GoMLX backend and SIMD status (backend.Info)
	Commit   string   `json:"commit"`   // git commit of the code, when known
	Notes    []string `json:"notes"`    // anything a reader must know (caveats, substitutions)
	// Code is the key of the code and backend that computed the numbers (lib/reproduce's Stamp);
	// nil in a table written before it was recorded.
	Code *Code `json:"code,omitempty"`
}

// Code identifies what computed a table the way lib/runcache keys a training run: Source is the
// sha256 of the source of Packages and of every package of this module they import, with go.mod
// (runcache.SourceHash); Backend is the backend as a run key names it, an XLA plugin by its file's
// hash (runcache.Backend); Key is the sha256 of both (reproduce.CodeKey). `geoalign figures
// --status` recomputes them from the checkout to tell a current table from a stale one
// (docs/xla.md §7).
type Code struct {
	Key      string   `json:"key"`
	Packages []string `json:"packages"` // import paths, e.g. github.com/geoalign/geoalign/lib/studies/gramstudy
	Source   string   `json:"source"`
	Backend  string   `json:"backend"`
	// Fallback, when set, says that no checkout was found and the executable was hashed instead
	// (runcache.Source.Fallback): such a key cannot be recomputed from source.
	Fallback string `json:"fallback,omitempty"`
}

// CodeLinePrefix starts the provenance line of a Code in Markdown and HTML ("Code: <key> (…)."):
// the key is the word after it, so a Markdown file can be matched with its JSON sidecar.
const CodeLinePrefix = "Code: "

// line is the provenance line of c (CodeLinePrefix).
func (c *Code) line() string {
	if c.Fallback != "" {
		return fmt.Sprintf("%s%s (no checkout: the executable was hashed instead of the source of %s; backend %s).",
			CodeLinePrefix, c.Key, strings.Join(c.Packages, ", "), c.Backend)
	}
	pkgs := make([]string, len(c.Packages))
	for i, p := range c.Packages {
		pkgs[i] = strings.TrimPrefix(p, runcache.Module+"/")
	}
	return fmt.Sprintf("%s%s (the source of %s and the packages of this module it imports, sha256 %.12s; backend %s).",
		CodeLinePrefix, c.Key, strings.Join(pkgs, ", "), c.Source, c.Backend)
}

// Column of a Table. Paper columns hold numbers quoted from a paper and must cite it.
type Column struct {
	Name  string `json:"name"`
	Paper bool   `json:"paper,omitempty"`
	Cite  string `json:"cite,omitempty"` // e.g. "HLFormer Table 1, Charades-STA row"
}

// Header is the column's display name: paper columns are always marked "(paper)".
func (c Column) Header() string {
	if c.Paper && !strings.Contains(strings.ToLower(c.Name), "paper") {
		return c.Name + " (paper)"
	}
	return c.Name
}

// Table is a results table with provenance.
type Table struct {
	Title      string     `json:"title"`
	Columns    []Column   `json:"columns"`
	Rows       [][]string `json:"rows"`
	Provenance Provenance `json:"provenance"`
}

// NewTable starts a table with plain (computed) columns.
func NewTable(title string, prov Provenance, columns ...string) *Table {
	t := &Table{Title: title, Provenance: prov}
	for _, c := range columns {
		t.Columns = append(t.Columns, Column{Name: c})
	}
	return t
}

// AddPaperColumn appends a column of numbers quoted from a paper, with its citation.
func (t *Table) AddPaperColumn(name, cite string) *Table {
	t.Columns = append(t.Columns, Column{Name: name, Paper: true, Cite: cite})
	return t
}

// AddRow appends a row; cells are formatted with fmt's %v (use Cell helpers for numbers).
// It panics if the number of cells does not match the columns: a table with misaligned
// columns is a bug, not a runtime condition.
func (t *Table) AddRow(cells ...any) *Table {
	if len(cells) != len(t.Columns) {
		panic(fmt.Sprintf("report: table %q has %d columns, row has %d cells", t.Title, len(t.Columns), len(cells)))
	}
	row := make([]string, len(cells))
	for i, c := range cells {
		row[i] = fmt.Sprint(c)
	}
	t.Rows = append(t.Rows, row)
	return t
}

func (t *Table) validate() error {
	if t.Provenance.Data == "" || t.Provenance.Kind == "" {
		return fmt.Errorf("report: table %q has no provenance (data and kind are required)", t.Title)
	}
	for _, c := range t.Columns {
		if c.Paper && c.Cite == "" {
			return fmt.Errorf("report: paper column %q of table %q cites nothing", c.Name, t.Title)
		}
	}
	return nil
}

// provenanceLines is the human-readable provenance shared by Markdown and HTML.
func (t *Table) provenanceLines() []string {
	p := t.Provenance
	lines := []string{fmt.Sprintf("Data: %s (%s).", p.Data, p.Kind)}
	if len(p.Seeds) > 0 {
		lines = append(lines, fmt.Sprintf("Seeds: %v (n = %d); cells are mean ± std over seeds unless the notes say otherwise.", p.Seeds, len(p.Seeds)))
	}
	if p.Behavior != "" {
		lines = append(lines, "Behaviour: "+p.Behavior+".")
	}
	if p.Backend != "" {
		lines = append(lines, "Backend: "+p.Backend+".")
	}
	if p.Commit != "" {
		lines = append(lines, "Commit: "+p.Commit+".")
	}
	if p.Code != nil {
		lines = append(lines, p.Code.line())
	}
	for _, c := range t.Columns {
		if c.Paper {
			lines = append(lines, fmt.Sprintf("Column %q quotes %s (not computed here).", c.Header(), c.Cite))
		}
	}
	lines = append(lines, p.Notes...)
	return lines
}

// provenanceSummary is the one line of the provenance that HTML keeps visible: the data, the seeds'
// count, the floor (the first note that names one), and how many lines the full provenance has.
func (t *Table) provenanceSummary() string {
	p := t.Provenance
	parts := []string{fmt.Sprintf("Data: %s (%s)", p.Data, p.Kind)}
	if len(p.Seeds) > 0 {
		parts = append(parts, fmt.Sprintf("n = %d seeds", len(p.Seeds)))
	}
	for _, n := range p.Notes {
		if strings.Contains(strings.ToLower(n), "floor") {
			parts = append(parts, strings.TrimSuffix(n, "."))
			break
		}
	}
	return strings.Join(parts, " · ") + fmt.Sprintf(" — provenance (%d lines)", len(t.provenanceLines()))
}

// Markdown renders the table with its provenance as a Markdown section.
func (t *Table) Markdown() (string, error) {
	if err := t.validate(); err != nil {
		return "", err
	}
	var b strings.Builder
	if t.Title != "" {
		fmt.Fprintf(&b, "### %s\n\n", t.Title)
	}
	head := make([]string, len(t.Columns))
	sep := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		head[i] = mdEscape(c.Header())
		sep[i] = "---"
	}
	fmt.Fprintf(&b, "| %s |\n| %s |\n", strings.Join(head, " | "), strings.Join(sep, " | "))
	for _, r := range t.Rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = mdEscape(c)
		}
		fmt.Fprintf(&b, "| %s |\n", strings.Join(cells, " | "))
	}
	b.WriteString("\n")
	for _, l := range t.provenanceLines() {
		fmt.Fprintf(&b, "- %s\n", l)
	}
	return b.String(), nil
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// HTML renders the table with its provenance, for notebooks.
func (t *Table) HTML() (string, error) {
	if err := t.validate(); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(`<div class="geoalign-table">`)
	if t.Title != "" {
		fmt.Fprintf(&b, "<b>%s</b>", html.EscapeString(t.Title))
	}
	b.WriteString(`<table><thead><tr>`)
	for _, c := range t.Columns {
		style := ""
		if c.Paper {
			style = ` style="font-style:italic"`
		}
		fmt.Fprintf(&b, "<th%s>%s</th>", style, html.EscapeString(c.Header()))
	}
	b.WriteString("</tr></thead><tbody>")
	for _, r := range t.Rows {
		b.WriteString("<tr>")
		for _, c := range r {
			fmt.Fprintf(&b, "<td>%s</td>", html.EscapeString(c))
		}
		b.WriteString("</tr>")
	}
	// The provenance: its summary (data, seeds, floor) stays visible, every line of it folds under
	// <details> (a table of the studies carries 10–15).
	b.WriteString(`</tbody></table>`)
	fmt.Fprintf(&b, `<details style="font-size:smaller"><summary>%s</summary><ul>`, html.EscapeString(t.provenanceSummary()))
	for _, l := range t.provenanceLines() {
		fmt.Fprintf(&b, "<li>%s</li>", html.EscapeString(l))
	}
	b.WriteString("</ul></details></div>")
	return b.String(), nil
}

// CSV renders the header and rows (provenance goes to the JSON sidecar).
func (t *Table) CSV() (string, error) {
	if err := t.validate(); err != nil {
		return "", err
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	head := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		head[i] = c.Header()
	}
	_ = w.Write(head)
	_ = w.WriteAll(t.Rows)
	w.Flush()
	return buf.String(), w.Error()
}

// Save writes <base>.md, <base>.csv and <base>.json (table plus full provenance),
// creating directories as needed. base has no extension, e.g. "figures/tables/gram". Each file
// is written atomically (lib/atomicfile): an interrupted Save leaves complete files, old or new.
func (t *Table) Save(base string) error {
	md, err := t.Markdown()
	if err != nil {
		return err
	}
	c, err := t.CSV()
	if err != nil {
		return err
	}
	js, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return fmt.Errorf("report: table %q: %w", t.Title, err)
	}
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return err
	}
	for ext, content := range map[string][]byte{".md": []byte(md), ".csv": []byte(c), ".json": append(js, '\n')} {
		if err := atomicfile.WriteFile(base+ext, content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// LoadTable reads a table Save wrote (its <base>.json, with the full provenance), e.g. a committed
// full-run result that a notebook shows beside its own small-scale run.
func LoadTable(path string) (*Table, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var t Table
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("report: %s: %w", path, err)
	}
	if err := t.validate(); err != nil {
		return nil, fmt.Errorf("report: %s: %w", path, err)
	}
	return &t, nil
}

// MeanStd is the mean and sample standard deviation of values over seeds.
type MeanStd struct {
	Mean, Std float64
	N         int
}

// Summarize computes the mean and the sample (n−1) standard deviation; Std is 0 for n = 1.
func Summarize(values []float64) MeanStd {
	n := len(values)
	if n == 0 {
		return MeanStd{Mean: math.NaN(), Std: math.NaN()}
	}
	var s float64
	for _, v := range values {
		s += v
	}
	mean := s / float64(n)
	var ss float64
	for _, v := range values {
		ss += (v - mean) * (v - mean)
	}
	std := 0.0
	if n > 1 {
		std = math.Sqrt(ss / float64(n-1))
	}
	return MeanStd{Mean: mean, Std: std, N: n}
}

// Format prints "m ± s" with the given number of decimals.
func (m MeanStd) Format(decimals int) string {
	return fmt.Sprintf("%.*f ± %.*f", decimals, m.Mean, decimals, m.Std)
}

// String prints with 2 decimals, the papers' convention for recall percentages.
func (m MeanStd) String() string { return m.Format(2) }

package reproduce

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/report"
)

// Artifact is one table or figure of a section with the base name it is saved as under its
// paper's directory (<name>.{md,csv,json} for a table, <name>.{png,svg} for a figure). Exactly one
// of Table and Figure is set; a Figure is a *plot.Plot or a report.Grid of panels.
type Artifact struct {
	Name   string
	Table  *report.Table
	Figure report.Drawer
}

// Section is one part of a paper's reproduction — the evidence every experiment of every study
// returns: its tables and figures, the comparisons it declares for the claim rule and its
// descriptive (or untestable) findings. RunSections decides the claims of all sections of a paper
// together, so that the Holm family is the paper's.
type Section struct {
	Title       string
	Artifacts   []Artifact
	Comparisons []Comparison
	Findings    []Claim
}

// Table adds table t saved as name.
func (s *Section) Table(name string, t *report.Table) {
	s.Artifacts = append(s.Artifacts, Artifact{Name: name, Table: t})
}

// Plot adds figure f (a *plot.Plot or a report.Grid) saved as name.
func (s *Section) Plot(name string, f report.Drawer) {
	s.Artifacts = append(s.Artifacts, Artifact{Name: name, Figure: f})
}

// Tables are the section's tables, in order.
func (s *Section) Tables() []*report.Table {
	var out []*report.Table
	for _, a := range s.Artifacts {
		if a.Table != nil {
			out = append(out, a.Table)
		}
	}
	return out
}

// Save stamps the section's tables (Stamp) and writes every artifact under dir as <name><suffix>.
// Its claims go to claims.json through RunSections.
func (s *Section) Save(dir, suffix string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, a := range s.Artifacts {
		base := filepath.Join(dir, a.Name+suffix)
		var err error
		switch {
		case a.Table != nil:
			Stamp(a.Table)
			err = a.Table.Save(base)
		case a.Figure != nil:
			err = saveFigure(a.Figure, base)
		}
		if err != nil {
			return fmt.Errorf("%s: saving %s: %w", s.Title, a.Name+suffix, err)
		}
	}
	return nil
}

// saveFigure renders f at its default size (report.RenderDefault: a plot, or a grid of panels)
// and saves it as base.{png,svg}.
func saveFigure(f report.Drawer, base string) error {
	fig, err := report.RenderDefault(f)
	if err != nil {
		return err
	}
	return fig.Save(base)
}

// NamedSection is one section of a paper's figures by the name `geoalign figures --sections`
// selects it (Experiment.Sections lists the names).
type NamedSection struct {
	Name string
	Run  func() (*Section, error)
}

// Step is the section name whose content run adds to an empty section titled name.
func Step(name string, run func(sec *Section) error) NamedSection {
	return NamedSection{Name: name, Run: func() (*Section, error) {
		sec := &Section{Title: name}
		return sec, run(sec)
	}}
}

// Names are the names of sections, in order.
func Names(sections []NamedSection) []string {
	out := make([]string, len(sections))
	for i, n := range sections {
		out[i] = n.Name
	}
	return out
}

// DecideSections decides every section's comparisons and findings, then the claims of extra (a
// paper's untestable ones), as one Evidence: one Holm family, each section's comparisons before its
// findings, in the sections' order.
func DecideSections(sections []*Section, extra ...Claim) ([]Claim, error) {
	var e Evidence
	for _, sec := range sections {
		e.Compare(sec.Comparisons...)
		e.Add(sec.Findings...)
	}
	e.Add(extra...)
	return e.Decide()
}

// RunSections is the one driver of a paper's figures: it runs the sections opts wants (Options.Wants),
// in order, saves each one's artifacts under dir as it finishes (Section.Save with suffix), decides
// their claims with extra (DecideSections), writes <dir>/claims.json and records the sections not
// run in <dir>/pending.json (SavePending). It returns the sections run.
func RunSections(opts Options, paper, dir, suffix string, sections []NamedSection, extra ...Claim) ([]*Section, error) {
	var out []*Section
	for _, n := range sections {
		if !opts.Wants(n.Name) {
			continue
		}
		sec, err := n.Run()
		if err != nil {
			return out, err
		}
		if err := sec.Save(dir, suffix); err != nil {
			return out, err
		}
		out = append(out, sec)
	}
	claims, err := DecideSections(out, extra...)
	if err != nil {
		return out, err
	}
	if err := SaveClaims(dir, claims); err != nil {
		return out, err
	}
	return out, SavePending(dir, paper, opts.Skipped(Names(sections)))
}

package reproduce

import (
	"fmt"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/report"
	garestudy "github.com/geoalign/geoalign/lib/studies/garestudy"
)

// GARE (NeurIPS 2025) on the Charades descriptions ↔ videos track (real text, label-derived video
// features) and the synthetic false-negative benchmark, through lib/studies/garestudy.
// Notebook: notebooks/12-gare.ipynb.
func init() {
	Register(Experiment{Paper: "gare", Table1: gareTable1, Figures: gareFigures})
}

// GAREClaims decides the claims the sections declare with one Decide call, so that the Holm family
// is every tested GARE claim of the sections (Table 1, the Table 3 rungs, the ablation tables and
// the synthetic false-negative benchmark together), and appends each section's descriptive
// findings after its comparisons, section by section.
func GAREClaims(sections []*garestudy.Section) ([]Claim, error) {
	var cs []Comparison
	for _, sec := range sections {
		for _, c := range sec.Comparisons {
			cs = append(cs, comparisonOf(c))
		}
	}
	decided, err := Decide(cs)
	if err != nil {
		return nil, err
	}
	var out []Claim
	for _, sec := range sections {
		out = append(out, decided[:len(sec.Comparisons)]...)
		decided = decided[len(sec.Comparisons):]
		for _, f := range sec.Findings {
			out = append(out, Describe(garestudy.Paper, f.Claim, f.PaperFigure, f.Data, f.Ours))
		}
	}
	return out, nil
}

// comparisonOf is the study's declaration as the rule takes it (garestudy cannot import this
// package, which imports it: the fields are the same).
func comparisonOf(c garestudy.Comparison) Comparison {
	out := Comparison{Paper: c.Paper, Claim: c.Claim, PaperFigure: c.PaperFigure, Data: c.Data, Metric: c.Metric, Higher: c.Higher,
		A: Sample(c.A), B: Sample(c.B), Best: c.Best, Random: c.Random, Tautology: c.Tautology}
	if c.Floor != nil {
		f := Sample(*c.Floor)
		out.Floor = &f
	}
	return out
}

func gareScale(opts Options, full garestudy.Scale) garestudy.Scale {
	s := garestudy.CIScale()
	if opts.Full {
		s = full
	}
	if len(opts.Seeds) > 0 {
		s.Seeds = nil
		for _, seed := range opts.Seeds {
			s.Seeds = append(s.Seeds, uint64(seed))
		}
	}
	return s
}

func gareCache(opts Options) string {
	if opts.DataCache != "" {
		return opts.DataCache
	}
	return garestudy.DefaultCache()
}

// gareTable1: baseline vs GARE, text→video and video→text, with the zero-training floor.
// CI-sized: 2,048 training pairs, D = 64, 3 seeds (≈ 1–2 minutes on 2 cores; its claims are
// inconclusive by the rule's seed count); opts.Full: the whole split at D = 128, 5 seeds. The notes
// give the claims as the rule decides them over this table alone.
func gareTable1(opts Options) ([]*report.Table, error) {
	scale := gareScale(opts, garestudy.FullScale())
	suite, err := garestudy.NewSuite(backend.MustNew(), scale, gareCache(opts), garestudy.DefaultWorkDir(scale.Name))
	if err != nil {
		return nil, err
	}
	sec, _, err := suite.Table1()
	if err != nil {
		return nil, err
	}
	claims, err := GAREClaims([]*garestudy.Section{sec})
	if err != nil {
		return nil, err
	}
	t := sec.Artifacts[0].Table
	for _, c := range claims {
		t.Provenance.Notes = append(t.Provenance.Notes, fmt.Sprintf("Claim (reproduce.Decide over this table's %d claims; figures/REPORT.md decides them with every GARE claim): %s",
			len(claims), c))
	}
	return []*report.Table{t}, nil
}

// gareFigures regenerates figures/gare/: every table and figure of the notebook at the full scale
// (the whole Charades split, D = 128, 5 seeds), and claims.json from the rule. Without opts.Full it
// runs the notebook's small scale into the same files (a smoke run; do not commit its output). Runs
// are cached in build/gare-<scale>/, so an interrupted run resumes where it stopped and the
// notebook (FULL=1) reuses them.
func gareFigures(opts Options) error {
	scale := garestudy.SmallScale()
	if opts.Full {
		scale = garestudy.FullScale()
	}
	scale = gareScale(Options{Full: true, Seeds: opts.Seeds}, scale)
	suite, err := garestudy.NewSuite(backend.MustNew(), scale, gareCache(opts), garestudy.DefaultWorkDir(scale.Name))
	if err != nil {
		return err
	}
	dir := filepath.Join(opts.Out, "gare")
	t1, _, err := suite.Table1()
	if err != nil {
		return err
	}
	sections, err := suite.All()
	if err != nil {
		return err
	}
	sections = append([]*garestudy.Section{t1}, sections...)
	for _, sec := range sections {
		for _, a := range sec.Artifacts {
			if a.Table != nil {
				Stamp(a.Table)
			}
		}
	}
	claims, err := GAREClaims(sections)
	if err != nil {
		return err
	}
	if err := garestudy.SaveAll(dir, sections); err != nil {
		return err
	}
	return SaveClaims(dir, claims)
}

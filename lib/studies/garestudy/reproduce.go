package garestudy

import (
	"path/filepath"

	"github.com/geoalign/geoalign/lib/reproduce"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/report"
)

// GARE (NeurIPS 2025) on the Charades descriptions ↔ videos track (real text, label-derived video
// features) and the synthetic false-negative benchmark, through lib/studies/
// Notebook: notebooks/12-gare.ipynb.
func init() {
	reproduce.Register(reproduce.Experiment{Paper: "gare", Table1: gareTable1, Figures: gareFigures})
}

func gareScale(opts reproduce.Options, full Scale) Scale {
	s := CIScale()
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

func gareCache(opts reproduce.Options) string {
	if opts.DataCache != "" {
		return opts.DataCache
	}
	return DefaultCache()
}

// gareTable1: baseline vs GARE, text→video and video→text. CI-sized: 2,048 training pairs, D = 64,
// 3 seeds (≈ 1–2 minutes on 2 cores); opts.Full: the whole split at D = 128.
func gareTable1(opts reproduce.Options) ([]*report.Table, error) {
	scale := gareScale(opts, FullScale())
	suite, err := NewSuite(backend.MustNew(), scale, gareCache(opts), DefaultWorkDir(scale.Name))
	if err != nil {
		return nil, err
	}
	sec, _, err := suite.Table1()
	if err != nil {
		return nil, err
	}
	t := sec.Artifacts[0].Table
	for _, v := range sec.Verdicts {
		t.Provenance.Notes = append(t.Provenance.Notes, "Verdict: "+v.Markdown())
	}
	return []*report.Table{t}, nil
}

// gareFigures regenerates figures/gare/: every table and figure of the notebook at the full scale
// (the whole Charades split, D = 128; about 2.5 hours on a loaded 2-core machine), the verdicts and
// claims.json. Without opts.Full it runs the notebook's small scale into the same files (a smoke
// run; do not commit its output). Runs are cached in build/gare-<scale>/, so an interrupted run
// resumes where it stopped and the notebook (FULL=1) reuses them.
func gareFigures(opts reproduce.Options) error {
	scale := SmallScale()
	if opts.Full {
		scale = FullScale()
	}
	scale = gareScale(reproduce.Options{Full: true, Seeds: opts.Seeds}, scale)
	suite, err := NewSuite(backend.MustNew(), scale, gareCache(opts), DefaultWorkDir(scale.Name))
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
	sections = append([]*Section{t1}, sections...)
	var claims []reproduce.Claim
	for _, sec := range sections {
		for _, a := range sec.Artifacts {
			if a.Table != nil {
				reproduce.Stamp(a.Table)
			}
		}
		for _, v := range sec.Verdicts {
			claims = append(claims, gareClaim(v))
		}
	}
	if err := SaveAll(dir, sections); err != nil {
		return err
	}
	return reproduce.SaveClaims(dir, claims)
}

func gareClaim(v Verdict) reproduce.Claim {
	c := reproduce.Claim{Paper: "gare", Claim: v.Claim, PaperFigure: v.Paper, Ours: v.Ours, Data: v.Data}
	switch v.Result {
	case Holds:
		c.Outcome = reproduce.Holds
	case DoesNotHold:
		c.Outcome, c.Reason = reproduce.DoesNotHold, "measured: the condition fails (or the opposite difference exceeds one standard error)"
	case NotTestable:
		c.Outcome = reproduce.NotTestable
	default:
		c.Outcome, c.Reason = reproduce.Inconclusive, "the seed-paired difference is within one standard error"
	}
	return c
}

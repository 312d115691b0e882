package gramstudy

import (
	"path/filepath"

	"github.com/geoalign/geoalign/lib/reproduce"

	"github.com/geoalign/geoalign/lib/report"
)

// HyperGRAM (CVPR 2026; no public code, summary only) on the tri-modal sets of the GRAM
// reproduction. Notebook: notebooks/11-hypergram.ipynb.
func init() {
	reproduce.Register(reproduce.Experiment{Paper: "hypergram", Table1: hypergramTable1, Figures: hypergramFigures})
}

// hypergramTable1: GRAM vs pure hyperbolic vs HyperGRAM (T→V+A and V+A→T R@1, final α) on the
// three sets. CI-sized: 3 seeds, ≈ 1–2 minutes on 2 cores.
func hypergramTable1(opts reproduce.Options) ([]*report.Table, error) {
	o := studyOptions(opts)
	sets, err := gramSets(o)
	if err != nil {
		return nil, err
	}
	t, vs, err := o.Geometries(Runs{}, sets)
	if err != nil {
		return nil, err
	}
	return []*report.Table{withVerdicts(t, vs)}, nil
}

// hypergramFigures regenerates figures/hypergram/: the main comparison, the volume statistics, the α
// trajectories (from α₀ = 0.5 on every set, and from 0.2 and 0.8 on Tux Paint), the semantic-role
// test on the synthetic hierarchy with varying text richness, the volume–text-length correlation on
// Tux Paint, the Lorentz vs Poincaré low-precision check, and claims.json.
func hypergramFigures(opts reproduce.Options) error {
	o := studyOptions(opts)
	save := figureSaver{dir: filepath.Join(opts.Out, "hypergram")}
	sets, err := gramSets(o)
	if err != nil {
		return err
	}
	tux := sets[1]
	runs := Runs{}
	var verdicts []Verdict

	tr, err := RandomUnitVolumesTable(o, 16, 128, 512)
	if err != nil {
		return err
	}
	if err := save.table("random-unit-volumes", tr, nil); err != nil {
		return err
	}

	tg, vs, err := o.Geometries(runs, sets)
	if err != nil {
		return err
	}
	verdicts = append(verdicts, vs...)
	if err := save.table("geometries", tg, vs); err != nil {
		return err
	}
	tv, vs, err := o.VolumeCollapse(runs, sets)
	if err != nil {
		return err
	}
	verdicts = append(verdicts, vs...)
	if err := save.table("volume-statistics", tv, vs); err != nil {
		return err
	}

	groups := map[string][]*Run{}
	for _, d := range sets {
		groups[ShortName(d)+", α₀ = 0.5"] = runs.Get(d, HyperGRAM.Label)
	}
	for _, a := range []struct {
		label string
		value float64
	}{{"0.2", 0.2}, {"0.8", 0.8}} {
		v := HyperGRAM
		v.Label = "HyperGRAM α₀ = " + a.label
		v.Config.AlphaInit = a.value
		rs, err := o.TrainSeeds(tux, v, 0)
		if err != nil {
			return err
		}
		groups[ShortName(tux)+", α₀ = "+a.label] = rs
	}
	pa, ta, va, err := AlphaTrajectory(o, groups)
	if err != nil {
		return err
	}
	verdicts = append(verdicts, va)
	if err := save.plot("alpha-trajectory", pa); err != nil {
		return err
	}
	if err := save.table("alpha-final", ta, []Verdict{va}); err != nil {
		return err
	}

	rich, err := o.Synthetic(2, 0)
	if err != nil {
		return err
	}
	rs, err := o.TrainSeeds(rich, HyperGRAM, 0)
	if err != nil {
		return err
	}
	ts, vsr, err := o.SemanticRole(rs)
	if err != nil {
		return err
	}
	verdicts = append(verdicts, vsr)
	if err := save.table("semantic-role", ts, []Verdict{vsr}); err != nil {
		return err
	}
	tl, vl, err := o.TextLengthCorrelation(runs.Get(tux, HyperGRAM.Label))
	if err != nil {
		return err
	}
	verdicts = append(verdicts, vl)
	if err := save.table("text-length", tl, []Verdict{vl}); err != nil {
		return err
	}
	traw, err := o.RawLift(tux, runs.Get(tux, HyperGRAM.Label))
	if err != nil {
		return err
	}
	if err := save.table("raw-lift", traw, nil); err != nil {
		return err
	}
	tp, _, vp, err := LowPrecision(o)
	if err != nil {
		return err
	}
	verdicts = append(verdicts, vp...)
	if err := save.table("low-precision", tp, vp); err != nil {
		return err
	}
	return reproduce.SaveClaims(save.dir, claimsOf("HyperGRAM (CVPR 2026)", verdicts))
}

package gramstudy

import (
	"fmt"

	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/geoalign/geoalign/lib/reproduce"
)

// HyperGRAM (CVPR 2026; no public code, summary only) on the tri-modal sets of the GRAM
// reproduction. Notebook: notebooks/11-hypergram.ipynb.
func init() {
	reproduce.Register(reproduce.Experiment{Paper: "hypergram", Figures: figures("hypergram", UntestableHyperGRAM(), hypergramSections),
		Table1: table1(Options.Geometries)})
}

// hypergramSections regenerate figures/hypergram/: the main comparison, the volume statistics, the α
// trajectories (from α₀ = 0.5 on every set, and from 0.2, 0.5 and 0.8 on Tux Paint at the shared
// learning rate and at α's AlphaMobileLR, with the identifiability note), the semantic-role
// test on the synthetic hierarchy with varying text richness, the volume–text-length correlation on
// Tux Paint, the Lorentz vs Poincaré low-precision check, and claims.json. Every table of trained
// models has its <table>-learning-curves figure beside it (or names the figure of its models).
func hypergramSections(o Options, sets []*gram.Dataset, runs Runs) []reproduce.NamedSection {
	tux := sets[1]
	return []reproduce.NamedSection{
		reproduce.Step("random-unit-volumes", func(sec *reproduce.Section) error {
			tr, err := RandomUnitVolumesTable(o, 16, 128, 512)
			sec.Table("random-unit-volumes", tr)
			return err
		}),
		reproduce.Step("geometries", func(sec *reproduce.Section) error {
			tg, cs, err := o.Geometries(runs, sets)
			if err != nil {
				return err
			}
			sec.Comparisons = cs
			return tableWithCurves(sec, "geometries", "geometries", tg, GeometriesCurveRows(runs, sets)...)
		}),
		reproduce.Step("volume-statistics", func(sec *reproduce.Section) error { return o.VolumeCollapse(sec, runs, sets) }),
		reproduce.Step("alpha", func(sec *reproduce.Section) error {
			groups := map[string][]*Run{}
			for _, d := range sets {
				groups[ShortName(d)+", α₀ = 0.5"] = runs.Get(d, HyperGRAM.Label)
			}
			// The starts 0.2 and 0.8 at the shared learning rate; then, for α's identifiability (with the
			// shared rate α can only move a few tenths over a run), the three starts with α's learning
			// rate × AlphaMobileLR, at which it can cross [0, 1].
			for _, a := range []struct{ alpha0, lr float64 }{{0.2, 1}, {0.8, 1}, {0.2, AlphaMobileLR}, {0.5, AlphaMobileLR}, {0.8, AlphaMobileLR}} {
				v := HyperGRAM
				suffix := fmt.Sprintf("α₀ = %g", a.alpha0)
				v.Config.AlphaInit = a.alpha0
				if a.lr != 1 {
					suffix += fmt.Sprintf(", α lr × %g", a.lr)
					v.Config.AlphaLRMultiplier = a.lr
				}
				v.Label = "HyperGRAM " + suffix
				rs, err := o.TrainSeeds(tux, v, 0)
				if err != nil {
					return err
				}
				groups[ShortName(tux)+", "+suffix] = rs
			}
			pa, ta, va, err := AlphaTrajectory(o, groups)
			if err != nil {
				return err
			}
			sec.Findings = []reproduce.Claim{va}
			sec.Plot("alpha-trajectory", pa)
			var alphaRows []CurveRow // one row per data set, its groups by label
			for _, d := range sets {
				g := map[string][]*Run{}
				for label, rs := range groups {
					if rs[0].Data.Name == d.Name {
						g[label] = rs
					}
				}
				alphaRows = append(alphaRows, CurveRow{d, g})
			}
			return tableWithCurves(sec, "alpha-final", "α runs", ta, alphaRows...)
		}),
		reproduce.Step("semantic-role", func(sec *reproduce.Section) error {
			rich, err := o.Synthetic(2, 0)
			if err != nil {
				return err
			}
			rs, err := o.TrainSeeds(rich, HyperGRAM, 0)
			if err != nil {
				return err
			}
			return o.SemanticRole(sec, rs)
		}),
		reproduce.Step("text-length", func(sec *reproduce.Section) error {
			tl, vl, err := o.TextLengthCorrelation(runs.Get(tux, HyperGRAM.Label))
			if err != nil {
				return err
			}
			sec.Findings = []reproduce.Claim{vl}
			tl.Provenance.Notes = append(tl.Provenance.Notes, "the models are the geometries table's HyperGRAM on "+ShortName(tux)+"; "+curvesNote("geometries-learning-curves"))
			sec.Table("text-length", tl)
			return o.RawLift(sec, tux, runs.Get(tux, HyperGRAM.Label))
		}),
		reproduce.Step("low-precision", func(sec *reproduce.Section) error {
			tp, _, vp, err := LowPrecision(o)
			if err != nil {
				return err
			}
			sec.Findings = vp
			sec.Table("low-precision", tp)
			return nil
		}),
	}
}

package gramstudy

import (
	"fmt"

	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
)

// Suite is the GRAM and HyperGRAM studies as `make figures` and notebooks 10 and 11 run them (the
// package doc says what its sections hold): the options, the three tri-modal sets (Options.Sets) and
// the runs their sections share. A section trains what it needs, or reloads it from the run cache
// (Options.CacheDir: every notebook cell is a new program).
type Suite struct {
	Options Options
	Sets    []*gram.Dataset
	Runs    Runs
}

// NewSuite loads the sets of the studies (Options.Sets; a missing real set is a data.BadInput error).
func (o Options) NewSuite() (*Suite, error) {
	sets, err := o.Sets(false)
	return &Suite{Options: o, Sets: sets, Runs: Runs{}}, err
}

// Sections are the sections of paper ("gram" or "hypergram"), in the order `make figures` runs them
// (RunSections). GRAM: Fig. 1 with the losses' initial gradients, Table 1 on the three sets with the
// test learning curves on Tux Paint, then on Tux Paint Fig. 3 and Tables 4, 6 and 7, and Table 4 with
// k = 2 … 5 modalities on the multilingual stamps. HyperGRAM: the volumes of random unit triplets,
// the main comparison of the geometries, the volume statistics, α's trajectories (alpha), the
// semantic role, text length and the raw lift, Lorentz vs Poincaré in low precision. Every table of
// trained models has its <table>-learning-curves figure beside it, or names the figure of its models.
func (s *Suite) Sections(paper string) []reproduce.NamedSection {
	step, o, tux := reproduce.Step, s.Options, s.tux()
	quiet := *s // the same sets and Runs: the models are trained (or reloaded) without progress bars
	quiet.Options.Progress = false
	t1, geo := after(quiet.TrainTable1), after(quiet.TrainGeometries)
	return map[string][]reproduce.NamedSection{
		"gram": {
			step("volume-intuition", s.volumeIntuition),
			step("table1", s.table1),
			step("fig3", t1(func(sec *reproduce.Section) error {
				return o.ScoreVsRecall(sec, "Tux Paint: GRAM alignment score vs R@1 (every epoch, every seed)",
					s.Runs.Groups(tux, table1Variants...), modelsNote("Table 1's", "table1-learning-curves", tux))
			})),
			step("table4", t1(func(sec *reproduce.Section) error { return o.Modalities(sec, s.Runs, tux) })),
			step("table4-k", s.table4K),
			step("table6", t1(func(sec *reproduce.Section) error { return o.LossAblation(sec, s.Runs, tux) })),
			step("table7", t1(func(sec *reproduce.Section) error {
				o.ModalityGap(sec, s.Runs.Get(tux, Pairwise.Label), s.Runs.Get(tux, GRAM.Label), modelsNote("Table 1's", "table1-learning-curves", tux))
				return nil
			})),
		},
		"hypergram": {
			step("random-unit-volumes", func(sec *reproduce.Section) error {
				t, err := RandomUnitVolumesTable(o, 16, 128, 512)
				sec.Table("random-unit-volumes", t)
				return err
			}),
			step("geometries", s.geometries),
			step("volume-statistics", geo(func(sec *reproduce.Section) error { return o.VolumeCollapse(sec, s.Runs, s.Sets) })),
			step("alpha", geo(s.alpha)),
			step("semantic-role", s.semanticRole),
			step("text-length", geo(func(sec *reproduce.Section) error {
				runs := s.Runs.Get(tux, HyperGRAM.Label)
				if err := o.TextLengthCorrelation(sec, runs, modelsNote("the geometries table's HyperGRAM", "geometries-learning-curves", tux)); err != nil {
					return err
				}
				return o.RawLift(sec, tux, runs)
			})),
			step("low-precision", func(sec *reproduce.Section) error {
				t, _, findings := LowPrecision(o)
				sec.Findings = append(sec.Findings, findings...)
				sec.Table("low-precision", t)
				return nil
			}),
		},
	}[paper]
}

// after is the sections that use the models train trains (TrainTable1, TrainGeometries): fill,
// once train has trained or reloaded them into Runs — silently, as the sections of Table 1 and of
// the geometries showed them training.
func after(train func() (*report.Table, []reproduce.Comparison, error)) func(fill func(*reproduce.Section) error) func(*reproduce.Section) error {
	return func(fill func(*reproduce.Section) error) func(*reproduce.Section) error {
		return func(sec *reproduce.Section) error {
			if _, _, err := train(); err != nil {
				return err
			}
			return fill(sec)
		}
	}
}

// Section runs the section called name of either paper (Sections), as a notebook cell shows it.
func (s *Suite) Section(name string) (*reproduce.Section, error) {
	for _, paper := range []string{"gram", "hypergram"} {
		for _, n := range s.Sections(paper) {
			if n.Name == name {
				return n.Run()
			}
		}
	}
	return nil, fmt.Errorf("gramstudy: no section %q (GRAM: %v; HyperGRAM: %v)", name,
		reproduce.Names(s.Sections("gram")), reproduce.Names(s.Sections("hypergram")))
}

func (s *Suite) tux() *gram.Dataset { return s.Sets[1] }

// TrainTable1 trains (or reloads) Table 1's models into Runs — on Tux Paint with per-epoch
// evaluations (the test learning curves and Fig. 3), then on the other sets without — and returns
// Table 1 and its claims (Options.Table1).
func (s *Suite) TrainTable1() (*report.Table, []reproduce.Comparison, error) {
	if _, _, err := s.Options.Table1(s.Runs, []*gram.Dataset{s.tux()}, 1); err != nil {
		return nil, nil, err
	}
	return s.Options.Table1(s.Runs, s.Sets, 0)
}

// modelsNote is the note of a table whose models are another table's: which, and its learning curves.
func modelsNote(table, curves string, d *gram.Dataset) string {
	return "the models are " + table + " on " + ShortName(d) + "; " + curvesNote(curves)
}

func (s *Suite) volumeIntuition(sec *reproduce.Section) error {
	p, maxErr, err := VolumeIntuition(s.Options)
	if err != nil {
		return err
	}
	if maxErr > 1e-9 {
		return fmt.Errorf("gram: volume intuition deviates from the closed form by %g", maxErr)
	}
	sec.Plot("volume-intuition", p)
	tg, err := InitialGradients(s.Options, 64, gram.DefaultConfig().ContraDim)
	sec.Table("initial-gradients", tg)
	return err
}

func (s *Suite) table1(sec *reproduce.Section) error {
	t, cs, err := s.TrainTable1()
	if err != nil {
		return err
	}
	sec.Comparisons = append(sec.Comparisons, cs...)
	if err := tableWithCurves(sec, "table1", "Table 1", t, s.Runs.CurveRows(s.Sets, table1Variants...)...); err != nil {
		return err
	}
	lc, err := LearningCurves("Tux Paint: test T→V+A R@1 by epoch (mean over seeds)", s.Runs.Groups(s.tux(), table1Variants...))
	sec.Plot("learning-curves", lc)
	return err
}

func (s *Suite) table4K(sec *reproduce.Section) error {
	langs, err := s.Options.TuxPaintLangs()
	if err != nil {
		return err
	}
	return s.kModalities(sec, langs)
}

// kModalities adds to sec GRAM's modality-count table on d (ModalityCount: k = 2 … its modalities),
// its learning curves and its plot, saved as table4-k-modalities.
func (s *Suite) kModalities(sec *reproduce.Section, d *gram.Dataset) error {
	km, cs, err := s.Options.ModalityCount(s.Runs, d, GRAM, 0)
	if err != nil {
		return err
	}
	sec.Comparisons = append(sec.Comparisons, cs...)
	if err := tableWithCurves(sec, "table4-k-modalities", "Table 4, k modalities", km.Table(s.Options), km.CurveRow()); err != nil {
		return err
	}
	pk, err := km.Plot()
	sec.Plot("table4-k-modalities", pk)
	return err
}

// TrainGeometries trains (or reloads) the models of HyperGRAM's main comparison on every set into
// Runs and returns its table and claims (Options.Geometries).
func (s *Suite) TrainGeometries() (*report.Table, []reproduce.Comparison, error) {
	return s.Options.Geometries(s.Runs, s.Sets)
}

func (s *Suite) geometries(sec *reproduce.Section) error {
	t, cs, err := s.TrainGeometries()
	if err != nil {
		return err
	}
	sec.Comparisons = append(sec.Comparisons, cs...)
	return tableWithCurves(sec, "geometries", "geometries", t, s.Runs.CurveRows(s.Sets, geometriesVariants...)...)
}

// alpha trains HyperGRAM on Tux Paint from the starts α₀ = 0.2 and 0.8 at the shared learning rate;
// then, for α's identifiability (with the shared rate α can only move a few tenths over a run), from
// the three starts with α's learning rate × AlphaMobileLR, at which it can cross [0, 1]; and shows
// those trajectories with the geometries' HyperGRAM runs (α₀ = 0.5) on every set.
func (s *Suite) alpha(sec *reproduce.Section) error {
	groups := map[string][]*Run{}
	for _, d := range s.Sets {
		groups[ShortName(d)+", α₀ = 0.5"] = s.Runs.Get(d, HyperGRAM.Label)
	}
	tux := s.tux()
	for _, a := range []struct{ alpha0, lr float64 }{{0.2, 1}, {0.8, 1}, {0.2, AlphaMobileLR}, {0.5, AlphaMobileLR}, {0.8, AlphaMobileLR}} {
		v := HyperGRAM
		suffix := fmt.Sprintf("α₀ = %g", a.alpha0)
		v.Config.AlphaInit = a.alpha0
		if a.lr != 1 {
			suffix += fmt.Sprintf(", α lr × %g", a.lr)
			v.Config.AlphaLRMultiplier = a.lr
		}
		v.Label = "HyperGRAM " + suffix
		rs, err := s.Options.TrainSeeds(tux, v, 0)
		if err != nil {
			return err
		}
		groups[ShortName(tux)+", "+suffix] = rs
	}
	return s.Options.AlphaTrajectory(sec, groups)
}

func (s *Suite) semanticRole(sec *reproduce.Section) error {
	rich, err := s.Options.Synthetic(2, 0)
	if err != nil {
		return err
	}
	rs, err := s.Options.TrainSeeds(rich, HyperGRAM, 0)
	if err != nil {
		return err
	}
	return s.Options.SemanticRole(sec, rs)
}

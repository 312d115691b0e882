package gramstudy

import (
	"fmt"
	"maps"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/geoalign/geoalign/lib/runcache"

	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/geoalign/geoalign/lib/report"
)

// GRAM (ICLR 2025) on the tri-modal sets available here: FSDD digits (the largest real set,
// class-level), Tux Paint stamps (real, instance-level) and the synthetic concept hierarchy with 30 %
// uninformative audio (lib/studies/gramstudy). Notebook: notebooks/10-gram.ipynb.
func init() {
	reproduce.Register(reproduce.Experiment{Paper: "gram", Figures: figures("gram", Untestable(), gramSections),
		Table1: table1(func(o Options, runs Runs, sets []*gram.Dataset) (*report.Table, []reproduce.Comparison, error) {
			return o.Table1(runs, sets, 0)
		})})
}

// studyOptions maps the reproduction options to the studies'. The run cache (lib/runcache:
// finished runs with the same data, configuration, seed and model code are reloaded instead of
// retrained, an interrupted one resumes from its last epoch) is runcache.Root: GEOALIGN_RUN_CACHE when set, else
// build/runs for the full configuration — the root the notebooks use (kernel/nb.RunCache) — and
// none for CI.
func studyOptions(opts reproduce.Options) Options {
	fallback := ""
	if opts.Full {
		fallback = filepath.Join("build", "runs")
	}
	cache := runcache.Root(fallback)
	return Options{Full: opts.Full, Seeds: opts.Seeds, DataCache: opts.DataCache, CacheDir: cache, Text: opts.Text}
}

// table1 is the Table1 of a paper: study's table on the three sets (or the synthetic one alone),
// trained without per-epoch evaluations. CI-sized: 3 seeds, ≈ 1–2 minutes on 2 cores. GRAM's
// (Options.Table1): text → image+audio retrieval, GRAM vs pairwise cosine (and GRAM's cosine →
// volume recipe); HyperGRAM's (Options.Geometries): GRAM vs pure hyperbolic vs HyperGRAM (T→V+A
// and V+A→T R@1, final α).
func table1(study func(o Options, runs Runs, sets []*gram.Dataset) (*report.Table, []reproduce.Comparison, error)) func(reproduce.Options) ([]*report.Table, error) {
	return func(opts reproduce.Options) ([]*report.Table, error) {
		o := studyOptions(opts)
		sets, err := o.Sets(opts.Synthetic)
		if err != nil {
			return nil, err
		}
		t, _, err := study(o, Runs{}, sets)
		return []*report.Table{t}, err
	}
}

// tableWithCurves adds to sec a table of trained models saved as name with its learning-curve figure
// <name>-learning-curves beside it (TrainingCurves of rows, titled title) and, in its notes, how
// each group of runs ended on the validation split (ConvergenceNotes).
func tableWithCurves(sec *reproduce.Section, name, title string, t *report.Table, rows ...CurveRow) error {
	g, notes, err := CurvesWithNotes(name+"-learning-curves", title, rows)
	if err != nil {
		return err
	}
	sec.Plot(name+"-learning-curves", g)
	t.Provenance.Notes = append(t.Provenance.Notes, notes...)
	sec.Table(name, t)
	return nil
}

// figures is the Figures of a paper of this package: its sections (GRAM, HyperGRAM: figures as a
// whole, no section can be selected) run under <opts.Out>/<paper> with the paper's untestable
// claims; sections builds them from the study's options, the three sets (Tux Paint second) and an
// empty Runs they share.
func figures(paper string, untestable []reproduce.Claim, sections func(o Options, sets []*gram.Dataset, runs Runs) []reproduce.NamedSection) func(reproduce.Options) error {
	return func(opts reproduce.Options) error {
		if err := opts.NeedsRealData(paper); err != nil {
			return err
		}
		o := studyOptions(opts)
		sets, err := o.Sets(false)
		if err != nil {
			return err
		}
		opts.Sections = nil
		_, err = reproduce.RunSections(opts, paper, filepath.Join(opts.Out, paper), "", sections(o, sets, Runs{}), untestable...)
		return err
	}
}

// gramSections regenerate figures/gram/: the volume intuition (Fig. 1), Table 1 on the three sets
// with learning curves and the alignment-score/R@1 correlation (Fig. 3) on Tux Paint, the modality
// and loss ablations (Tables 4 and 6) and the modality gap (Table 7) on Tux Paint, Table 4 with
// k = 2 … 5 modalities (text, image, speech fr, es, ru) on the multilingual Tux Paint stamps, and
// claims.json. Every table of trained models has its <table>-learning-curves figure beside it.
func gramSections(o Options, sets []*gram.Dataset, runs Runs) []reproduce.NamedSection {
	tux := sets[1]
	groups := map[string][]*Run{} // Table 1's runs on Tux Paint, by variant
	return []reproduce.NamedSection{
		reproduce.Step("volume-intuition", func(sec *reproduce.Section) error {
			p, maxErr, err := VolumeIntuition(o)
			if err != nil {
				return err
			}
			if maxErr > 1e-9 {
				return fmt.Errorf("gram: volume intuition deviates from the closed form by %g", maxErr)
			}
			sec.Plot("volume-intuition", p)
			tg, err := InitialGradients(o, 64, gram.DefaultConfig().ContraDim)
			sec.Table("initial-gradients", tg)
			return err
		}),
		reproduce.Step("table1", func(sec *reproduce.Section) error {
			// Tux Paint first, with per-epoch evaluations (learning curves, Fig. 3); the second call reuses
			// those runs and trains the other sets without them.
			if _, _, err := o.Table1(runs, []*gram.Dataset{tux}, 1); err != nil {
				return err
			}
			t1, cs, err := o.Table1(runs, sets, 0)
			if err != nil {
				return err
			}
			sec.Comparisons = cs
			if err := tableWithCurves(sec, "table1", "Table 1", t1, runs.CurveRows(sets, Pairwise, GRAM, GRAMFromCosine)...); err != nil {
				return err
			}
			maps.Copy(groups, runs.Groups(tux, Pairwise, GRAM, GRAMFromCosine))
			lc, err := LearningCurves("Tux Paint: test T→V+A R@1 by epoch (mean over seeds)", groups)
			sec.Plot("learning-curves", lc)
			return err
		}),
		reproduce.Step("fig3", func(sec *reproduce.Section) error {
			fig3, t3, v3, err := ScoreVsRecall(o, "Tux Paint: GRAM alignment score vs R@1 (every epoch, every seed)", groups)
			if err != nil {
				return err
			}
			sec.Findings = []reproduce.Claim{v3}
			sec.Plot("fig3-score-vs-recall", fig3)
			t3.Provenance.Notes = append(t3.Provenance.Notes, "the models are Table 1's on "+ShortName(tux)+"; "+curvesNote("table1-learning-curves"))
			sec.Table("fig3-score-vs-recall", t3)
			return nil
		}),
		reproduce.Step("table4", func(sec *reproduce.Section) error { return o.Modalities(sec, runs, tux) }),
		reproduce.Step("table4-k", func(sec *reproduce.Section) error {
			langs, err := o.TuxPaintLangs()
			if err != nil {
				return err
			}
			km, cs, err := o.ModalityCount(runs, langs, GRAM, 0)
			if err != nil {
				return err
			}
			sec.Comparisons = cs
			if err := tableWithCurves(sec, "table4-k-modalities", "Table 4, k modalities", km.Table(o), km.CurveRow()); err != nil {
				return err
			}
			pk, err := km.Plot()
			sec.Plot("table4-k-modalities", pk)
			return err
		}),
		reproduce.Step("table6", func(sec *reproduce.Section) error { return o.LossAblation(sec, runs, tux) }),
		reproduce.Step("table7", func(sec *reproduce.Section) error {
			t7, cs := ModalityGap(o, runs.Get(tux, Pairwise.Label), runs.Get(tux, GRAM.Label))
			sec.Comparisons = cs
			t7.Provenance.Notes = append(t7.Provenance.Notes, "the models are Table 1's on "+ShortName(tux)+"; "+curvesNote("table1-learning-curves"))
			sec.Table("table7-modality-gap", t7)
			return nil
		}),
	}
}

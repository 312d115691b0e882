package gramstudy

import (
	"fmt"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/geoalign/geoalign/lib/runcache"

	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/geoalign/geoalign/lib/report"
	"gonum.org/v1/plot"
)

// GRAM (ICLR 2025) on the tri-modal sets available here: FSDD digits (the largest real set,
// class-level), Tux Paint stamps (real, instance-level) and the synthetic concept hierarchy with 30 %
// uninformative audio (lib/studies/gramstudy). Notebook: notebooks/10-gram.ipynb.
func init() {
	reproduce.Register(reproduce.Experiment{Paper: "gram", Table1: gramTable1, Figures: gramFigures})
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

// gramTable1: text → image+audio retrieval, GRAM vs pairwise cosine (and GRAM's cosine → volume
// recipe) on the three sets. CI-sized: 3 seeds, ≈ 1–2 minutes on 2 cores.
func gramTable1(opts reproduce.Options) ([]*report.Table, error) {
	o := studyOptions(opts)
	sets, err := o.Sets(opts.Synthetic)
	if err != nil {
		return nil, err
	}
	t, _, err := o.Table1(Runs{}, sets, 0)
	if err != nil {
		return nil, err
	}
	return []*report.Table{t}, nil
}

// figureSaver writes tables and plots under <out>/<paper>/.
type figureSaver struct{ dir string }

func (s figureSaver) table(name string, t *report.Table) error {
	reproduce.Stamp(t)
	return t.Save(filepath.Join(s.dir, name))
}

// claims decides a paper's evidence under the one claim rule and writes <dir>/claims.json.
func (s figureSaver) claims(e *reproduce.Evidence) error {
	cs, err := e.Decide()
	if err != nil {
		return err
	}
	return reproduce.SaveClaims(s.dir, cs)
}

// tableWithCurves saves a table of trained models with its learning-curve figure
// <name>-learning-curves beside it (TrainingCurves of rows, titled title) and, in its notes, how
// each group of runs ended on the validation split (ConvergenceNotes).
func (s figureSaver) tableWithCurves(name, title string, t *report.Table, rows ...CurveRow) error {
	g, notes, err := CurvesWithNotes(name+"-learning-curves", title, rows)
	if err != nil {
		return err
	}
	if _, err := g.Save(filepath.Join(s.dir, name+"-learning-curves")); err != nil {
		return err
	}
	t.Provenance.Notes = append(t.Provenance.Notes, notes...)
	return s.table(name, t)
}

func (s figureSaver) plot(name string, p *plot.Plot) error {
	_, err := report.SavePlot(p, filepath.Join(s.dir, name))
	return err
}

// gramFigures regenerates figures/gram/: the volume intuition (Fig. 1), Table 1 on the three sets
// with learning curves and the alignment-score/R@1 correlation (Fig. 3) on Tux Paint, the modality
// and loss ablations (Tables 4 and 6) and the modality gap (Table 7) on Tux Paint, Table 4 with
// k = 2 … 5 modalities (text, image, speech fr, es, ru) on the multilingual Tux Paint stamps, and
// claims.json. Every table of trained models has its <table>-learning-curves figure beside it.
func gramFigures(opts reproduce.Options) error {
	if err := opts.NeedsRealData("gram"); err != nil {
		return err
	}
	o := studyOptions(opts)
	save := figureSaver{filepath.Join(opts.Out, "gram")}
	var evidence reproduce.Evidence

	p, maxErr, err := VolumeIntuition(o)
	if err != nil {
		return err
	}
	if maxErr > 1e-9 {
		return fmt.Errorf("gram: volume intuition deviates from the closed form by %g", maxErr)
	}
	if err := save.plot("volume-intuition", p); err != nil {
		return err
	}
	tg, err := InitialGradients(o, 64, gram.DefaultConfig().ContraDim)
	if err != nil {
		return err
	}
	if err := save.table("initial-gradients", tg); err != nil {
		return err
	}
	sets, err := o.Sets(false)
	if err != nil {
		return err
	}
	tux := sets[1]
	runs := Runs{}
	// Tux Paint first, with per-epoch evaluations (learning curves, Fig. 3); the second call reuses
	// those runs and trains the other sets without them.
	if _, _, err := o.Table1(runs, []*gram.Dataset{tux}, 1); err != nil {
		return err
	}
	t1, cs, err := o.Table1(runs, sets, 0)
	if err != nil {
		return err
	}
	evidence.Compare(cs...)
	var rows []CurveRow
	for _, d := range sets {
		rows = append(rows, CurveRow{d, runs.Groups(d, Pairwise, GRAM, GRAMFromCosine)})
	}
	if err := save.tableWithCurves("table1", "Table 1", t1, rows...); err != nil {
		return err
	}
	groups := map[string][]*Run{
		Pairwise.Label:       runs.Get(tux, Pairwise.Label),
		GRAM.Label:           runs.Get(tux, GRAM.Label),
		GRAMFromCosine.Label: runs.Get(tux, GRAMFromCosine.Label),
	}
	lc, err := LearningCurves("Tux Paint: test T→V+A R@1 by epoch (mean over seeds)", groups)
	if err != nil {
		return err
	}
	if err := save.plot("learning-curves", lc); err != nil {
		return err
	}
	fig3, t3, v3, err := ScoreVsRecall(o, "Tux Paint: GRAM alignment score vs R@1 (every epoch, every seed)", groups)
	if err != nil {
		return err
	}
	evidence.Add(v3)
	if err := save.plot("fig3-score-vs-recall", fig3); err != nil {
		return err
	}
	t3.Provenance.Notes = append(t3.Provenance.Notes, "the models are Table 1's on "+ShortName(tux)+"; "+curvesNote("table1-learning-curves"))
	if err := save.table("fig3-score-vs-recall", t3); err != nil {
		return err
	}
	t4, cs, err := o.Modalities(runs, tux)
	if err != nil {
		return err
	}
	evidence.Compare(cs...)
	if err := save.tableWithCurves("table4-modalities", "Table 4", t4, CurveRow{tux, modalityRuns(runs, tux)}); err != nil {
		return err
	}
	langs, err := o.TuxPaintLangs()
	if err != nil {
		return err
	}
	km, cs, err := o.ModalityCount(runs, langs, GRAM, 0)
	if err != nil {
		return err
	}
	evidence.Compare(cs...)
	if err := save.tableWithCurves("table4-k-modalities", "Table 4, k modalities", km.Table(o), km.CurveRow()); err != nil {
		return err
	}
	pk, err := km.Plot()
	if err != nil {
		return err
	}
	if err := save.plot("table4-k-modalities", pk); err != nil {
		return err
	}
	t6, cs, err := o.LossAblation(runs, tux)
	if err != nil {
		return err
	}
	evidence.Compare(cs...)
	if err := save.tableWithCurves("table6-loss-ablation", "Table 6", t6, CurveRow{tux, runs.Groups(tux, lossAblationVariants()...)}); err != nil {
		return err
	}
	t7, cs := ModalityGap(o, runs.Get(tux, Pairwise.Label), runs.Get(tux, GRAM.Label))
	evidence.Compare(cs...)
	t7.Provenance.Notes = append(t7.Provenance.Notes, "the models are Table 1's on "+ShortName(tux)+"; "+curvesNote("table1-learning-curves"))
	if err := save.table("table7-modality-gap", t7); err != nil {
		return err
	}
	evidence.Add(Untestable()...)
	return save.claims(&evidence)
}

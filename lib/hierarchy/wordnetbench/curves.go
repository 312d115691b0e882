package wordnetbench

import (
	"fmt"

	"github.com/geoalign/geoalign/lib/hierarchy"
	"github.com/geoalign/geoalign/lib/report"
	"gonum.org/v1/plot"
)

// LearningCurves is the benchmark's learning-curve figure: one panel per model (in the order of
// the runs), in each the mean training loss per epoch of every dimension and dtype, mean ± s.e.
// over the seeds (report.LearningCurves). Losses of different models are not on one scale (the
// Euclidean one uses the squared distance), hence the panels.
func (r *Results) LearningCurves() (report.Grid, error) {
	var models []hierarchy.Manifold
	panels := map[hierarchy.Manifold][]report.Curve{}
	for _, g := range r.groups() {
		m := g.cfg.Manifold
		if _, ok := panels[m]; !ok {
			models = append(models, m)
		}
		panels[m] = append(panels[m], report.Curve{Label: fmt.Sprintf("d = %d, %s", g.cfg.Dim, dtypeName(g.cfg.DType)), PerRun: runLosses(g.runs)})
	}
	row := make([]*plot.Plot, 0, len(models))
	for _, m := range models {
		p, err := report.LearningCurves(fmt.Sprintf("WordNet %s closure, %s: training loss per epoch", r.ClosureName, m),
			"training loss (mean over the epoch's batches)", panels[m]...)
		if err != nil {
			return nil, err
		}
		row = append(row, p)
	}
	return report.Grid{row}, nil
}

// CurveNote is the reconstruction table's note on its learning curves (figure name beside the
// table): every run keeps its last epoch, and whether the loss is flat there (keptLastNote).
func (r *Results) CurveNote(name string) string {
	if len(r.Runs) == 0 {
		return ""
	}
	var arms [][][]float64
	for _, g := range r.groups() {
		arms = append(arms, runLosses(g.runs))
	}
	return keptLastNote(name, r.Runs[0].Config, "", arms...)
}

func runLosses(runs []Run) [][]float64 {
	out := make([][]float64, len(runs))
	for i, run := range runs {
		out[i] = run.Loss
	}
	return out
}

// keptLastNote is the note on the learning curves (figure name) of runs trained with cfg's epochs
// and burn-in that keep their last epoch — Nickel & Kiela's protocol selects nothing — with extra
// appended to that sentence, and report.EndOfCurves on the training loss of each group of runs
// (arms[g][r]: run r of group g, its loss per epoch): whether one more epoch would move a run more
// than the seeds differ.
func keptLastNote(name string, cfg hierarchy.Config, extra string, arms ...[][]float64) string {
	kept := make([][]int, len(arms))
	for g, runs := range arms {
		for _, l := range runs {
			kept[g] = append(kept[g], len(l)-1)
		}
	}
	return fmt.Sprintf("Learning curve: %s (training loss per epoch, mean ± s.e. over seeds; the burn-in's %d epochs at lr/10 first). "+
		"No validation split and no model selection: every run keeps its last epoch (%d), as Nickel & Kiela's protocol does%s. %s",
		name, cfg.BurnInEpochs, cfg.Epochs, extra, report.EndOfCurves("training loss", arms, kept))
}

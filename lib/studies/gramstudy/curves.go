package gramstudy

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/geoalign/geoalign/lib/report"
	"gonum.org/v1/plot/plotutil"
)

// CurveRow is one row of a learning-curve figure: the groups of runs (label → the seeds of one
// variant) trained on one data set.
type CurveRow struct {
	Data   *gram.Dataset
	Groups map[string][]*Run
}

// stages is a run's per-epoch history with a warm start's epochs first (GRAMFromCosine): the
// curve of the whole training, as its epochs were spent.
func stages(r *Run) []gram.EpochStats {
	return append(append([]gram.EpochStats(nil), r.WarmHistory...), r.History...)
}

// TrainingCurves is the learning-curve figure beside a table (report.CurvesGrid): one row per data
// set with two panels — the validation T→data SumR (the metric that selects the model,
// retrieval.ValMetric, on the validation split carved from train) and the mean training loss of each
// epoch — one line per group, the mean over its seeds with ± one standard error. A warm-started
// variant's curve runs through both stages (its loss and its score change at the switch). Groups
// without a training history (the ensemble) are left out. The legend (every group of every row) is
// drawn below the panels.
func TrainingCurves(title string, rows []CurveRow) (report.Grid, error) {
	all := map[string]bool{}
	for _, row := range rows {
		for label := range row.Groups {
			all[label] = true
		}
	}
	labels := sortedKeys(all)
	var panels [][]report.Panel
	for _, row := range rows {
		val := report.Panel{Title: fmt.Sprintf("%s — %s: validation", title, ShortName(row.Data)), YLabel: "validation T→data SumR (%)"}
		loss := report.Panel{Title: fmt.Sprintf("%s — %s: training loss", title, ShortName(row.Data)), YLabel: "mean training loss of the epoch"}
		for i, label := range labels {
			rs := row.Groups[label]
			if len(rs) == 0 || len(stages(rs[0])) == 0 {
				continue
			}
			v, l := groupCurves(label, rs)
			v.Dashes, l.Dashes = plotutil.Dashes(i), plotutil.Dashes(i)
			if slices.ContainsFunc(v.PerRun, func(vs []float64) bool {
				return slices.ContainsFunc(vs, func(x float64) bool { return !math.IsNaN(x) })
			}) {
				val.Curves = append(val.Curves, v)
			}
			loss.Curves = append(loss.Curves, l)
		}
		panels = append(panels, []report.Panel{val, loss})
	}
	if len(panels) == 0 {
		return nil, fmt.Errorf("study.TrainingCurves: no rows")
	}
	return report.CurvesGrid(labels, panels...)
}

// groupCurves are the validation T→data SumR (NaN at an epoch without validation) and the training
// loss per epoch of each run of a group (epochCurve).
func groupCurves(label string, rs []*Run) (val, loss report.Curve) {
	val = epochCurve(label, rs, func(h gram.EpochStats) float64 {
		if h.Validation == nil {
			return math.NaN()
		}
		return h.Validation.T2V.SumR
	})
	return val, epochCurve(label, rs, func(h gram.EpochStats) float64 { return h.Loss })
}

// epochCurve is f of every epoch of each run of a group, through both stages of a warm start (stages).
func epochCurve(label string, rs []*Run, f func(gram.EpochStats) float64) report.Curve {
	c := report.Curve{Label: label}
	for _, r := range rs {
		var vs []float64
		for _, h := range stages(r) {
			vs = append(vs, f(h))
		}
		c.PerRun = append(c.PerRun, vs)
	}
	return c
}

// ConvergenceNotes are a table's notes on how its runs ended on the validation split: one per
// group of each row (sorted by label) with the selected (best-validation) epoch of the final stage
// over the runs, out of how many; then one per row saying whether the runs whose best epoch is
// their last are flat there or still rising (report.EndOfCurves, the project's one rule) — the
// evidence that the epochs suffice. Groups without a history (the ensemble) are skipped.
func ConvergenceNotes(rows []CurveRow) []string {
	var notes []string
	for _, row := range rows {
		var curves [][][]float64
		var selected [][]int
		for _, label := range sortedKeys(row.Groups) {
			var best []float64
			var vals [][]float64
			var idx []int
			epochs := 0
			for _, r := range row.Groups[label] {
				if r.Trainer == nil || r.Trainer.ValSplit == nil || len(r.History) == 0 {
					continue
				}
				v, i, e := validationCurve(r.History)
				best, epochs = append(best, float64(e)), max(epochs, len(r.History))
				vals, idx = append(vals, v), append(idx, i)
			}
			if len(best) == 0 {
				continue
			}
			curves, selected = append(curves, vals), append(selected, idx)
			stage := ""
			if row.Groups[label][0].WarmHistory != nil {
				stage = " (volume stage)"
			}
			notes = append(notes, fmt.Sprintf("validation curve of %s%s on %s: best epoch %s of %d (%d runs)",
				label, stage, ShortName(row.Data), epochRange(best), epochs, len(best)))
		}
		if len(curves) == 0 {
			continue
		}
		end := cmp.Or(report.EndOfCurves("validation SumR", curves, selected), "no run's best epoch is its last.")
		notes = append(notes, fmt.Sprintf("%s, end of the validation curves: %s", ShortName(row.Data), end))
	}
	return notes
}

// validationCurve is a history's validation T→data SumR per evaluated epoch, the index in it of
// the selected (last Best) epoch (−1 if none) and that epoch's 1-based number (0 if none).
func validationCurve(h []gram.EpochStats) (sumR []float64, best, epoch int) {
	best = -1
	for _, s := range h {
		if s.Best {
			epoch = s.Epoch
		}
		if s.Validation == nil {
			continue
		}
		if s.Best {
			best = len(sumR)
		}
		sumR = append(sumR, s.Validation.T2V.SumR)
	}
	return sumR, best, epoch
}

// epochRange is "m" or "median m, a–b" of the best epochs.
func epochRange(best []float64) string {
	s := slices.Sorted(slices.Values(best))
	med := s[len(s)/2]
	if s[0] == s[len(s)-1] {
		return fmt.Sprintf("%.0f", med)
	}
	return fmt.Sprintf("median %.0f, range %.0f–%.0f", med, s[0], s[len(s)-1])
}

// ValidationNote is a table's note on model selection and the training budget of d, from the
// configuration: the validation split's size and how it is carved, the epochs (Options.Epochs) and
// the learning rate, all chosen on that split.
func (o Options) ValidationNote(d *gram.Dataset, cfg gram.Config) string {
	nVal, how := 0, "the data set's own validation split"
	if d.Val != nil {
		nVal = d.Val.N
	} else if _, held, err := data.CarveValidation(d.Train.N, cfg.ValFraction); err == nil {
		nVal = len(held)
		how = fmt.Sprintf("%g of the train split carved out by data.CarveValidation (gram.CarveValidation, ValFraction %g)", cfg.ValFraction, cfg.ValFraction)
	}
	budget := "Budget chosen on that validation split: %d epochs at lr %g (AdamW, warmup_linear %g, batch %d; Options.Epochs, sweep lib/cmd/gramcurves)"
	if o.Base != nil {
		budget = "Budget: the base configuration's %d epochs at lr %g (AdamW, warmup_linear %g, batch %d)"
	}
	return fmt.Sprintf("%s: the model of the epoch with the best validation T→data SumR is kept; validation: %d tuples, %s; the test split selects nothing. "+
		budget, ShortName(d), nVal, how, o.Epochs(d), cfg.LearningRate, cfg.Warmup, cfg.BatchSize)
}

// CurvesWithNotes is the learning-curve figure of rows (TrainingCurves, titled title) that a table
// shows beside it as file name (without extension), and the table's notes on it: the note naming
// the figure, then how the runs ended on the validation split (ConvergenceNotes).
func CurvesWithNotes(name, title string, rows []CurveRow) (report.Grid, []string, error) {
	g, err := TrainingCurves(title, rows)
	if err != nil {
		return nil, nil, err
	}
	return g, append([]string{curvesNote(name)}, ConvergenceNotes(rows)...), nil
}

// curvesNote names the learning-curve figure beside a table.
func curvesNote(name string) string {
	return "learning curves (validation T→data SumR and training loss per epoch, mean ± s.e. over seeds): " + name + ".png"
}

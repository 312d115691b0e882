package garestudy

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/train"
	"gonum.org/v1/plot/vg"
)

// Stage1Curve names the learning curve of stage 1 (the baseline pretraining every variant of a
// seed starts from) in the learning-curve figures.
const Stage1Curve = "stage 1 (shared encoders)"

// curveValue picks what a learning-curve figure plots from one record.
type curveValue struct {
	label string
	of    func(train.Record) (float64, bool)
}

var (
	trainLoss = curveValue{"train loss (mean over the epoch's steps)", func(r train.Record) (float64, bool) { return r.Loss, true }}
	valSumR   = curveValue{"validation t2v SumR (R@1 + R@5 + R@10)", func(r train.Record) (float64, bool) {
		v, ok := r.Val[retrieval.ValMetric]
		return v, ok
	}}
)

// LearningCurves are the learning-curve figures of the runs (issue 19): per epoch, the mean train
// loss (loss) and the validation SumR (val, retrieval.ValMetric on the split carved from train),
// each two panels side by side — stage 1 (one curve, Stage1Curve, dashed: every variant of a seed
// starts from the same stage-1 model) at its epochs 1…P, and every variant's stage 2 at its epochs
// 1…E in its own panel, so that a few stage-2 epochs are not crowded into the end of stage 1's axis.
// Each point is the mean over the seeds with an error bar of ± one standard error (std/√n); the
// legend below the panels names every curve. title names the table.
func (r *Runs) LearningCurves(title string) (loss, val report.Grid, err error) {
	if loss, err = r.curveFigure(title+": train loss per epoch", trainLoss); err != nil {
		return nil, nil, err
	}
	val, err = r.curveFigure(title+": validation SumR per epoch", valSumR)
	return loss, val, err
}

// stages are the lines of the learning-curve figures, per seed: stage 1 (Stage1Curve, the first
// variant's runs: every variant of a seed shares it), then every variant's stage 2; and their names.
func (r *Runs) stages() (names []string, curves [][][]train.Record) {
	names = append([]string{Stage1Curve}, mapped(r.Variants, func(v Variant) string { return v.Name })...)
	curves = [][][]train.Record{mapped(r.Results[0].Results, func(res Result) []train.Record { return res.PretrainCurve })}
	for _, runs := range r.Results {
		curves = append(curves, mapped(runs.Results, func(res Result) []train.Record { return res.Curve }))
	}
	return names, curves
}

func (r *Runs) curveFigure(title string, v curveValue) (report.Grid, error) {
	names, curves := r.stages()
	colors := report.Colors(names...)
	stage1 := report.Panel{Title: title + " — stage 1", XLabel: "stage-1 epoch", YLabel: v.label}
	stage2 := report.Panel{Title: title + " — stage 2", XLabel: "stage-2 epoch", YLabel: v.label}
	for i, name := range names {
		c := report.Curve{Label: name, PerRun: mapped(curves[i], func(c []train.Record) []float64 { return perEpoch(c, v) })}
		switch {
		case i == 0:
			c.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			stage1.Curves = append(stage1.Curves, c)
			continue
		case slices.Contains(colors[1:i], colors[i]):
			// a variant of the same method as an earlier line (e.g. a longer run, LongerTraining): dotted
			c.Dashes = []vg.Length{vg.Points(1.5), vg.Points(1.5)}
		}
		stage2.Curves = append(stage2.Curves, c)
	}
	g, err := report.CurvesGrid(names, []report.Panel{stage1, stage2})
	if err != nil {
		return nil, fmt.Errorf("garestudy: %s (runs cached before curves were kept?): %w", title, err)
	}
	return g, nil
}

// perEpoch is v of each record of a curve at index epoch − 1, NaN at an epoch without a record or a
// value (report.Curve).
func perEpoch(curve []train.Record, v curveValue) []float64 {
	var out []float64
	for _, rec := range curve {
		for len(out) < rec.Epoch {
			out = append(out, math.NaN())
		}
		if y, ok := v.of(rec); ok && rec.Epoch > 0 {
			out[rec.Epoch-1] = y
		}
	}
	return out
}

// CurveNote is the table note on model selection and the learning curves of the runs (figures
// name-curves-loss and name-curves-val beside the table): the validation split, and per variant the
// best (kept) stage-2 epoch of every seed, with the runs whose best epoch is their last named.
func (r *Runs) CurveNote(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Learning curves: %s-curves-loss and %s-curves-val (train loss and validation SumR per epoch of both stages, mean ± s.e. over seeds). ", name, name)
	names, curves := r.stages()
	names[0] = "stage 1"
	var atLast []string
	vals, best := make([][][]float64, len(curves)), make([][]int, len(curves))
	for i, seeds := range curves {
		var eps []string
		for s, c := range seeds {
			e := bestEpoch(c)
			eps = append(eps, fmt.Sprint(e))
			if n := len(c); n > 0 && e == c[n-1].Epoch {
				atLast = append(atLast, fmt.Sprintf("%s seed %d", names[i], r.Results[max(i-1, 0)].Results[s].Seed))
			}
			y, k := validationValues(c)
			vals[i], best[i] = append(vals[i], y), append(best[i], k)
		}
		if i == 0 {
			fmt.Fprintf(&b, "Best (kept) epoch per seed of stage 1: %s; of stage 2:", strings.Join(eps, ", "))
		} else {
			fmt.Fprintf(&b, " %s %s;", names[i], strings.Join(eps, ", "))
		}
	}
	if len(atLast) == 0 {
		b.WriteString(" no run's best epoch is its last.")
	} else {
		// report.EndOfCurves over the validation curves of stage 1 (one group) and of every variant's stage 2
		fmt.Fprintf(&b, " best epoch = last epoch: %s. %s", strings.Join(atLast, "; "), report.EndOfCurves("validation SumR", vals, best))
	}
	return b.String()
}

// validationValues are the validation SumR values of a curve's records that have one, and the index
// among them of the kept record (the last marked Best; −1 without one).
func validationValues(curve []train.Record) (vals []float64, best int) {
	best = -1
	for _, rec := range curve {
		if y, ok := valSumR.of(rec); ok {
			if rec.Best {
				best = len(vals)
			}
			vals = append(vals, y)
		}
	}
	return vals, best
}

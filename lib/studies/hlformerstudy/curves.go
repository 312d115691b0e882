package hlformerstudy

import (
	"fmt"
	"strings"

	"github.com/geoalign/geoalign/lib/models/hlformer"
	"github.com/geoalign/geoalign/lib/report"
	"gonum.org/v1/plot"
)

// LearningCurves are the learning-curve figures beside a table of runs (issue 19): per epoch, the
// mean training loss (the weighted total of hlformer.LossTermNames) and the validation SumR that
// selects the epoch (on the split carved from train, never test), one curve per variant, each the
// mean ± standard error over the variant's seeds (report.LearningCurves). title names the table.
func LearningCurves(title string, runs []*Runs) (loss, val *plot.Plot, err error) {
	var lc, vc []report.Curve
	for _, r := range runs {
		lc = append(lc, report.Curve{Label: r.Variant.Name, PerRun: collect(r.Results, func(res Run) []float64 {
			return collect(res.History, func(h hlformer.EpochStats) float64 { return h.Loss[0] }) // LossTermNames[0]: the total
		})})
		vc = append(vc, report.Curve{Label: r.Variant.Name, PerRun: collect(r.Results, valCurve)})
	}
	if loss, err = report.LearningCurves(title+": training loss per epoch", "mean training loss of the epoch ("+hlformer.LossTermNames[0]+")", lc...); err != nil {
		return nil, nil, err
	}
	if val, err = report.LearningCurves(title+": validation SumR per epoch", "validation SumR (R@1 + R@5 + R@10 + R@100, %)", vc...); err != nil {
		return nil, nil, err
	}
	return loss, val, nil
}

// CurvesNote is the table note that names its learning-curve figures (the files loss and val) and gives each variant's selected (best validation) epoch per seed, 1-based as
// in the figures, naming the runs whose best epoch is their last one and saying whether their
// validation curves are flat or still rising there (report.EndOfCurves).
func CurvesNote(loss, val string, runs []*Runs) string {
	var parts, last []string
	curves, best := make([][][]float64, len(runs)), make([][]int, len(runs))
	for v, r := range runs {
		var epochs []string
		for i, res := range r.Results {
			curves[v], best[v] = append(curves[v], valCurve(res)), append(best[v], res.BestEpoch)
			epochs = append(epochs, fmt.Sprint(res.BestEpoch+1))
			if n := len(res.History); n > 0 && res.BestEpoch == n-1 {
				last = append(last, fmt.Sprintf("%s seed %d", ShortName(r.Variant.Name), r.Seeds[i]))
			}
		}
		parts = append(parts, fmt.Sprintf("%s %s", ShortName(r.Variant.Name), strings.Join(epochs, ", ")))
	}
	note := fmt.Sprintf("Learning curves: %s and %s (training loss and validation SumR per epoch, "+
		"mean ± s.e. over seeds). Selected (best validation SumR) epoch per seed, 1-based: %s.", loss, val, strings.Join(parts, "; "))
	if len(last) > 0 {
		note += fmt.Sprintf(" Best epoch = last epoch (warmup_linear decays the learning rate to 0 there) for %d of the runs: %s. %s",
			len(last), strings.Join(last, ", "), report.EndOfCurves("validation SumR", curves, best))
	}
	return note
}

// valCurve is the validation SumR of every epoch of res.
func valCurve(res Run) []float64 {
	return collect(res.History, func(h hlformer.EpochStats) float64 { return h.Val.SumR })
}

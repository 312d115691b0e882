package study

import (
	"fmt"
	"math"

	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/geoalign/geoalign/lib/report"
	"gonum.org/v1/gonum/stat"
)

// Metric reads one number from an evaluation.
type Metric func(gram.Evaluation) float64

// The metrics of the tables: R@K of either direction.
var (
	T2VR1  Metric = func(e gram.Evaluation) float64 { return e.T2V.R(1) }
	V2TR1  Metric = func(e gram.Evaluation) float64 { return e.V2T.R(1) }
	T2VR10 Metric = func(e gram.Evaluation) float64 { return e.T2V.R(10) }
	V2TR10 Metric = func(e gram.Evaluation) float64 { return e.V2T.R(10) }
)

// Values applies m to every run's own evaluation.
func Values(runs []*Run, m Metric) []float64 {
	out := make([]float64, len(runs))
	for i, r := range runs {
		out[i] = m(r.Eval)
	}
	return out
}

// Cell is "mean ± std" of a metric over runs.
func Cell(runs []*Run, m Metric) string { return report.Summarize(Values(runs, m)).Format(1) }

// Verdict compares the claim "a > b" on paired per-seed values (same seeds, same data): it holds when
// the mean paired difference is positive and more than twice its standard error, does not hold when
// it is negative by as much, and is within seed noise otherwise (reported as not holding: the claim
// is an improvement).
type Verdict struct {
	Claim    string
	Diff     report.MeanStd // paired differences a − b
	StdErr   float64
	Holds    bool
	Reversed bool // significantly b > a
	// NotTestable marks claims the data here cannot decide (Statement says why).
	NotTestable bool
	Statement   string // Markdown verdict line for notebooks
	Why         string // the reason of a verdict that does not hold, in words
	Ours        string // the computed numbers the verdict rests on
	Paper       string // the paper's corresponding number(s), with their table (set by the study)
	Data        string // which data (set by the study)
}

// Markdown is the verdict line a notebook shows (kernel/nb.Show).
func (v Verdict) Markdown() string { return v.Statement }

// Compare builds the verdict of claim "a > b" from paired per-seed values of the two labelled
// models.
func Compare(claim, aLabel string, a []float64, bLabel string, b []float64) Verdict {
	if len(a) != len(b) || len(a) == 0 {
		panic(fmt.Sprintf("study.Compare: %d vs %d paired values", len(a), len(b)))
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	v := Verdict{Claim: claim, Diff: report.Summarize(d)}
	v.Ours = fmt.Sprintf("%s %s vs %s %s (Δ = %s, n = %d)", aLabel, report.Summarize(a).Format(1), bLabel, report.Summarize(b).Format(1), v.Diff.Format(2), len(a))
	v.StdErr = v.Diff.Std / math.Sqrt(float64(len(d)))
	n := len(d)
	switch {
	case v.Diff.Mean > 0 && v.Diff.Mean > 2*v.StdErr:
		v.Holds = true
		v.Statement = fmt.Sprintf("**holds**: %s (Δ = %s points, n = %d seeds, > 2 standard errors)", claim, v.Diff.Format(2), n)
	case v.Diff.Mean < 0 && -v.Diff.Mean > 2*v.StdErr:
		v.Reversed = true
		v.Why = "the opposite is measured, beyond 2 standard errors of the seed-paired difference"
		v.Statement = fmt.Sprintf("**does not hold**: %s — the opposite is measured (Δ = %s points, n = %d seeds)", claim, v.Diff.Format(2), n)
	default:
		v.Why = "the seed-paired difference is within 2 standard errors"
		v.Statement = fmt.Sprintf("**does not hold**: %s — the difference is within seed noise (Δ = %s points, n = %d seeds, < 2 standard errors)", claim, v.Diff.Format(2), n)
	}
	return v
}

// Pearson is the Pearson correlation of x and y (gonum).
func Pearson(x, y []float64) float64 { return stat.Correlation(x, y, nil) }

// provenance is the table provenance shared by the studies' tables.
func provenance(o Options, data []*gram.Dataset, behavior string, notes ...string) report.Provenance {
	p := report.Provenance{Seeds: o.seeds(), Behavior: behavior}
	kinds := map[report.DataKind]bool{}
	for i, d := range data {
		if i > 0 {
			p.Data += "; "
		}
		p.Data += d.Name
		kinds[d.Kind] = true
		p.Notes = append(p.Notes, d.Notes...)
		p.Notes = append(p.Notes, fmt.Sprintf("%s: %d training epochs, %d train / %d test samples", ShortName(d), o.Epochs(d), d.Train.N, d.Test.N))
	}
	switch {
	case len(kinds) > 1:
		p.Kind = report.DataKind("real and synthetic")
	case kinds[report.Real]:
		p.Kind = report.Real
	default:
		p.Kind = report.Synthetic
	}
	size := "CI-sized configuration"
	if o.Full {
		size = "full configuration (FULL=1)"
	}
	p.Notes = append(p.Notes, size)
	p.Notes = append(p.Notes, notes...)
	return p
}

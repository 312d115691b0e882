package report

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Series is one named curve of a Lines plot.
type Series struct {
	Name string
	Y    []float64
}

// Lines plots each series against x (their common abscissa, e.g. the training step) as a line in
// the project's colours (Colors: a series named after a method gets the method's colour), with a
// legend entry per series. Labels should carry units. Every series must have len(x) values. When
// every x is a whole number (steps, epochs, indices) the x axis is labelled with WholeTicks.
func Lines(title, xLabel, yLabel string, x []float64, series ...Series) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, xLabel, yLabel
	names := make([]string, len(series))
	for i, s := range series {
		names[i] = s.Name
	}
	colors := Colors(names...)
	for i, s := range series {
		if len(s.Y) != len(x) {
			return nil, fmt.Errorf("report: series %q has %d values for %d abscissae", s.Name, len(s.Y), len(x))
		}
		xys := make(plotter.XYs, len(x))
		for k := range x {
			xys[k] = plotter.XY{X: x[k], Y: s.Y[k]}
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("report: series %q: %w", s.Name, err)
		}
		l.Color = colors[i]
		p.Add(l)
		p.Legend.Add(s.Name, l)
	}
	if whole(x) {
		p.X.Tick.Marker = WholeTicks
	}
	return p, nil
}

// whole reports whether every value of x is a whole number.
func whole(x []float64) bool {
	for _, v := range x {
		if v != math.Trunc(v) {
			return false
		}
	}
	return true
}

// Histograms overlays the distributions of several samples (each Series' Y holds one sample) as
// lines over a shared binning of their common range into bins bins: the fraction of each
// sample per bin, in the project's colours, one legend entry per sample. Lines rather than
// bars, so that overlapping distributions stay readable.
func Histograms(title, xLabel string, bins int, samples ...Series) (*plot.Plot, error) {
	if bins < 1 {
		return nil, fmt.Errorf("report: histogram %q with %d bins", title, bins)
	}
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, xLabel, "fraction"
	names := make([]string, len(samples))
	for i, s := range samples {
		names[i] = s.Name
	}
	colors := Colors(names...)
	centres, fractions := binFractions(bins, samples)
	for i, s := range samples {
		xys := make(plotter.XYs, bins)
		for b := range xys {
			xys[b] = plotter.XY{X: centres[b], Y: fractions[i][b]}
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("report: histogram of %q: %w", s.Name, err)
		}
		l.Color = colors[i]
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(s.Name, l)
	}
	return p, nil
}

// binFractions cuts the samples' common range [lo, hi] into bins equal bins (the last one closed;
// [lo, lo + 1] when every value is equal) and returns the bins' centres and, per sample, the
// fraction of its values in each bin.
func binFractions(bins int, samples []Series) (centres []float64, fractions [][]float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range samples {
		for _, x := range s.Y {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	if !(hi > lo) {
		hi = lo + 1
	}
	centres = make([]float64, bins)
	for b := range centres {
		centres[b] = lo + (float64(b)+0.5)*(hi-lo)/float64(bins)
	}
	for _, s := range samples {
		f := make([]float64, bins)
		for _, x := range s.Y {
			f[min(int((x-lo)/(hi-lo)*float64(bins)), bins-1)] += 1 / float64(len(s.Y))
		}
		fractions = append(fractions, f)
	}
	return centres, fractions
}

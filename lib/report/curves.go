package report

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// Curve is one line of a learning-curve figure: PerRun[r][e] is run r's value after epoch e+1 (one
// run per seed; runs may have trained different numbers of epochs).
type Curve struct {
	Label  string
	PerRun [][]float64
}

// LearningCurves draws curves against the epoch (1-based): at each epoch the mean over the runs that
// reached it, with an error bar of ± one standard error (std/√n with the n − 1 std; none for a single
// run), in the project's colours (Colors), one legend entry per curve (Render puts the legend below
// the plot). yLabel should carry the unit. A curve without any value is an error naming it.
func LearningCurves(title, yLabel string, curves ...Curve) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, "epoch", yLabel
	p.X.Tick.Marker = WholeTicks
	labels := make([]string, len(curves))
	for i, c := range curves {
		labels[i] = c.Label
	}
	colors := Colors(labels...)
	for i, c := range curves {
		mean, se := epochMeans(c.PerRun)
		if len(mean) == 0 {
			return nil, fmt.Errorf("report: learning curve %q has no value", c.Label)
		}
		pts := make(plotter.XYs, len(mean))
		bars := make(plotter.YErrors, len(mean))
		for e := range mean {
			pts[e] = plotter.XY{X: float64(e + 1), Y: mean[e]}
			bars[e].Low, bars[e].High = se[e], se[e]
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("report: learning curve %q: %w", c.Label, err)
		}
		line.Color = colors[i]
		line.Width *= 1.5
		p.Add(line)
		p.Legend.Add(c.Label, line)
		if err := AddErrorBars(p, pts, bars, colors[i]); err != nil {
			return nil, fmt.Errorf("report: learning curve %q: %w", c.Label, err)
		}
	}
	return p, nil
}

// epochMeans are the per-epoch mean and standard error over the runs that reached each epoch.
func epochMeans(perRun [][]float64) (mean, se []float64) {
	for e := 0; ; e++ {
		var xs []float64
		for _, r := range perRun {
			if e < len(r) {
				xs = append(xs, r[e])
			}
		}
		if len(xs) == 0 {
			return mean, se
		}
		s := Summarize(xs)
		mean = append(mean, s.Mean)
		if s.N > 1 {
			se = append(se, s.Std/math.Sqrt(float64(s.N)))
		} else {
			se = append(se, 0)
		}
	}
}

// AddErrorBars adds vertical bars of ± bars at pts in colour c.
func AddErrorBars(p *plot.Plot, pts plotter.XYs, bars plotter.YErrors, c color.Color) error {
	eb, err := plotter.NewYErrorBars(struct {
		plotter.XYer
		plotter.YErrorer
	}{pts, bars})
	if err != nil {
		return err
	}
	eb.Color = c
	p.Add(eb)
	return nil
}

// WholeTicks labels whole numbers on an axis of counts (epochs, optimizer steps, indices): every
// 1, 2, 5, 10, 20, 50, 100, … units, the finest step of that 1–2–5 sequence that gives at most
// maxWholeTicks ticks over the axis. gonum's default ticker would label 2.5, 7.5, … on such axes.
var WholeTicks = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
	step := 1.0
	for k := 0; (hi-lo)/step > maxWholeTicks; k++ {
		step *= [3]float64{2, 2.5, 2}[k%3] // 1, 2, 5, 10, 20, 50, …
	}
	var out []plot.Tick
	for x := math.Ceil(lo/step)*step + 0; x <= hi; x += step { // + 0: −0 → 0
		out = append(out, plot.Tick{Value: x, Label: fmt.Sprint(x)})
	}
	return out
})

// maxWholeTicks keeps an axis's labels apart at the figure's width.
const maxWholeTicks = 8

// EndOfCurves says whether the learning curves of the runs whose best epoch is their last are flat
// there or still rising (issue 19: a best epoch at the last epoch is acceptable only on a flat
// curve). curves[v][r] is run r of variant v, the validation metric per epoch; best[v][r] its
// selected epoch, 0-based. For each run with best = last (and ≥ 2 epochs) the gain is its last
// value minus the one before; the spread is the mean over variants (with ≥ 2 runs) of the sample
// standard deviation of the runs' last values. The curves are called flat when the mean gain is
// below the spread: one more epoch would move a run less than the seeds differ. A curve where lower
// is better (a training loss, every run keeping its last epoch) has negative changes: their mean's
// magnitude is compared, and "largest" is the change of largest magnitude. It returns "" when no
// run's best epoch is its last.
func EndOfCurves(metric string, curves [][][]float64, best [][]int) string {
	var gains, spreads []float64
	for v, runs := range curves {
		var ends []float64
		for r, c := range runs {
			n := len(c)
			if n == 0 {
				continue
			}
			ends = append(ends, c[n-1])
			if n >= 2 && best[v][r] == n-1 {
				gains = append(gains, c[n-1]-c[n-2])
			}
		}
		if len(ends) >= 2 {
			spreads = append(spreads, Summarize(ends).Std)
		}
	}
	if len(gains) == 0 {
		return ""
	}
	g, largest := Summarize(gains), slices.MaxFunc(gains, func(a, b float64) int { return cmp.Compare(math.Abs(a), math.Abs(b)) })
	spread := math.NaN()
	if len(spreads) > 0 {
		spread = Summarize(spreads).Mean
	}
	// Decimals: two, or enough for two significant digits of a spread below 0.1 (a loss) — of the
	// mean change when there is no spread (one seed).
	d, scale := 2, spread
	if math.IsNaN(spread) {
		scale = math.Abs(g.Mean)
	}
	if scale > 0 && scale < 0.1 {
		d = 1 - int(math.Floor(math.Log10(scale)))
	}
	s := fmt.Sprintf("In their last epoch, the %s of these runs changed by %+.*f on average (n = %d, largest %+.*f); the seeds' s.d. of the last-epoch %s is %.*f",
		metric, d, g.Mean, len(gains), d, largest, metric, d, spread)
	switch {
	case math.IsNaN(spread):
		return s + " (one seed per variant: no spread to compare with)."
	case math.Abs(g.Mean) < spread:
		return s + ": flat at the end (one more epoch moves a run less than the seeds differ)."
	case g.Mean < 0:
		return s + ": still falling at the end (more epochs could help)."
	default:
		return s + ": still rising at the end (more epochs could help)."
	}
}

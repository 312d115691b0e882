package report

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Curve is one line of a learning-curve figure: PerRun[r][e] is run r's value after epoch e+1 (one
// run per seed; runs may have trained different numbers of epochs; NaN where a run has no value at
// an epoch). Dashes, when set, dash the line (e.g. a shared first stage, or a second line of one
// method).
type Curve struct {
	Label  string
	PerRun [][]float64
	Dashes []vg.Length
}

// Panel is one panel of a figure of learning curves (CurvesGrid): its title, its axes' labels
// (XLabel "" is "epoch"; yLabel should carry the unit) and its curves.
type Panel struct {
	Title, XLabel, YLabel string
	Curves                []Curve
}

// LearningCurves draws curves against the epoch (1-based) in one plot (CurvesGrid with one panel,
// the legend of every curve in order; Render puts it below the plot).
func LearningCurves(title, yLabel string, curves ...Curve) (*plot.Plot, error) {
	labels := make([]string, len(curves))
	for i, c := range curves {
		labels[i] = c.Label
	}
	g, err := CurvesGrid(labels, []Panel{{Title: title, YLabel: yLabel, Curves: curves}})
	if err != nil {
		return nil, err
	}
	return g[0][0], nil
}

// CurvesGrid is the one learning-curve function of the project: rows of panels, in each at every
// epoch the mean over the runs that have a value there, with an error bar of ± one standard error
// (std/√n with the n − 1 std; none for a single run), one colour per label across the whole figure
// (Colors of labels, which must list every label the panels use, in the order of the legend), and
// one legend below the panels (the first panel's: Grid), every label that has a line once. A curve
// without any value is an error naming it.
func CurvesGrid(labels []string, rows ...[]Panel) (Grid, error) {
	colors := map[string]color.Color{}
	for i, c := range Colors(labels...) {
		colors[labels[i]] = c
	}
	thumbs := map[string]*plotter.Line{}
	var g Grid
	for _, row := range rows {
		var plots []*plot.Plot
		for _, panel := range row {
			p := plot.New()
			p.Title.Text, p.X.Label.Text, p.Y.Label.Text = panel.Title, cmp.Or(panel.XLabel, "epoch"), panel.YLabel
			p.X.Tick.Marker = WholeTicks
			for _, c := range panel.Curves {
				line, err := addCurve(p, c, colors[c.Label])
				if err != nil {
					return nil, fmt.Errorf("report: learning curve %q: %w", c.Label, err)
				}
				if thumbs[c.Label] == nil {
					thumbs[c.Label] = line
				}
			}
			plots = append(plots, p)
		}
		g = append(g, plots)
	}
	if len(g) == 0 || len(g[0]) == 0 {
		return nil, fmt.Errorf("report: a learning-curve figure without panels")
	}
	for _, l := range labels {
		if thumbs[l] != nil {
			g[0][0].Legend.Add(l, thumbs[l])
		}
	}
	return g, nil
}

// addCurve adds curve c to p in colour col: its per-epoch means (epochMeans) as a line and their
// standard errors as error bars.
func addCurve(p *plot.Plot, c Curve, col color.Color) (*plotter.Line, error) {
	mean, se := epochMeans(c.PerRun)
	var pts plotter.XYs
	var bars plotter.YErrors
	for e := range mean {
		if !math.IsNaN(mean[e]) {
			pts = append(pts, plotter.XY{X: float64(e + 1), Y: mean[e]})
			bars = append(bars, struct{ Low, High float64 }{se[e], se[e]})
		}
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("no value")
	}
	line, err := plotter.NewLine(pts)
	if err != nil {
		return nil, err
	}
	line.Color, line.Dashes = col, c.Dashes
	line.Width *= 1.5
	p.Add(line)
	return line, AddErrorBars(p, pts, bars, col)
}

// epochMeans are the per-epoch mean and standard error over the runs that reached each epoch and
// have a value there (NaN at an epoch some run reached without any value).
func epochMeans(perRun [][]float64) (mean, se []float64) {
	for e := 0; ; e++ {
		var xs []float64
		reached := false
		for _, r := range perRun {
			if e < len(r) {
				reached = true
				if !math.IsNaN(r[e]) {
					xs = append(xs, r[e])
				}
			}
		}
		if !reached {
			return mean, se
		}
		if len(xs) == 0 {
			mean, se = append(mean, math.NaN()), append(se, math.NaN())
			continue
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

// ExactTicks is gonum's default ticker (plot.DefaultTicks) with labels that read as the values
// they mark, in as few digits as they need. gonum chooses the labels' decimals from the tick step
// alone, so ticks at 3.95, 4.05 and 4.15 (a stage-2 loss axis) read "4", "4", "4.2", and ticks at
// 125, 150 and 175 read "125.00", "150.00", "175.00". Every labelled tick is written with the fewest
// decimals (at most maxTickDecimals) at which all of them read as their values, unless gonum's own
// labels already do and none is longer: then the ticks are gonum's, unchanged. Render and Grid
// draw every axis that uses the default ticker with ExactTicks.
var ExactTicks = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	// exact reports whether every labelled tick, written with dec decimals (dec < 0: gonum's own
	// label), reads as its value.
	exact := func(dec int) bool {
		for _, t := range ticks {
			if t.IsMinor() {
				continue
			}
			label := t.Label
			if dec >= 0 {
				label = strconv.FormatFloat(t.Value, 'f', dec, 64)
			}
			if v, err := strconv.ParseFloat(label, 64); err != nil || math.Abs(v-t.Value) > tickTolerance*(hi-lo) {
				return false
			}
		}
		return true
	}
	dec := 0
	for dec < maxTickDecimals && !exact(dec) {
		dec++
	}
	// longer reports whether one of gonum's labels is longer than it is with dec decimals.
	longer := slices.ContainsFunc(ticks, func(t plot.Tick) bool {
		return !t.IsMinor() && len(t.Label) > len(strconv.FormatFloat(t.Value, 'f', dec, 64))
	})
	if exact(-1) && !longer || !exact(dec) { // gonum's own labels
		return ticks
	}
	for i := range ticks {
		if !ticks[i].IsMinor() {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'f', dec, 64)
		}
	}
	return ticks
})

// maxTickDecimals bounds ExactTicks' decimals (gonum's own bound for its 'f' labels).
const maxTickDecimals = 6

// tickTolerance is how far, as a fraction of the axis range, a label may read from its tick's
// value and still count as exact: it absorbs the binary representation of values such as
// 3.9000000000000004, never a rounding to the label's last digit (a tenth of a step or more).
const tickTolerance = 1e-6

// exactTicks makes p's axes that use gonum's default ticker use ExactTicks, and returns the
// function that restores them.
func exactTicks(p *plot.Plot) (restore func()) {
	x, y := p.X.Tick.Marker, p.Y.Tick.Marker
	if _, ok := x.(plot.DefaultTicks); ok {
		p.X.Tick.Marker = ExactTicks
	}
	if _, ok := y.(plot.DefaultTicks); ok {
		p.Y.Tick.Marker = ExactTicks
	}
	return func() { p.X.Tick.Marker, p.Y.Tick.Marker = x, y }
}

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

package garestudy

import (
	"fmt"
	"image/color"

	"github.com/geoalign/geoalign/lib/report"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

var (
	blue  = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	red   = color.RGBA{R: 214, G: 39, B: 40, A: 255}
	black = color.RGBA{A: 255}
	green = color.RGBA{R: 44, G: 160, B: 44, A: 255}
)

func addLine(p *plot.Plot, label string, c color.Color, dashed bool, xs, ys []float64) {
	pts := make(plotter.XYs, len(ys))
	for i := range ys {
		pts[i] = plotter.XY{X: xs[i], Y: ys[i]}
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		panic(err)
	}
	l.Color, l.Width = c, vg.Points(1)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	p.Add(l)
	p.Legend.Add(label, l)
}

// newPlot is an empty plot with its title and axis labels.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	return p
}

// indexAxis is 0, 1, …, n − 1.
func indexAxis(n int) []float64 { return mapped(seq(n), func(i int) float64 { return float64(i) }) }

// GradientFigure plots, per dimension, the mean (variance = false) or the variance over anchors of
// the positive gradient, the summed negative gradient and their sum (GARE Fig. 2 for the
// baseline on t_i, Fig. 4 for GARE on t_i + Δ_ij, i.e. on Δ_ij).
func GradientFigure(st *GradientStats, variance bool, on string) *plot.Plot {
	what := "mean"
	pos, neg, sum := st.PosMean, st.NegMean, st.SumMean
	if variance {
		what = "variance"
		pos, neg, sum = st.PosVar, st.NegVar, st.SumVar
	}
	p := newPlot(fmt.Sprintf("%s: per-dimension %s of gradients on %s", st.Name, what, on), "dimension", "gradient "+what+" (per-anchor loss)")
	x := indexAxis(len(pos))
	addLine(p, "positive (j = i)", blue, false, x, pos)
	addLine(p, "sum of negatives (j ≠ i)", red, false, x, neg)
	addLine(p, "positive + negatives", black, false, x, sum)
	return p
}

// TotalGradientFigure compares the per-dimension mean of the total gradient on t_i (GARE Fig. 7).
func TotalGradientFigure(base, withDelta *GradientStats) *plot.Plot {
	p := newPlot("Total gradient on t_i per dimension (mean over anchors)", "dimension", "mean gradient")
	x := indexAxis(len(base.TotMean))
	colors := report.Colors(base.Name, withDelta.Name)
	addLine(p, base.Name, colors[0], false, x, base.TotMean)
	addLine(p, withDelta.Name, colors[1], false, x, withDelta.TotMean)
	return p
}

// HistogramFigure overlays normalised histograms of several samples.
func HistogramFigure(title, xlabel string, bins int, names []string, samples ...[]float64) *plot.Plot {
	p := newPlot(title, xlabel, "density")
	colors := report.Colors(names...)
	for i, s := range samples {
		h, err := plotter.NewHist(plotter.Values(s), bins)
		if err != nil {
			panic(err)
		}
		h.Normalize(1)
		r, g, b, _ := colors[i].RGBA()
		h.LineStyle.Color, h.FillColor = colors[i], color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 70}
		p.Add(h)
		p.Legend.Add(names[i], h)
	}
	return p
}

// DynamicsFigures are GARE Fig. 8 (a)–(d): angles between Δ and the gap / the text, norms and
// distances along training.
func DynamicsFigures(pts []DynamicsPoint) []*plot.Plot {
	x := mapped(pts, func(p DynamicsPoint) float64 { return float64(p.Step) })
	y := func(f func(DynamicsPoint) float64) []float64 { return mapped(pts, f) }
	const steps = "training step (stage 2)"
	a := newPlot("(a) angle between Δ and v̄_j − t_i", steps, "degrees")
	addLine(a, "positive pairs", blue, false, x, y(func(p DynamicsPoint) float64 { return p.AngleGapPos }))
	addLine(a, "negative pairs", red, false, x, y(func(p DynamicsPoint) float64 { return p.AngleGapNeg }))
	b := newPlot("(b) angle between Δ and t_i", steps, "degrees")
	addLine(b, "positive pairs", blue, false, x, y(func(p DynamicsPoint) float64 { return p.AngleTextPos }))
	addLine(b, "negative pairs", red, false, x, y(func(p DynamicsPoint) float64 { return p.AngleTextNeg }))
	c := newPlot("(c) norms of t_i and t_i + Δ_ij", steps, "norm")
	addLine(c, "‖t_i‖", black, false, x, y(func(p DynamicsPoint) float64 { return p.TextNorm }))
	addLine(c, "‖t_i + Δ_ii‖", blue, false, x, y(func(p DynamicsPoint) float64 { return p.AdjNormPos }))
	addLine(c, "‖t_i + Δ_ij‖, j ≠ i", red, false, x, y(func(p DynamicsPoint) float64 { return p.AdjNormNeg }))
	d := newPlot("(d) pair distances to the pooled video", steps, "distance")
	addLine(d, "‖t − v‖ positives", blue, true, x, y(func(p DynamicsPoint) float64 { return p.BaseDistPos }))
	addLine(d, "‖t + Δ − v‖ positives", blue, false, x, y(func(p DynamicsPoint) float64 { return p.DistPos }))
	addLine(d, "‖t − v‖ negatives", red, true, x, y(func(p DynamicsPoint) float64 { return p.BaseDistNeg }))
	addLine(d, "‖t + Δ − v‖ negatives", red, false, x, y(func(p DynamicsPoint) float64 { return p.DistNeg }))
	return []*plot.Plot{a, b, c, d}
}

// CoverageFigure is the two-stage curve: coverage of GARE's top-10 by the cosine shortlist, and the
// re-ranked R@1, against the shortlist size K.
func CoverageFigure(pts []CoveragePoint, fullR1, cheapR1 float64) *plot.Plot {
	p := newPlot("Two-stage retrieval: cosine shortlist of K, Δ re-rank", "shortlist size K", "percent")
	col := func(f func(CoveragePoint) float64) []float64 { return mapped(pts, f) }
	x := col(func(c CoveragePoint) float64 { return float64(c.K) })
	addLine(p, "coverage of GARE top-10 (mean)", blue, false, x, col(func(c CoveragePoint) float64 { return 100 * c.Coverage }))
	addLine(p, "queries with all of top-10 covered", green, false, x, col(func(c CoveragePoint) float64 { return 100 * c.Complete }))
	addLine(p, "re-ranked R@1", red, false, x, col(func(c CoveragePoint) float64 { return c.Reranked.R(1) }))
	addLine(p, "full GARE R@1", red, true, x, col(func(CoveragePoint) float64 { return fullR1 }))
	addLine(p, "cosine shortlist R@1", black, true, x, col(func(CoveragePoint) float64 { return cheapR1 }))
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	return p
}

package garestudy

import (
	"fmt"
	"image/color"

	"github.com/geoalign/geoalign/lib/models/gare"
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
	l.Color = c
	l.Width = vg.Points(1)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	p.Add(l)
	p.Legend.Add(label, l)
}

func indexAxis(n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(i)
	}
	return x
}

// GradientFigure plots, per dimension, the mean (variance = false) or the variance over anchors of
// the positive gradient, the summed negative gradient and their sum (GARE Fig. 2 for the
// baseline on t_i, Fig. 4 for GARE on t_i + Δ_ij, i.e. on Δ_ij).
func GradientFigure(st *GradientStats, variance bool, on string) *plot.Plot {
	p := plot.New()
	what := "mean"
	pos, neg, sum := st.PosMean, st.NegMean, st.SumMean
	if variance {
		what = "variance"
		pos, neg, sum = st.PosVar, st.NegVar, st.SumVar
	}
	p.Title.Text = fmt.Sprintf("%s: per-dimension %s of gradients on %s", st.Name, what, on)
	p.X.Label.Text = "dimension"
	p.Y.Label.Text = "gradient " + what + " (per-anchor loss)"
	x := indexAxis(len(pos))
	addLine(p, "positive (j = i)", blue, false, x, pos)
	addLine(p, "sum of negatives (j ≠ i)", red, false, x, neg)
	addLine(p, "positive + negatives", black, false, x, sum)
	return p
}

// TotalGradientFigure compares the per-dimension mean of the total gradient on t_i (GARE Fig. 7).
func TotalGradientFigure(base, withDelta *GradientStats) *plot.Plot {
	p := plot.New()
	p.Title.Text = "Total gradient on t_i per dimension (mean over anchors)"
	p.X.Label.Text = "dimension"
	p.Y.Label.Text = "mean gradient"
	x := indexAxis(len(base.TotMean))
	colors := report.Colors(base.Name, withDelta.Name)
	addLine(p, base.Name, colors[0], false, x, base.TotMean)
	addLine(p, withDelta.Name, colors[1], false, x, withDelta.TotMean)
	return p
}

// HistogramFigure overlays normalised histograms of several samples.
func HistogramFigure(title, xlabel string, bins int, names []string, samples ...[]float64) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = "density"
	colors := report.Colors(names...)
	for i, s := range samples {
		h, err := plotter.NewHist(plotter.Values(s), bins)
		if err != nil {
			panic(err)
		}
		h.Normalize(1)
		c := colors[i]
		h.LineStyle.Color = c
		h.FillColor = withAlpha(c, 70)
		p.Add(h)
		p.Legend.Add(names[i], h)
	}
	return p
}

func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: a}
}

// GeometryFigures are GARE Fig. 3 (a)–(d) for a baseline and a GARE model on the same probe:
// positive cosines; ‖t_i + Δ_ij‖ vs ‖t_i‖ on negatives and on positives; ‖t + Δ − v‖ vs ‖t − v‖.
func GeometryFigures(base, withDelta *gare.PairGeometry) []*plot.Plot {
	posCosB, _ := gare.PositiveNegative(base.Cos)
	posCosG, _ := gare.PositiveNegative(withDelta.Cos)
	adjPos, adjNeg := gare.PositiveNegative(withDelta.AdjustedNorm)
	distPos, distNeg := gare.PositiveNegative(withDelta.Dist)
	basePos, baseNeg := gare.PositiveNegative(withDelta.BaseDist)
	return []*plot.Plot{
		HistogramFigure("(a) cosine similarity of positive pairs", "S_ii", 30, []string{"baseline", "GARE"}, posCosB, posCosG),
		HistogramFigure("(b) norms on negative pairs", "norm", 30, []string{"‖t_i‖", "‖t_i + Δ_ij‖"}, withDelta.TextNorm, adjNeg),
		HistogramFigure("(c) norms on positive pairs", "norm", 30, []string{"‖t_i‖", "‖t_i + Δ_ii‖"}, withDelta.TextNorm, adjPos),
		HistogramFigure("(d) distance to the pooled video", "distance", 30,
			[]string{"‖t − v‖ positives", "‖t + Δ − v‖ positives", "‖t − v‖ negatives", "‖t + Δ − v‖ negatives"}, basePos, distPos, baseNeg, distNeg),
	}
}

// DynamicsFigures are GARE Fig. 8 (a)–(d): angles between Δ and the gap / the text, norms and
// distances along training.
func DynamicsFigures(pts []DynamicsPoint) []*plot.Plot {
	x := make([]float64, len(pts))
	col := func(f func(DynamicsPoint) float64) []float64 {
		y := make([]float64, len(pts))
		for i, p := range pts {
			y[i] = f(p)
		}
		return y
	}
	for i, p := range pts {
		x[i] = float64(p.Step)
	}
	mk := func(title, ylabel string) *plot.Plot {
		p := plot.New()
		p.Title.Text = title
		p.X.Label.Text = "training step (stage 2)"
		p.Y.Label.Text = ylabel
		return p
	}
	a := mk("(a) angle between Δ and v̄_j − t_i", "degrees")
	addLine(a, "positive pairs", blue, false, x, col(func(p DynamicsPoint) float64 { return p.AngleGapPos }))
	addLine(a, "negative pairs", red, false, x, col(func(p DynamicsPoint) float64 { return p.AngleGapNeg }))
	b := mk("(b) angle between Δ and t_i", "degrees")
	addLine(b, "positive pairs", blue, false, x, col(func(p DynamicsPoint) float64 { return p.AngleTextPos }))
	addLine(b, "negative pairs", red, false, x, col(func(p DynamicsPoint) float64 { return p.AngleTextNeg }))
	c := mk("(c) norms of t_i and t_i + Δ_ij", "norm")
	addLine(c, "‖t_i‖", black, false, x, col(func(p DynamicsPoint) float64 { return p.TextNorm }))
	addLine(c, "‖t_i + Δ_ii‖", blue, false, x, col(func(p DynamicsPoint) float64 { return p.AdjNormPos }))
	addLine(c, "‖t_i + Δ_ij‖, j ≠ i", red, false, x, col(func(p DynamicsPoint) float64 { return p.AdjNormNeg }))
	d := mk("(d) pair distances to the pooled video", "distance")
	addLine(d, "‖t − v‖ positives", blue, true, x, col(func(p DynamicsPoint) float64 { return p.BaseDistPos }))
	addLine(d, "‖t + Δ − v‖ positives", blue, false, x, col(func(p DynamicsPoint) float64 { return p.DistPos }))
	addLine(d, "‖t − v‖ negatives", red, true, x, col(func(p DynamicsPoint) float64 { return p.BaseDistNeg }))
	addLine(d, "‖t + Δ − v‖ negatives", red, false, x, col(func(p DynamicsPoint) float64 { return p.DistNeg }))
	return []*plot.Plot{a, b, c, d}
}

// CoverageFigure is the two-stage curve: coverage of GARE's top-10 by the cosine shortlist, and the
// re-ranked R@1, against the shortlist size K.
func CoverageFigure(pts []CoveragePoint, fullR1, cheapR1 float64) *plot.Plot {
	p := plot.New()
	p.Title.Text = "Two-stage retrieval: cosine shortlist of K, Δ re-rank"
	p.X.Label.Text = "shortlist size K"
	p.Y.Label.Text = "percent"
	x := make([]float64, len(pts))
	cov, comp, r1, full, cheap := make([]float64, len(pts)), make([]float64, len(pts)), make([]float64, len(pts)), make([]float64, len(pts)), make([]float64, len(pts))
	for i, c := range pts {
		x[i] = float64(c.K)
		cov[i], comp[i], r1[i] = 100*c.Coverage, 100*c.Complete, c.Reranked.R(1)
		full[i], cheap[i] = fullR1, cheapR1
	}
	addLine(p, "coverage of GARE top-10 (mean)", blue, false, x, cov)
	addLine(p, "queries with all of top-10 covered", green, false, x, comp)
	addLine(p, "re-ranked R@1", red, false, x, r1)
	addLine(p, "full GARE R@1", red, true, x, full)
	addLine(p, "cosine shortlist R@1", black, true, x, cheap)
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	return p
}

package report

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Grid is a figure of plots in rows and columns (e.g. one row per data set, the validation metric
// and the training loss side by side), aligned by plot.Align so that the axes of a column line up,
// with one legend — the entries of the first plot, which every panel shares — drawn below the
// panels, centred, in a strip that adds to the height, as Render draws a single plot's legend.
// The other plots' legends are not drawn.
type Grid [][]*plot.Plot

// gridPad separates two panels.
const gridPad = 4 * vg.Millimeter

// Draw draws the panels and the shared legend on c.
func (g Grid) Draw(c draw.Canvas) {
	if len(g) == 0 || len(g[0]) == 0 {
		return
	}
	first := g[0][0]
	lb := newLegendBelow(first)
	top := c
	top.Min.Y += lb.height
	legends := make([][]plot.Legend, len(g))
	for i, row := range g {
		for _, p := range row {
			legends[i] = append(legends[i], p.Legend)
			p.Legend = plot.NewLegend() // no entries: no panel draws a legend over its data
		}
	}
	defer func() {
		for i, row := range g {
			for j, p := range row {
				p.Legend = legends[i][j]
			}
		}
	}()
	tiles := draw.Tiles{Rows: len(g), Cols: len(g[0]), PadX: gridPad, PadY: gridPad}
	canvases := plot.Align(g, tiles, top)
	for i, row := range g {
		for j, p := range row {
			restore := exactTicks(p)
			p.Draw(canvases[i][j])
			restore()
		}
	}
	if lb.height > 0 {
		strip := c
		strip.Max.Y = c.Min.Y + lb.height - legendPadding
		strip.Min.X = max(c.Min.X, c.Center().X-lb.width/2)
		lb.legend.Draw(strip)
	}
}

// Render draws the grid with every panel FigureWidth × FigureHeight (titles shrunk to fit their
// panel, as Render does), plus the legend strip. Every row must have the same number of plots.
func (g Grid) Render() (Figure, error) {
	if len(g) == 0 || len(g[0]) == 0 {
		return Figure{}, fmt.Errorf("report: an empty grid")
	}
	cols := len(g[0])
	for i, row := range g {
		if len(row) != cols {
			return Figure{}, fmt.Errorf("report: grid row %d has %d plots, row 0 has %d", i, len(row), cols)
		}
		for _, p := range row {
			defer fitTitle(p, FigureWidth)()
		}
	}
	h := vg.Length(len(g))*FigureHeight + newLegendBelow(g[0][0]).height
	return Render(g, vg.Length(cols)*FigureWidth, h)
}

// Save renders the grid (Grid.Render) and saves it as <base>.png and <base>.svg.
func (g Grid) Save(base string) (Figure, error) {
	f, err := g.Render()
	if err != nil {
		return f, err
	}
	return f, f.Save(base)
}

// RenderDefault renders d at its default size: a Grid by Grid.Render (every panel FigureWidth ×
// FigureHeight), anything else (a *plot.Plot, a HeatMap) by Render(d, 0, 0). The figures driver and
// the notebooks render every figure through it.
func RenderDefault(d Drawer) (Figure, error) {
	if g, ok := d.(Grid); ok {
		return g.Render()
	}
	return Render(d, 0, 0)
}

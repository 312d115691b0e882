package report

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	vgdraw "gonum.org/v1/plot/vg/draw"
)

// HeatMap is a matrix drawn as coloured cells with a colour bar at its right. Render draws it
// like a plot.
type HeatMap struct {
	// Plot holds the cells: set its title and axis labels (with units) as on any plot.
	Plot *plot.Plot
	// Bar is the colour bar; its Y axis label says what a colour means, with its unit.
	Bar *plot.Plot
	// Map is the colour map of the cells and the bar.
	Map palette.ColorMap
}

// heatMapBarWidth is the width of the colour bar itself, without its axis.
const heatMapBarWidth = 0.22 * vg.Inch

// NewHeatMap draws m (rows × columns, every row of equal length). Values of both signs get a
// diverging blue–white–red map centred on 0, so that the sign reads at a glance; others a
// sequential map from dark (smallest) to light (largest). NaN cells are grey. Row 0 is drawn at
// the top, as the matrix is printed; cell (r, c) is centred on x = c.
func NewHeatMap(m [][]float64) (*HeatMap, error) {
	if len(m) == 0 || len(m[0]) == 0 {
		return nil, fmt.Errorf("report: heat map of an empty matrix")
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for r, row := range m {
		if len(row) != len(m[0]) {
			return nil, fmt.Errorf("report: heat map row %d has %d values, row 0 has %d", r, len(row), len(m[0]))
		}
		for _, v := range row {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil, fmt.Errorf("report: heat map without a finite value")
	}
	var cm palette.ColorMap
	if lo < 0 && hi > 0 {
		a := math.Max(-lo, hi)
		cm = moreland.SmoothBlueRed()
		lo, hi = -a, a
	} else {
		cm = viridis()
	}
	if lo == hi { // a constant matrix still needs a range to draw its bar
		lo, hi = lo-0.5, hi+0.5
	}
	cm.SetMin(lo)
	cm.SetMax(hi)

	img, err := raster(m, cm)
	if err != nil {
		return nil, err
	}
	cells := plotter.NewImage(img, -0.5, -0.5, float64(len(m[0]))-0.5, float64(len(m))-0.5)
	p := plot.New()
	p.Add(cells)
	p.X.Tick.Marker = indexTicks{}
	p.Y.Tick.Marker = indexTicks{flip: len(m) - 1}

	bar := plot.New()
	bar.HideX()
	bar.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	return &HeatMap{Plot: p, Bar: bar, Map: cm}, nil
}

// Draw implements Drawer: the cells on the left, the bar on the right, their data areas at the
// same height.
func (h *HeatMap) Draw(c vgdraw.Canvas) {
	// The bar's axis width: lay the bar out once in a wide canvas and measure what is not data.
	probe := c
	probe.Min.X = c.Max.X - 2*vg.Inch
	axisWidth := probe.Size().X - h.Bar.DataCanvas(probe).Size().X
	barWidth := axisWidth + heatMapBarWidth

	left := c
	left.Max.X -= barWidth + 3*vg.Millimeter
	h.Plot.Draw(left)

	cellsArea := h.Plot.DataCanvas(left)
	right := c
	right.Min.X = c.Max.X - barWidth
	barArea := h.Bar.DataCanvas(right)
	right.Min.Y = cellsArea.Min.Y - (barArea.Min.Y - right.Min.Y)
	right.Max.Y = cellsArea.Max.Y + (right.Max.Y - barArea.Max.Y)
	h.Bar.Draw(right)
}

// viridis is a sequential map through five control colours of matplotlib's viridis (van der Walt
// & Smith, 2015): perceptually uniform, readable in grey scale and by colour-blind readers, and,
// unlike maps ending in white, every cell stands out from the page.
func viridis() palette.ColorMap {
	cm, err := moreland.NewLuminance([]color.Color{
		color.NRGBA{R: 0x44, G: 0x01, B: 0x54, A: 0xFF},
		color.NRGBA{R: 0x3B, G: 0x52, B: 0x8B, A: 0xFF},
		color.NRGBA{R: 0x21, G: 0x91, B: 0x8C, A: 0xFF},
		color.NRGBA{R: 0x5E, G: 0xC9, B: 0x62, A: 0xFF},
		color.NRGBA{R: 0xFD, G: 0xE7, B: 0x25, A: 0xFF},
	})
	if err != nil { // the controls are constants of increasing luminance
		panic(err)
	}
	return cm
}

// heatMapPixels is about the number of pixels along the longer side of a heat map's raster.
const heatMapPixels = 600

// raster draws m as an image whose cells are blocks of equal pixels (no interpolation between
// cells, no hairline seams between vector cells), row 0 at the top. Placed on [−0.5, cols−0.5] ×
// [−0.5, rows−0.5], cell (r, c) is centred on x = c, y = rows−1−r.
func raster(m [][]float64, cm palette.ColorMap) (*image.NRGBA, error) {
	rows, cols := len(m), len(m[0])
	px := max(1, heatMapPixels/max(rows, cols))
	img := image.NewNRGBA(image.Rect(0, 0, cols*px, rows*px))
	nan := color.Gray{Y: 180}
	for r, row := range m {
		for c, v := range row {
			var col color.Color = nan
			if !math.IsNaN(v) {
				var err error
				if col, err = cm.At(v); err != nil {
					return nil, fmt.Errorf("report: heat map cell (%d, %d) = %g: %w", r, c, v, err)
				}
			}
			draw.Draw(img, image.Rect(c*px, r*px, (c+1)*px, (r+1)*px), image.NewUniform(col), image.Point{}, draw.Src)
		}
	}
	return img, nil
}

// indexTicks labels whole indices, at most about eight of them; with flip > 0 the tick at y is
// labelled flip − y (the rows of a matrixGrid).
type indexTicks struct{ flip int }

func (it indexTicks) Ticks(lo, hi float64) []plot.Tick {
	first, last := int(math.Ceil(lo)), int(math.Floor(hi))
	step := 1
	for _, s := range []int{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000} {
		step = s
		if (last-first)/s < 8 {
			break
		}
	}
	var ticks []plot.Tick
	for i := first; i <= last; i++ {
		t := plot.Tick{Value: float64(i)}
		label := i
		if it.flip > 0 {
			label = it.flip - i
		}
		if label%step == 0 {
			t.Label = fmt.Sprint(label)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// LabelRows names the rows on the Y axis, labels[r] beside row r (row 0 at the top), instead of
// their indices: e.g. the branches of a model.
func (h *HeatMap) LabelRows(labels ...string) {
	ticks := make([]plot.Tick, len(labels))
	for r, l := range labels {
		ticks[r] = plot.Tick{Value: float64(len(labels) - 1 - r), Label: l}
	}
	h.Plot.Y.Tick.Marker = plot.ConstantTicks(ticks)
}

package report

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Default figure size used by notebooks and `make figures`.
const (
	FigureWidth  = 6 * vg.Inch
	FigureHeight = 4 * vg.Inch
	// FigureDPI is fixed so that PNGs are byte-for-byte reproducible across runs.
	FigureDPI = 110
)

// Figure is a rendered plot in both formats notebooks and reports use.
type Figure struct {
	PNG []byte
	SVG []byte
}

// titleRoom is the share of the figure's width a title may take.
const titleRoom = 0.9

// minTitleFontSize is the smallest size fitTitle shrinks a title to; a longer title is cut by
// the figure's edge, as gonum/plot draws it.
const minTitleFontSize = 8

// fitTitle shrinks p's title font until the title fits in width w (gonum/plot neither wraps nor
// shrinks it: a long title runs off both edges), and returns the function that restores it.
func fitTitle(p *plot.Plot, w vg.Length) (restore func()) {
	size := p.Title.TextStyle.Font.Size
	restore = func() { p.Title.TextStyle.Font.Size = size }
	// Room to spare: an SVG names its font (Liberation Serif) and a browser without it draws a
	// wider substitute.
	room := titleRoom * (w - 2*legendPadding)
	if p.Title.Text == "" || p.Title.TextStyle.Rectangle(p.Title.Text).Size().X <= room {
		return restore
	}
	for s := size - 0.5; s >= minTitleFontSize; s -= 0.5 {
		p.Title.TextStyle.Font.Size = s
		if p.Title.TextStyle.Rectangle(p.Title.Text).Size().X <= room {
			break
		}
	}
	return restore
}

// Drawer is what Render draws: a *plot.Plot, or a figure made of several plots (HeatMap).
type Drawer interface {
	Draw(c draw.Canvas)
}

// Render draws d as PNG and SVG at the given size (0 means the default). A plot's legend is
// drawn below it, centred, in a strip that adds to the height, never over the title or the
// data (the Top, Left and offset fields of plot.Legend are not used).
func Render(d Drawer, w, h vg.Length) (Figure, error) {
	if w == 0 {
		w = FigureWidth
	}
	if h == 0 {
		h = FigureHeight
	}
	if p, ok := d.(*plot.Plot); ok {
		defer fitTitle(p, w)()
		defer exactTicks(p)()
		if lb := newLegendBelow(p); lb.height > 0 {
			d, h = lb, h+lb.height
		}
	}
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(FigureDPI))
	d.Draw(draw.New(img))
	var pngBuf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&pngBuf); err != nil {
		return Figure{}, fmt.Errorf("report: rendering PNG: %w", err)
	}
	sv := vgsvg.New(w, h)
	d.Draw(draw.New(sv))
	var svgBuf bytes.Buffer
	if _, err := sv.WriteTo(&svgBuf); err != nil {
		return Figure{}, fmt.Errorf("report: rendering SVG: %w", err)
	}
	return Figure{PNG: pngBuf.Bytes(), SVG: stretchImages(svgBuf.Bytes())}, nil
}

// stretchImages makes every raster image of an SVG fill the box it is drawn in. vgsvg writes
// <image> elements without preserveAspectRatio, whose default ("xMidYMid meet") keeps the raster's
// own aspect ratio: a browser then draws a heat map's cells narrower than its axes and its colour
// bar (a 1-pixel-wide raster) as a hairline, while the PNG, drawn by vgimg, fills the box.
func stretchImages(svg []byte) []byte {
	return bytes.ReplaceAll(svg, []byte("<image "), []byte(`<image preserveAspectRatio="none" `))
}

// legendPadding separates the legend strip from the x axis above it and the figure's edge.
const legendPadding = 4 * vg.Millimeter

// legendFontSize is the legend's text size: gonum/plot's 12 pt (the title's) makes a legend of
// five long entries a third of the figure.
const legendFontSize = 10

// legendEntryGap separates two legend entries.
const legendEntryGap = vg.Millimeter

// legendBelow draws a plot with its legend in a strip under it.
type legendBelow struct {
	p             *plot.Plot
	legend        plot.Legend
	width, height vg.Length // of the legend's entries; height includes the padding
}

func newLegendBelow(p *plot.Plot) legendBelow {
	l := p.Legend
	l.Top, l.Left, l.XOffs, l.YOffs = true, true, 0, 0
	if l.TextStyle.Font.Size > legendFontSize {
		l.TextStyle.Font.Size = legendFontSize
	}
	if l.Padding == 0 { // entries whose thumbnails fill their height (histograms) would touch
		l.Padding = legendEntryGap
	}
	r := l.Rectangle(draw.Canvas{})
	if r.Size().Y == 0 {
		return legendBelow{}
	}
	// A whole number of pixels, so that the plot above is drawn on the same pixel grid as
	// without a legend.
	pixel := vg.Inch / FigureDPI
	height := vg.Length(math.Ceil(float64((r.Size().Y+2*legendPadding)/pixel))) * pixel
	return legendBelow{p: p, legend: l, width: r.Size().X, height: height}
}

func (b legendBelow) Draw(c draw.Canvas) {
	top := c
	top.Min.Y += b.height
	entries := b.p.Legend
	b.p.Legend = plot.NewLegend() // no entries: the plot draws none over its data
	b.p.Draw(top)
	b.p.Legend = entries
	strip := c
	strip.Max.Y = c.Min.Y + b.height - legendPadding
	strip.Min.X = max(c.Min.X, c.Center().X-b.width/2)
	b.legend.Draw(strip)
}

// Save writes <base>.png and <base>.svg, creating directories as needed; each atomically.
func (f Figure) Save(base string) error {
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(base+".png", f.PNG, 0o644); err != nil {
		return err
	}
	return atomicfile.WriteFile(base+".svg", f.SVG, 0o644)
}

// SavePlot renders p at the default size and saves it as <base>.png and <base>.svg.
func SavePlot(p *plot.Plot, base string) (Figure, error) {
	f, err := Render(p, 0, 0)
	if err != nil {
		return f, err
	}
	return f, f.Save(base)
}

package report

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// linePlot is a plot of two lines, with their legend entries when legend is true.
func linePlot(t *testing.T, legend bool) *plot.Plot {
	t.Helper()
	p := plot.New()
	p.Title.Text = "two lines"
	p.X.Label.Text = "x (steps)"
	p.Y.Label.Text = "y (units)"
	for i, name := range []string{"GRAM", "HyperGRAM"} {
		l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: float64(i)}, {X: 1, Y: float64(2 - i)}})
		if err != nil {
			t.Fatal(err)
		}
		l.Color = Colors(name)[0]
		p.Add(l)
		if legend {
			p.Legend.Add(name, l)
		}
	}
	p.Legend.Top, p.Legend.Left = true, true // where gonum/plot would draw it over the title's corner
	return p
}

func decodePNG(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// The legend goes into a strip under the plot: everything above the strip is pixel for pixel
// the same plot drawn without a legend, so the legend covers neither the title nor the data.
func TestRenderLegendBelowThePlot(t *testing.T) {
	with, err := Render(linePlot(t, true), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	without, err := Render(linePlot(t, false), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	a, b := decodePNG(t, with.PNG), decodePNG(t, without.PNG)
	wantH := 440 // FigureHeight (4 in) at FigureDPI (110)
	if b.Bounds().Dy() != wantH {
		t.Fatalf("without a legend the figure is %d px high, want %d", b.Bounds().Dy(), wantH)
	}
	if a.Bounds().Dy() <= wantH || a.Bounds().Dx() != b.Bounds().Dx() {
		t.Fatalf("with a legend the figure is %v, want the width of %v and more height", a.Bounds(), b.Bounds())
	}
	for y := range wantH {
		for x := range b.Bounds().Dx() {
			if a.At(x, y) != b.At(x, y) {
				t.Fatalf("pixel (%d, %d) of the plot differs with a legend: the legend is drawn over the plot", x, y)
			}
		}
	}
	inked := 0
	for y := wantH; y < a.Bounds().Dy(); y++ {
		for x := range a.Bounds().Dx() {
			if r, g, bl, _ := a.At(x, y).RGBA(); r < 0x8000 || g < 0x8000 || bl < 0x8000 {
				inked++
			}
		}
	}
	if inked == 0 {
		t.Fatal("the strip under the plot is blank: the legend was not drawn")
	}
}

func TestMethodColor(t *testing.T) {
	for _, c := range []struct {
		label string
		want  color.Color
	}{
		{"GRAM", paletteBlue},
		{"HyperGRAM α₀ = 0.2", paletteVermilion},              // longest prefix: not GRAM's
		{"GRAM (cosine → volume)", paletteSky},                // its own method
		{"Euclidean-only, GMMFormer-like", paletteBlue},       // Euclidean family
		{"HLFormer (4 Euclidean + 4 Lorentz)", palettePurple}, // a prefix beats a longer inner name
		{"TV + TA (pairwise cosine)", paletteGrey},            // named inside the label
		{"baseline", paletteGrey},
		{"hyperbolic (HyperGRAM)", paletteGreen},
	} {
		got, ok := MethodColor(c.label)
		if !ok || got != c.want {
			t.Errorf("MethodColor(%q) = %v, %v; want %v", c.label, got, ok, c.want)
		}
	}
	for _, label := range []string{"k = 3", "histogram of volumes", "programmed floorspace"} {
		if c, ok := MethodColor(label); ok {
			t.Errorf("MethodColor(%q) = %v, want no method (names match whole words only)", label, c)
		}
	}
}

func TestColorsDistinctWithinAFigure(t *testing.T) {
	labels := []string{"k = 2", "GRAM", "k = 3", "k = 4", "HyperGRAM"}
	cs := Colors(labels...)
	if cs[1] != paletteBlue || cs[4] != paletteVermilion {
		t.Fatalf("methods lost their colours: %v", cs)
	}
	seen := map[color.Color]string{}
	for i, c := range cs {
		if prev, dup := seen[c]; dup {
			t.Errorf("%q and %q share the colour %v", prev, labels[i], c)
		}
		seen[c] = labels[i]
	}
}

func TestHeatMap(t *testing.T) {
	if _, err := NewHeatMap([][]float64{{1, 2}, {3}}); err == nil {
		t.Error("a ragged matrix must be an error")
	}
	if _, err := NewHeatMap(nil); err == nil {
		t.Error("an empty matrix must be an error")
	}
	// Values of both signs: a diverging map symmetric about 0.
	h, err := NewHeatMap([][]float64{{-1, 2}, {0.5, 0}})
	if err != nil {
		t.Fatal(err)
	}
	if h.Map.Min() != -2 || h.Map.Max() != 2 {
		t.Errorf("diverging range [%g, %g], want [-2, 2]", h.Map.Min(), h.Map.Max())
	}
	// Row 0 at the top: the raster's first pixel row is the matrix's row 0.
	m := [][]float64{{0, 1, 2}, {3, 4, 5}}
	h, err = NewHeatMap(m)
	if err != nil {
		t.Fatal(err)
	}
	img, err := raster(m, h.Map)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	for _, c := range []struct{ x, y, r, c int }{{0, 0, 0, 0}, {b.Dx() - 1, 0, 0, 2}, {0, b.Dy() - 1, 1, 0}} {
		want, _ := h.Map.At(m[c.r][c.c])
		if got := color.NRGBAModel.Convert(img.At(c.x, c.y)); got != color.NRGBAModel.Convert(want) {
			t.Errorf("pixel (%d, %d) = %v, want the colour of m[%d][%d] %v", c.x, c.y, got, c.r, c.c, want)
		}
	}
	// Tick labels name matrix rows from the top.
	for _, tk := range (indexTicks{flip: 1}).Ticks(0, 1) {
		if want := map[float64]string{0: "1", 1: "0"}[tk.Value]; tk.Label != want {
			t.Errorf("row tick at y = %g labelled %q, want %q", tk.Value, tk.Label, want)
		}
	}
	if _, err := Render(h, 4*vg.Inch, 3*vg.Inch); err != nil {
		t.Fatal(err)
	}
}

// A title wider than the figure is set smaller until it fits, and the plot keeps its font.
func TestRenderFitsLongTitles(t *testing.T) {
	p := linePlot(t, false)
	p.Title.Text = "a title far too long for a figure of six inches, since it goes on and on about what the plot shows"
	size := p.Title.TextStyle.Font.Size
	restore := fitTitle(p, FigureWidth)
	if got := p.Title.TextStyle.Rectangle(p.Title.Text).Size().X; got > FigureWidth {
		t.Errorf("title %v wide in a %v figure", got, FigureWidth)
	}
	if p.Title.TextStyle.Font.Size >= size {
		t.Errorf("title font %v, want smaller than %v", p.Title.TextStyle.Font.Size, size)
	}
	restore()
	if p.Title.TextStyle.Font.Size != size {
		t.Errorf("title font %v after restore, want %v", p.Title.TextStyle.Font.Size, size)
	}
	if _, err := Render(p, 0, 0); err != nil || p.Title.TextStyle.Font.Size != size {
		t.Errorf("Render left the title font at %v (err %v), want %v", p.Title.TextStyle.Font.Size, err, size)
	}
}

// LabelRows puts row r's label at the height of row r, row 0 at the top.
func TestHeatMapLabelRows(t *testing.T) {
	h, err := NewHeatMap([][]float64{{1, 2}, {3, 4}, {5, 6}})
	if err != nil {
		t.Fatal(err)
	}
	h.LabelRows("top", "middle", "bottom")
	ticks := h.Plot.Y.Tick.Marker.Ticks(-0.5, 2.5)
	want := map[float64]string{2: "top", 1: "middle", 0: "bottom"}
	if len(ticks) != len(want) {
		t.Fatalf("ticks %v", ticks)
	}
	for _, tk := range ticks {
		if want[tk.Value] != tk.Label {
			t.Errorf("tick at y = %g labelled %q, want %q", tk.Value, tk.Label, want[tk.Value])
		}
	}
}

// A heat map's rasters (the cells and the colour bar) fill their boxes in the SVG too: every
// <image> says preserveAspectRatio="none", or browsers keep the raster's aspect ratio.
func TestHeatMapSVGImagesFillTheirBoxes(t *testing.T) {
	h, err := NewHeatMap([][]float64{{1, 2, 3}, {4, 5, 6}})
	if err != nil {
		t.Fatal(err)
	}
	fig, err := Render(h, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	images := bytes.Count(fig.SVG, []byte("<image "))
	stretched := bytes.Count(fig.SVG, []byte(`<image preserveAspectRatio="none" `))
	if images != 2 || stretched != images {
		t.Errorf("SVG has %d images, %d of them stretched to their box; want 2 and 2", images, stretched)
	}
}

// A grid is its panels at the default size each, plus one legend strip under them when the first
// panel has legend entries; a ragged grid is an error.
func TestGrid(t *testing.T) {
	for _, legend := range []bool{false, true} {
		g := Grid{{linePlot(t, legend), linePlot(t, false)}, {linePlot(t, false), linePlot(t, false)}}
		f, err := g.Render()
		if err != nil {
			t.Fatal(err)
		}
		img := decodePNG(t, f.PNG)
		const w, h = 2 * 660, 2 * 440 // FigureWidth (6 in) and FigureHeight (4 in) at FigureDPI (110)
		if img.Bounds().Dx() != w || (!legend && img.Bounds().Dy() != h) || (legend && img.Bounds().Dy() <= h) {
			t.Fatalf("legend %t: the grid is %v, want %d px wide and %d px high plus a legend strip only with a legend", legend, img.Bounds(), w, h)
		}
		inked := 0
		for y := h; y < img.Bounds().Dy(); y++ {
			for x := range w {
				if r, gr, b, _ := img.At(x, y).RGBA(); r < 0x8000 || gr < 0x8000 || b < 0x8000 {
					inked++
				}
			}
		}
		if legend && inked == 0 {
			t.Fatal("the strip under the grid is blank: the legend was not drawn")
		}
		if got := g[0][0].Legend.Rectangle(draw.Canvas{}).Size().Y; legend && got == 0 {
			t.Fatal("rendering the grid lost the first plot's legend entries")
		}
	}
	if _, err := (Grid{{linePlot(t, false), linePlot(t, false)}, {linePlot(t, false)}}).Render(); err == nil {
		t.Error("a ragged grid must be an error")
	}
}

// A Row draws its first figure exactly as that figure alone at its share of the width, and the
// next one beside it, not over it.
func TestRowSideBySide(t *testing.T) {
	left, err := NewHeatMap([][]float64{{0, 1}, {2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	right, err := NewHeatMap([][]float64{{-5, 5}, {5, -5}}) // a diverging map: colours left has none
	if err != nil {
		t.Fatal(err)
	}
	pixel := vg.Inch / FigureDPI
	w, h := 300*pixel, 200*pixel
	alone, err := Render(left, w, h)
	if err != nil {
		t.Fatal(err)
	}
	row, err := Render(Row{left, right}, 2*w+rowGap, h)
	if err != nil {
		t.Fatal(err)
	}
	a, r := decodePNG(t, alone.PNG), decodePNG(t, row.PNG)
	for y := 0; y < a.Bounds().Dy(); y++ {
		for x := 0; x < a.Bounds().Dx(); x++ {
			if color.NRGBAModel.Convert(a.At(x, y)) != color.NRGBAModel.Convert(r.At(x, y)) {
				t.Fatalf("pixel (%d, %d) of the row differs from the left figure drawn alone", x, y)
			}
		}
	}
	red, _ := right.Map.At(5)
	found := false
	for y := 0; y < r.Bounds().Dy() && !found; y++ {
		for x := r.Bounds().Dx() / 2; x < r.Bounds().Dx(); x++ {
			if color.NRGBAModel.Convert(r.At(x, y)) == color.NRGBAModel.Convert(red) {
				found = true
				break
			}
		}
	}
	if !found {
		t.Error("the right half of the row does not show the right figure's cells")
	}
}

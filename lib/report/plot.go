package report

import (
	"bytes"
	"fmt"
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

// Render draws a gonum/plot plot as PNG and SVG at the given size (0 means the default).
func Render(p *plot.Plot, w, h vg.Length) (Figure, error) {
	if w == 0 {
		w = FigureWidth
	}
	if h == 0 {
		h = FigureHeight
	}
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(FigureDPI))
	p.Draw(draw.New(img))
	var pngBuf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&pngBuf); err != nil {
		return Figure{}, fmt.Errorf("report: rendering PNG: %w", err)
	}
	sv := vgsvg.New(w, h)
	p.Draw(draw.New(sv))
	var svgBuf bytes.Buffer
	if _, err := sv.WriteTo(&svgBuf); err != nil {
		return Figure{}, fmt.Errorf("report: rendering SVG: %w", err)
	}
	return Figure{PNG: pngBuf.Bytes(), SVG: svgBuf.Bytes()}, nil
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

package report_test

import (
	"fmt"
	"image/color"

	"github.com/geoalign/geoalign/lib/report"
)

// Series named after a method get the method's colour in every figure; other series get the
// remaining colours, distinct within the figure.
func ExampleColors() {
	hex := func(c color.Color) string {
		r, g, b, _ := c.RGBA()
		return fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)
	}
	for i, c := range report.Colors("GRAM", "HyperGRAM α₀ = 0.2", "pairwise cosine", "k = 3") {
		fmt.Println(i, hex(c))
	}
	// Output:
	// 0 #0072B2
	// 1 #D55E00
	// 2 #777777
	// 3 #009E73
}

// A B×B score matrix as a heat map: row 0 at the top, a colour bar at the right.
func ExampleNewHeatMap() {
	m := [][]float64{{0.1, 0.9, 0.8}, {0.7, 0.2, 0.9}, {0.8, 0.9, 0.1}}
	h, err := report.NewHeatMap(m)
	if err != nil {
		panic(err)
	}
	h.Plot.Title.Text = "Volume V[i, j] of text i with video + audio j"
	h.Plot.X.Label.Text = "sample j (video + audio)"
	h.Plot.Y.Label.Text = "sample i (text)"
	h.Bar.Y.Label.Text = "volume (unitless)"
	fig, err := report.Render(h, 0, 0)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(fig.PNG) > 0, len(fig.SVG) > 0)
	// Output: true true
}

// A loss curve: one line per loss term against the training step, each in its method's colour,
// the legend below the plot.
func ExampleLines() {
	steps := []float64{1, 2, 3, 4}
	p, err := report.Lines("Training loss", "optimizer step", "loss (nats)", steps,
		report.Series{Name: "GARE", Y: []float64{2.8, 2.5, 2.3, 2.2}},
		report.Series{Name: "baseline", Y: []float64{2.8, 2.6, 2.5, 2.45}})
	if err != nil {
		panic(err)
	}
	fig, err := report.Render(p, 0, 0)
	fmt.Println(len(fig.PNG) > 0, err)
	_, err = report.Lines("bad", "x", "y", steps, report.Series{Name: "short", Y: []float64{1}})
	fmt.Println(err)
	// Output:
	// true <nil>
	// report: series "short" has 1 values for 4 abscissae
}

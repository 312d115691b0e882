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

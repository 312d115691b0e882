package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math"
	"regexp"
)

// blankSpread is the largest standard deviation of a screenshot's grey levels (0–255) that
// counts as blank: a page of one colour has 0, a page with a few lines of text on white about 10
// and a notebook with figures 40 and more.
const blankSpread = 2.0

// stderrBlock matches an output nbconvert renders as stderr text: error outputs and the stderr
// stream look the same in HTML.
var stderrBlock = regexp.MustCompile(`(?s)data-mime-type="application/vnd\.jupyter\.stderr">\s*<pre>(.*?)</pre>`)

// htmlProblems lists what makes an exported notebook unfit to read: no figure in its outputs
// (an inline <svg> or a PNG <img>), an error output in the notebook it was exported from, or a
// Go panic printed in an output. notebook is the .ipynb the HTML was exported from (nil if none).
func htmlProblems(html, notebook []byte) []string {
	var problems []string
	if !bytes.Contains(html, []byte("<svg")) && !bytes.Contains(html, []byte(`src="data:image/png;base64,`)) {
		problems = append(problems, "no image in the HTML")
	}
	for _, m := range stderrBlock.FindAllSubmatch(html, -1) {
		if bytes.Contains(m[1], []byte("panic:")) {
			problems = append(problems, "a Go panic in an output: "+firstLine(m[1]))
		}
	}
	if notebook != nil {
		var nb struct {
			Cells []struct {
				Outputs []struct {
					OutputType string `json:"output_type"`
					Ename      string `json:"ename"`
					Evalue     string `json:"evalue"`
				} `json:"outputs"`
			} `json:"cells"`
		}
		if err := json.Unmarshal(notebook, &nb); err != nil {
			problems = append(problems, "notebook: "+err.Error())
		}
		for i, c := range nb.Cells {
			for _, o := range c.Outputs {
				if o.OutputType == "error" {
					problems = append(problems, fmt.Sprintf("cell %d: error output %s: %s", i, o.Ename, firstLine([]byte(o.Evalue))))
				}
			}
		}
	}
	return problems
}

func firstLine(b []byte) string {
	b = bytes.TrimSpace(b)
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	if len(b) > 200 {
		b = b[:200]
	}
	return string(b)
}

// greySpread decodes a PNG and returns its size and the standard deviation of its grey levels.
func greySpread(pngData []byte) (w, h int, sd float64, err error) {
	img, err := png.Decode(bytes.NewReader(pngData))
	if err != nil {
		return 0, 0, 0, err
	}
	b := img.Bounds()
	// Welford's running mean and sum of squared deviations: a page of one colour gives exactly 0.
	var n, mean, m2 float64
	add := func(g float64) {
		n++
		d := g - mean
		mean += d / n
		m2 += d * (g - mean)
	}
	if m, ok := img.(*image.RGBA); ok { // what Chromium's opaque screenshots decode to: read Pix directly
		for y := 0; y < b.Dy(); y++ {
			row := m.Pix[y*m.Stride : y*m.Stride+4*b.Dx()]
			for i := 0; i < len(row); i += 4 {
				add(luma(float64(row[i]), float64(row[i+1]), float64(row[i+2])))
			}
		}
	} else {
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				add(luma(float64(r), float64(g), float64(bl)) / 257)
			}
		}
	}
	if n == 0 {
		return b.Dx(), b.Dy(), 0, nil
	}
	return b.Dx(), b.Dy(), math.Sqrt(m2 / n), nil
}

// luma is the Rec. 601 grey level of a colour, in the colour's own scale.
func luma(r, g, b float64) float64 { return 0.299*r + 0.587*g + 0.114*b }

package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func encodePNG(t *testing.T, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestGreySpreadTellsBlankPages(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 200, 400))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	_, _, sd, err := greySpread(encodePNG(t, img))
	if err != nil || sd != 0 {
		t.Fatalf("white page: sd %g, %v; want 0", sd, err)
	}
	// One line of black text-like pixels: 200×4 of 200×400 black, p = 0.01, sd = 255·√(p(1−p)).
	draw.Draw(img, image.Rect(0, 100, 200, 104), image.NewUniform(color.Black), image.Point{}, draw.Src)
	w, h, sd, err := greySpread(encodePNG(t, img))
	if err != nil || w != 200 || h != 400 {
		t.Fatal(w, h, err)
	}
	if want := 255 * 0.0994987; sd < want-0.01 || sd > want+0.01 {
		t.Errorf("one line on white: sd %g, want %g", sd, want)
	}
	if sd <= blankSpread {
		t.Errorf("one line of text (sd %g) would count as blank", sd)
	}
}

func TestHTMLProblems(t *testing.T) {
	figure := `<div class="jp-OutputArea-output"><svg width="432pt"></svg></div>`
	stderr := func(s string) string {
		return `<div class="jp-RenderedText jp-OutputArea-output" data-mime-type="application/vnd.jupyter.stderr">` + "\n<pre>" + s + "</pre>"
	}
	okNotebook := []byte(`{"cells": [{"outputs": [{"output_type": "stream"}]}]}`)
	errNotebook := []byte(`{"cells": [{"outputs": []}, {"outputs": [{"output_type": "error", "ename": "ERROR", "evalue": "boom"}]}]}`)
	for _, c := range []struct {
		name     string
		html     string
		notebook []byte
		want     []string // substrings, one per expected problem
	}{
		{"figure, clean notebook", figure, okNotebook, nil},
		{"PNG image", `<img src="data:image/png;base64,iVBOR">`, nil, nil},
		{"no figure", `<p>text</p>`, okNotebook, []string{"no image"}},
		{"error output", figure, errNotebook, []string{"cell 1: error output ERROR: boom"}},
		{"panic printed", figure + stderr("panic: runtime error\ngoroutine 1"), okNotebook, []string{"panic: runtime error"}},
		{"harmless stderr", figure + stderr("a log line"), okNotebook, nil},
	} {
		got := htmlProblems([]byte(c.html), c.notebook)
		if len(got) != len(c.want) {
			t.Errorf("%s: problems %q, want %d", c.name, got, len(c.want))
			continue
		}
		for i := range got {
			if !strings.Contains(got[i], c.want[i]) {
				t.Errorf("%s: problem %q, want it to mention %q", c.name, got[i], c.want[i])
			}
		}
	}
}

// The screenshot covers the whole page, not the window: a page 3,000 px high, red at its
// bottom, gives a 3,000 px image whose last row is red. Needs Chromium (make setup).
func TestScreenshotIsFullPage(t *testing.T) {
	if _, err := exec.LookPath("chromium"); err != nil {
		t.Skip("chromium not installed (make setup installs it)")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "page.html")
	html := `<html><body style="margin:0"><div style="height:2900px;background:#fff">top</div>` +
		`<div style="height:100px;background:#f00"></div></body></html>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := startBrowser("chromium", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	shot, height, err := b.screenshot("file://"+page, 400, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	if height != 3000 || img.Bounds().Dy() != 3000 || img.Bounds().Dx() != 400 {
		t.Fatalf("page %d px high, screenshot %v; want 3000 and 400×3000", height, img.Bounds())
	}
	r, g, bl, _ := img.At(200, 2990).RGBA()
	if r>>8 != 0xff || g>>8 != 0 || bl>>8 != 0 {
		t.Errorf("bottom of the page is %s, want red: the screenshot stops at the window", fmt.Sprint(img.At(200, 2990)))
	}
}

// The fast path over *image.RGBA and the generic one over image.Image agree.
func TestGreySpreadFastPath(t *testing.T) {
	rgba := image.NewRGBA(image.Rect(0, 0, 30, 20))
	gray := image.NewGray(rgba.Bounds())
	for y := range 20 {
		for x := range 30 {
			v := uint8((x*7 + y*13) % 256)
			rgba.Set(x, y, color.RGBA{R: v, G: v, B: v, A: 255})
			gray.SetGray(x, y, color.Gray{Y: v})
		}
	}
	_, _, fast, err1 := greySpread(encodePNG(t, rgba))
	_, _, slow, err2 := greySpread(encodePNG(t, gray))
	if err1 != nil || err2 != nil || fast < 1 || math.Abs(fast-slow) > 1e-9 {
		t.Errorf("RGBA path %g, generic path %g (%v, %v)", fast, slow, err1, err2)
	}
}

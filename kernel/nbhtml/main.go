// Command nbhtml checks the HTML exports of executed notebooks as a person sees them: for each
// build/notebooks/<name>.html it takes a full-page screenshot <name>.png in headless Chromium
// (Debian's chromium, installed by `make setup`) and fails when the page has no figure, when
// the notebook it was exported from (<name>.ipynb beside it) has an error output or printed a Go
// panic, or when the screenshot is blank. `make notebooks-html` runs it after exporting the
// notebooks executed by `make notebooks`.
//
// Usage: go run ./kernel/nbhtml [-width 1100] [-chromium chromium] build/notebooks/*.html
//
// Exit status 1 when a page fails a check, 2 on bad usage.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/geoalign/geoalign/lib/atomicfile"
)

func main() {
	width := flag.Int("width", 1100, "page width in CSS pixels")
	chromium := flag.String("chromium", "chromium", "Chromium binary")
	timeout := flag.Duration("timeout", 2*time.Minute, "time limit of each DevTools step")
	flag.BoolVar(&verbose, "v", false, "print how long each step of each page takes")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: nbhtml [-width px] [-chromium path] page.html...")
		os.Exit(2)
	}
	log, err := os.Create(filepath.Join(filepath.Dir(flag.Arg(0)), "chromium.log"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "nbhtml:", err)
		os.Exit(2)
	}
	defer log.Close()
	b, err := startBrowser(*chromium, log)
	if err != nil {
		fmt.Fprintln(os.Stderr, "nbhtml:", err)
		os.Exit(1)
	}
	failed := 0
	for _, page := range flag.Args() {
		start := time.Now()
		problems, summary := checkPage(b, page, *width, *timeout)
		if len(problems) > 0 {
			failed++
			fmt.Printf("== %s: FAILED (%s)\n", page, summary)
			for _, p := range problems {
				fmt.Println("    " + p)
			}
			continue
		}
		fmt.Printf("== %s: ok (%s, %.1f s)\n", page, summary, time.Since(start).Seconds())
	}
	b.close()
	fmt.Printf("notebooks-html: %d passed, %d failed\n", flag.NArg()-failed, failed)
	if failed > 0 {
		os.Exit(1)
	}
}

// verbose prints the time each step of a page takes (-v).
var verbose bool

// step prints, with -v, how long the step started at start took.
func step(page, what string, start time.Time) {
	if verbose {
		fmt.Fprintf(os.Stderr, "nbhtml: %s: %s %.1f s\n", page, what, time.Since(start).Seconds())
	}
}

// checkPage checks one exported notebook and writes its screenshot beside it.
func checkPage(b *browser, page string, width int, timeout time.Duration) (problems []string, summary string) {
	html, err := os.ReadFile(page)
	if err != nil {
		return []string{err.Error()}, "unreadable"
	}
	notebook, err := os.ReadFile(strings.TrimSuffix(page, ".html") + ".ipynb")
	if err != nil {
		notebook = nil // an HTML page without its notebook is checked on its own
	}
	problems = htmlProblems(html, notebook)
	abs, err := filepath.Abs(page)
	if err != nil {
		return append(problems, err.Error()), "no screenshot"
	}
	t0 := time.Now()
	shot, height, err := b.screenshot("file://"+abs, width, timeout)
	step(page, "screenshot", t0)
	if err != nil {
		return append(problems, "screenshot: "+err.Error()), "no screenshot"
	}
	out := strings.TrimSuffix(page, ".html") + ".png"
	if err := atomicfile.WriteFile(out, shot, 0o644); err != nil {
		return append(problems, err.Error()), "no screenshot"
	}
	t0 = time.Now()
	w, h, sd, err := greySpread(shot)
	step(page, "grey-level spread", t0)
	if err != nil {
		return append(problems, "screenshot: "+err.Error()), out
	}
	if sd <= blankSpread {
		problems = append(problems, fmt.Sprintf("blank screenshot %s (grey-level sd %.2f)", out, sd))
	}
	return problems, fmt.Sprintf("%s %d×%d px, page %d px high, grey-level sd %.1f", out, w, h, height, sd)
}

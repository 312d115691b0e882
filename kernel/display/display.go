// Package display is what geoalign notebooks use to show results: gonum/plot figures
// inline (SVG, with a PNG alongside) and saved under figures/, result tables as HTML (and
// Markdown on disk), and progress bars for long loops.
//
// It only adapts lib/report and lib/progress to GoNB's gonbui; the tables, figures and
// progress logic live in the library so that commands (`make figures`) produce the same
// artefacts without Jupyter. Outside a notebook (plain `go run`, tests) the Show functions
// print a one-line note instead of displaying.
//
// Typical notebook cell:
//
//	p := plot.New() ...
//	display.Plot(p, "gram/volume-vs-angle")   // shows it, writes figures/gram/volume-vs-angle.{png,svg}
//	display.Table(tbl, "gram/table1")         // shows it, writes figures/gram/table1.{md,csv,json}
package display

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/geoalign/geoalign/lib/progress"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"
	"gonum.org/v1/plot"
)

func init() {
	if gonbui.IsNotebook {
		progress.SetDefault(notebookSink{})
	}
}

// FiguresDir is the repository's figures/ directory: $GEOALIGN_FIGURES if set, else
// figures/ next to the nearest go.mod above the working directory (GoNB runs cells in the
// notebook's directory, notebooks/).
func FiguresDir() string {
	if d := os.Getenv("GEOALIGN_FIGURES"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		return "figures"
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			if _, err := os.Stat(filepath.Join(d, "lib")); err == nil {
				return filepath.Join(d, "figures")
			}
		}
		if filepath.Dir(d) == d {
			return filepath.Join(dir, "figures")
		}
	}
}

// Plot renders p, shows it inline and saves it as figures/<name>.{png,svg}.
// An empty name shows without saving. Errors are returned, not hidden.
func Plot(p *plot.Plot, name string) error {
	fig, err := report.Render(p, 0, 0)
	if err != nil {
		return err
	}
	return Figure(fig, name)
}

// Figure shows an already rendered figure and saves it (see Plot).
func Figure(fig report.Figure, name string) error {
	if name != "" {
		if err := fig.Save(filepath.Join(FiguresDir(), name)); err != nil {
			return err
		}
	}
	if !gonbui.IsNotebook {
		fmt.Printf("[figure %s: %d bytes PNG]\n", name, len(fig.PNG))
		return nil
	}
	// One display output carrying both representations: the front-end shows the SVG
	// (sharp at any zoom); exports that cannot embed HTML use the PNG.
	gonbui.SendData(&protocol.DisplayData{Data: map[protocol.MIMEType]any{
		protocol.MIMETextHTML: "<div>" + string(fig.SVG) + "</div>",
		protocol.MIMEImagePNG: fig.PNG,
	}})
	flush()
	return nil
}

// Table shows t as HTML and, when name is not empty, saves figures/<name>.{md,csv,json}.
func Table(t *report.Table, name string) error {
	h, err := t.HTML()
	if err != nil {
		return err
	}
	if name != "" {
		if err := t.Save(filepath.Join(FiguresDir(), name)); err != nil {
			return err
		}
	}
	if !gonbui.IsNotebook {
		md, _ := t.Markdown()
		fmt.Println(md)
		return nil
	}
	gonbui.DisplayHTML(h)
	flush()
	return nil
}

// Markdown shows a Markdown snippet (e.g. a verdict line) in the notebook, or prints it.
func Markdown(md string) {
	if !gonbui.IsNotebook {
		fmt.Println(md)
		return
	}
	gonbui.DisplayMarkdown(md)
	flush()
}

// flush waits until GoNB has taken every display sent so far from the pipe (gonbui.Sync). GoNB
// stops reading a cell's pipe as soon as the cell's program exits, so output still in the pipe
// when a cell ends is lost: a figure shown by a cell's last statement went missing at random in
// headless runs (make test; a PNG+SVG figure is more than the pipe holds).
func flush() { gonbui.Sync() }

// notebookSink shows lib/progress bars as one updating HTML line per bar.
type notebookSink struct{}

var barIDs = map[string]string{}

func (notebookSink) Update(label string, current, total int, elapsed time.Duration, detail string, done bool) {
	id, ok := barIDs[label]
	if !ok {
		id = "progress_" + gonbui.UniqueID()
		barIDs[label] = id
	}
	line := progress.Line(label, current, total, elapsed, detail)
	if done {
		gonbui.UpdateHTML(id, "") // the transient bar disappears; the final state stays as text
		delete(barIDs, label)
		fmt.Println(line)
		return
	}
	bar := ""
	if total > 0 {
		bar = fmt.Sprintf(`<progress value="%d" max="%d" style="width:20em"></progress> `, current, total)
	}
	gonbui.UpdateHTML(id, fmt.Sprintf(`<div style="font-family:monospace">%s%s</div>`, bar, line))
}

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/geoalign/geoalign/lib/report"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// A run directory (RUNDIR, `geoalign train --out`):
//
//	config.json                    runSpec: model, data, the whole configuration; written once, first
//	checkpoints/epoch-NNNN/        GoMLX checkpoint of the store + state.json (latest and best kept)
//	history.json                   per-epoch loss and validation metrics (a copy of the latest state's)
//	curves.png                     training loss and validation SumR per epoch
const configFile = "config.json"

// runSpec is config.json: everything needed to rebuild the model and its data for --resume and
// `geoalign eval`.
type runSpec struct {
	Model  string          `json:"model"`
	Data   dataSource      `json:"data"`
	Config json.RawMessage `json:"config"` // the model's configuration (modelConfig), dims filled from the data
	Notes  []string        `json:"notes,omitempty"`
}

// dataSource says where a run's data are (absolute paths).
type dataSource struct {
	Dir string `json:"dir,omitempty"` // gare, gram: --data

	Root          string `json:"data_root,omitempty"` // hlformer: --data-root
	Collection    string `json:"collection,omitempty"`
	VisualFeature string `json:"visual_feature,omitempty"`
	TextFeature   string `json:"text_feature,omitempty"`
}

// readSpec reads RUNDIR/config.json.
func readSpec(run string) (*runSpec, error) {
	path := filepath.Join(run, configFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: no such file: %s is not a geoalign run directory", path, run)
	}
	if err != nil {
		return nil, err
	}
	var s runSpec
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if s.Model == "" || len(s.Config) == 0 {
		return nil, fmt.Errorf("%s: no model or config field", path)
	}
	return &s, nil
}

// isEmptyDir reports whether dir does not exist or has no entries but the temporary file of an
// interrupted atomic write (a run killed while writing its config.json).
func isEmptyDir(dir string) (bool, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		if !isTempFile(e.Name()) {
			return false, nil
		}
	}
	return true, nil
}

// isTempFile reports whether name is the temporary file of writeAtomic.
func isTempFile(name string) bool {
	return strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".tmp")
}

// writeAtomic writes path with what fill writes, through a temporary file in the same directory
// and a rename, so that path holds the old content or the new one, never a part.
// TODO(merge): lib/atomicfile.Write (branch reliab) is the project's one copy of this.
func writeAtomic(path string, fill func(w io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	err = fill(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	syncDir(filepath.Dir(path))
	return nil
}

func writeFileAtomic(path string, data []byte) error {
	return writeAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

func writeJSONAtomic(path string, v any) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, append(b, '\n'))
}

// syncDir makes renames in dir durable; its error is ignored (some file systems refuse to sync a
// directory, and the rename itself is atomic either way).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// writeCurves draws the training loss and the validation SumR (t2v) per epoch side by side.
func writeCurves(path string, history []epochRecord) error {
	loss, val := make(plotter.XYs, len(history)), make(plotter.XYs, len(history))
	for i, h := range history {
		loss[i] = plotter.XY{X: float64(h.Epoch), Y: h.Loss}
		val[i] = plotter.XY{X: float64(h.Epoch), Y: h.Val.T2V.SumR}
	}
	var plots [1][2]*plot.Plot
	for i, c := range []struct {
		title string
		xy    plotter.XYs
	}{{"training loss", loss}, {"validation SumR (text→video)", val}} {
		p := plot.New()
		p.Title.Text, p.X.Label.Text = c.title, "epoch"
		l, pts, err := plotter.NewLinePoints(c.xy)
		if err != nil {
			return err
		}
		p.Add(l, pts)
		plots[0][i] = p
	}
	w, h := 2*report.FigureWidth, report.FigureHeight
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(report.FigureDPI))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Millimeter * 4}
	canvases := plot.Align([][]*plot.Plot{plots[0][:]}, tiles, dc)
	for i, p := range plots[0] {
		p.Draw(canvases[0][i])
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return err
	}
	return writeFileAtomic(path, buf.Bytes())
}

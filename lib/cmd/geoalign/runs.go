package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/rundir"
	"github.com/geoalign/geoalign/lib/train"
)

// A run directory (RUNDIR, `geoalign train --out`) is lib/train's loop directory plus what
// `geoalign eval` and --resume need to rebuild the model and its data:
//
//	config.json                        runSpec: model, data, the whole configuration, the record of
//	                                   what made the run (lib/rundir); written first
//	.geoalign-lock                     the lock of the process using the run (its PID; lib/rundir)
//	checkpoint-*.{json,bin}, best/     GoMLX checkpoints (the latest, and the best validation epoch)
//	history.json                       per-epoch loss and validation metrics (train.HistoryFile)
//	training_plot_points.json          the same for `gomlx_checkpoints -metrics -plot RUNDIR`
//	curves.png                         training loss and validation SumR per epoch, when training ends
const (
	configFile = "config.json"
	curvesFile = "curves.png"
)

// runSpec is config.json.
type runSpec struct {
	Model  string          `json:"model"`
	Data   dataSource      `json:"data"`
	Config json.RawMessage `json:"config"` // the model's configuration (modelConfig), widths filled from the data
	Notes  []string        `json:"notes,omitempty"`
	// Made records what made the run (configuration hash, data fingerprints, code, backend);
	// eval and --resume check it. Absent in runs made before it existed.
	Made *rundir.Record `json:"made,omitempty"`
}

// dataSource says where a run's data are (absolute paths).
type dataSource struct {
	Dir string `json:"dir,omitempty"` // gare, gram: --data

	Root          string `json:"data_root,omitempty"` // hlformer: --data-root
	Collection    string `json:"collection,omitempty"`
	VisualFeature string `json:"visual_feature,omitempty"`
	TextFeature   string `json:"text_feature,omitempty"`
}

func (s dataSource) String() string {
	if s.Dir != "" {
		return s.Dir
	}
	return filepath.Join(s.Root, s.Collection) + " (" + s.VisualFeature + ")"
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

// historyRecord is what the CLI reads of one record of train.HistoryFile.
type historyRecord struct {
	Epoch int                `json:"epoch"`
	Loss  float64            `json:"loss"`
	Val   map[string]float64 `json:"val"`
	Best  bool               `json:"best"`
}

// readHistory reads RUNDIR/history.json.
func readHistory(run string) ([]historyRecord, error) {
	path := filepath.Join(run, train.HistoryFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var h []historyRecord
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}

// bestRecord is the record of the best validation (the last one marked best).
func bestRecord(h []historyRecord) (historyRecord, bool) {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Best {
			return h[i], true
		}
	}
	return historyRecord{}, false
}

// writeCurves draws the training loss and the validation metric per epoch of the runs of one
// setting named label (one history per seed: mean and standard error per epoch) side by side
// (report.CurvesGrid, the learning-curve function of every table) as a PNG.
func writeCurves(path, label string, histories ...[]historyRecord) error {
	loss, val := make([][]float64, len(histories)), make([][]float64, len(histories))
	for r, history := range histories {
		for _, h := range history {
			for len(loss[r]) < h.Epoch {
				loss[r], val[r] = append(loss[r], math.NaN()), append(val[r], math.NaN())
			}
			if h.Epoch > 0 {
				loss[r][h.Epoch-1] = h.Loss
				if v, ok := h.Val[valMetric]; ok {
					val[r][h.Epoch-1] = v
				}
			}
		}
	}
	g, err := report.CurvesGrid([]string{label}, []report.Panel{
		{Title: "training loss", YLabel: "mean training loss of the epoch", Curves: []report.Curve{{Label: label, PerRun: loss}}},
		{Title: "validation SumR (text→video)", YLabel: valMetric, Curves: []report.Curve{{Label: label, PerRun: val}}},
	})
	if err != nil {
		return err
	}
	f, err := g.Render()
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, f.PNG, 0o644)
}

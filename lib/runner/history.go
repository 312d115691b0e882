package runner

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/train"
)

// Epoch is what a run directory's readers use of one record of train.HistoryFile.
type Epoch struct {
	Epoch int                `json:"epoch"` // 1-based
	Loss  float64            `json:"loss"`
	Val   map[string]float64 `json:"val"`
	Best  bool               `json:"best"`
}

// ReadHistory reads RUNDIR/history.json.
func ReadHistory(dir string) ([]Epoch, error) {
	path := filepath.Join(dir, train.HistoryFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var h []Epoch
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}

// validated reports whether a record of the histories holds a validation.
func validated(histories ...[]Epoch) bool {
	for _, h := range histories {
		for _, e := range h {
			if e.Val != nil {
				return true
			}
		}
	}
	return false
}

// Best is the record of the best validation (the last one marked best).
func Best(h []Epoch) (Epoch, bool) {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Best {
			return h[i], true
		}
	}
	return Epoch{}, false
}

// WriteCurves draws the training loss and the validation retrieval.ValMetric per epoch of the
// runs of one setting named label (one history per seed: mean and standard error per epoch) side
// by side (report.CurvesGrid, the learning-curve function of every table) as a PNG; the loss alone
// when no history has a validation (a run whose metric is its own, lib/hierarchy).
func WriteCurves(path, label string, histories ...[]Epoch) error {
	loss, val := make([][]float64, len(histories)), make([][]float64, len(histories))
	for r, history := range histories {
		for _, h := range history {
			for len(loss[r]) < h.Epoch {
				loss[r], val[r] = append(loss[r], math.NaN()), append(val[r], math.NaN())
			}
			if h.Epoch > 0 {
				loss[r][h.Epoch-1] = h.Loss
				if v, ok := h.Val[retrieval.ValMetric]; ok {
					val[r][h.Epoch-1] = v
				}
			}
		}
	}
	panels := []report.Panel{{Title: "training loss", YLabel: "mean training loss of the epoch", Curves: []report.Curve{{Label: label, PerRun: loss}}}}
	if validated(histories...) {
		panels = append(panels, report.Panel{Title: "validation SumR (text→video)", YLabel: retrieval.ValMetric, Curves: []report.Curve{{Label: label, PerRun: val}}})
	}
	g, err := report.CurvesGrid([]string{label}, panels)
	if err != nil {
		return err
	}
	f, err := g.Render()
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, f.PNG, 0o644)
}

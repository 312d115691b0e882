package grid

import (
	"strconv"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
)

// TestGridTiny runs the whole grid on the tiny synthetic configuration and checks its shape: one
// row per similarity, R@1 and SumR per task, "—" exactly where the task does not admit the
// similarity, and "mean ± std" numbers in the admissible cells (R@1 in [0, 100], SumR ≥ R@1).
func TestGridTiny(t *testing.T) {
	if testing.Short() {
		t.Skip("trains every model of the grid")
	}
	backend.SkipOnXLA(t, "trains every model of the grid for 2 seeds: dozens of distinct programs, over 10 min of XLA compiling; "+
		"the grid's logic is backend-independent and runs on the Go backend in every go test, the models' numbers on XLA are "+
		"lib/parity's and their training lib/cmd/geoalign's TestTrainEval*")
	res, err := RunGrid(backend.MustNew(), TinyGridSize([]int64{1, 2}))
	if err != nil {
		t.Fatal(err)
	}
	tab := res.Table
	// Every trained row has its learning curves: the GRAM family (one row of panels per task) and
	// GARE's and HLFormer's loss and validation figures, each named in the notes.
	for _, name := range []string{GridCurvesGRAM, GridCurvesGARE + "-curves-loss", GridCurvesGARE + "-curves-val", GridCurvesHLFormer + "-curves-loss", GridCurvesHLFormer + "-curves-val"} {
		g, ok := res.Curves[name]
		if !ok {
			t.Errorf("no learning curves %q", name)
			continue
		}
		if _, err := g.Render(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if !strings.Contains(strings.Join(tab.Provenance.Notes, "\n"), name) {
			t.Errorf("the notes do not name %q", name)
		}
	}
	if rows := len(res.Curves[GridCurvesGRAM]); rows != 2 {
		t.Errorf("GRAM-family curves: %d rows of panels, want 2 (tri-modal, text–video)", rows)
	}
	if md, err := tab.Markdown(); err == nil {
		t.Log(md)
	}
	if len(tab.Columns) != 1+2*len(GridTasks) {
		t.Fatalf("%d columns, want %d", len(tab.Columns), 1+2*len(GridTasks))
	}
	if len(tab.Rows) != len(GridRows) {
		t.Fatalf("%d rows, want %d", len(tab.Rows), len(GridRows))
	}
	// Which (row, task) pairs are admitted: the Δ row and its control only on text–video.
	admitted := func(row string, task int) bool {
		return !(row == GridDelta || row == GridGARECosine) || task == 1
	}
	mean := func(cell string) (float64, bool) {
		m, s, ok := strings.Cut(cell, " ± ")
		if !ok {
			return 0, false
		}
		v, err1 := strconv.ParseFloat(m, 64)
		_, err2 := strconv.ParseFloat(s, 64)
		return v, err1 == nil && err2 == nil
	}
	for r, row := range tab.Rows {
		if row[0] != GridRows[r] {
			t.Errorf("row %d is %q, want %q", r, row[0], GridRows[r])
		}
		for task := range GridTasks {
			r1, sumR := row[1+2*task], row[2+2*task]
			if !admitted(GridRows[r], task) {
				if r1 != gridNotAdmitted || sumR != gridNotAdmitted {
					t.Errorf("%s × %s: got %q, %q, want %q", GridRows[r], GridTasks[task], r1, sumR, gridNotAdmitted)
				}
				continue
			}
			v1, ok1 := mean(r1)
			vs, ok2 := mean(sumR)
			if !ok1 || !ok2 || v1 < 0 || v1 > 100 || vs < v1 {
				t.Errorf("%s × %s: cells %q, %q are not R@1 and SumR numbers", GridRows[r], GridTasks[task], r1, sumR)
			}
		}
	}
	// The recomputed PRVR cosine must reproduce HLFormer's own evaluation (a note states the gap).
	found := false
	for _, n := range tab.Provenance.Notes {
		if strings.HasPrefix(n, "[PRVR]") {
			found = true
			i := strings.LastIndex(n, "within ")
			gap, err := strconv.ParseFloat(strings.TrimSuffix(n[i+len("within "):], "."), 64)
			if err != nil || gap > 0.5 {
				t.Errorf("recomputed PRVR cosine deviates from the model's SumR: %q", n[i:])
			}
		}
	}
	if !found {
		t.Error("no [PRVR] provenance note")
	}
}

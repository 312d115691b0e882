package grid

import (
	"strconv"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/geoalign/geoalign/lib/models/gram"
	garestudy "github.com/geoalign/geoalign/lib/studies/garestudy"
	gramstudy "github.com/geoalign/geoalign/lib/studies/gramstudy"
	"github.com/geoalign/geoalign/lib/studies/hlformerstudy"
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
	res, err := RunGrid(backend.MustNew(), tinyGridSize([]int64{1, 2}))
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

// tinyGridSize is a seconds-long grid on synthetic data only: a 256-tuple
// synthetic tri-modal set, 256 synthetic text–video pairs, a 64-video synthetic PRVR world, one or
// two epochs of every model.
func tinyGridSize(seeds []int64) GridSize {
	gs := garestudy.SmallScale()
	gs.Dim, gs.TemporalHeads, gs.Batch, gs.PretrainEpochs, gs.Epochs = 16, 2, 32, 1, 1
	hs := hlformerstudy.CIScale
	hs.Name, hs.TrainVideos, hs.TestVideos, hs.Dim, hs.LorentzDim, hs.FrameLen, hs.QueryLen, hs.Epochs, hs.BatchVideos = "tiny", 0, 0, 16, 7, 16, 8, 1, 16
	return GridSize{
		Name:  "tiny",
		Seeds: seeds,
		TriModal: func(o gramstudy.Options) (*gram.Dataset, error) {
			cfg := o.SyntheticConfig(0, 0.3)
			cfg.N = 256
			return gram.SyntheticTriModal(cfg, 64)
		},
		GramEpochs: 2,
		TextVideo: func() (*gare.Dataset, *gare.Dataset, error) {
			return garestudy.SyntheticData(256, 192, 0, 1)
		},
		GARE:     gs,
		PRVR:     func() (*hlformerstudy.Setup, error) { return hlformerstudy.SyntheticSetup(7, 64) },
		HLFormer: hs,
	}
}

package gramstudy

import (
	"slices"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/models"
	"github.com/geoalign/geoalign/lib/models/gram"
)

// Volumes splits a batch's volume matrix by hand-checked entries: the diagonal is the matched
// volumes, the rest row by row the unmatched ones; a diagonal below every other entry of its row
// ranks every anchor's own tuple first (R@1 100 %), one above them ranks it last (R@1 0 %).
func TestWalkthroughVolumes(t *testing.T) {
	s, err := gram.NewSplit([][]float32{{1, 2, 3}, {4, 5, 6}}, []int{1, 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := Options{}.NewWalkthrough(GRAM, &gram.Dataset{Name: "toy", Train: s, Test: s})
	if w.Batch.N != 3 {
		t.Fatalf("batch of %d tuples from a 3-tuple split", w.Batch.N)
	}
	r, err := w.Volumes([][]float64{{0.1, 0.5, 0.6}, {0.7, 0.2, 0.8}, {0.9, 0.4, 0.3}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Matched, []float64{0.1, 0.2, 0.3}) || !slices.Equal(r.Unmatched, []float64{0.5, 0.6, 0.7, 0.8, 0.9, 0.4}) {
		t.Errorf("matched %v, unmatched %v", r.Matched, r.Unmatched)
	}
	if got := r.Eval.T2V.R(1); got != 100 {
		t.Errorf("R@1 with the diagonal smallest in every row: %v, want 100", got)
	}
	r, err = w.Volumes([][]float64{{0.9, 0.5, 0.6}, {0.7, 0.9, 0.8}, {0.1, 0.4, 0.9}})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Eval.T2V.R(1); got != 0 {
		t.Errorf("R@1 with the diagonal largest in every row: %v, want 0", got)
	}
	if _, err := w.Volumes([][]float64{{1, 2}, {3, 4}}); err == nil {
		t.Error("a 2×2 matrix for a batch of 3 was accepted")
	}
}

// TrainBatch (one models.Run on the batch alone) takes the steps the notebooks' live cells took
// with the model's own trainer, one Trainer.RunEpoch per step: the same losses, τ and α, bit for bit.
func TestTrainBatchIsTheTrainersSteps(t *testing.T) {
	backend.SkipOnXLA(t, "trains HyperGRAM twice on the Go backend; the walkthrough's logic is backend-independent")
	d := tinySet(t)
	w := Options{}.NewWalkthrough(HyperGRAM, d)
	got, err := w.TrainBatch(models.Output{Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	cfg := HyperGRAM.Config
	cfg.BatchSize, cfg.Epochs, cfg.Seed, cfg.ValFraction, cfg.Quiet = w.Batch.N, w.Steps, w.Seed, 0, true
	tr, err := gram.NewTrainer(backend.MustNew(), &gram.Dataset{Name: "batch", Kind: d.Kind, Modalities: d.Modalities, Train: w.Batch, Test: d.Test}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != w.Steps {
		t.Fatalf("%d steps, want %d", len(got), w.Steps)
	}
	for i := range w.Steps {
		s, err := tr.RunEpoch()
		if err != nil {
			t.Fatal(err)
		}
		if g := got[i]; g.Loss != s.Loss || g.Temperature != s.Temperature || g.Alpha != s.Alpha || g.Step != int64(i+1) {
			t.Errorf("step %d: TrainBatch loss %v τ %v α %v, trainer %v %v %v", i+1, g.Loss, g.Temperature, g.Alpha, s.Loss, s.Temperature, s.Alpha)
		}
	}
}

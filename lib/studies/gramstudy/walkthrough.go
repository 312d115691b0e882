package gramstudy

import (
	"fmt"

	"github.com/geoalign/geoalign/lib/loss"
	"github.com/geoalign/geoalign/lib/models"
	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// WalkthroughBatch is the size of a walkthrough's batch: the first 16 training tuples.
const WalkthroughBatch = 16

// Walkthrough is the model opened on one batch, as notebooks 10-gram and 11-hypergram walk through
// it before their evidence (their "Walkthrough" sections): the study's model of Variant for Seed,
// trained on Data as the study trains it, and the batch, Data's first WalkthroughBatch training
// tuples.
type Walkthrough struct {
	Variant Variant
	// Seed is the study's run the walkthrough opens (1, the first of Options' seeds).
	Seed int64
	// Steps is the number of live training steps on the batch (5).
	Steps int
	Data  *gram.Dataset
	// Batch is Data.Train's first WalkthroughBatch tuples (fewer if the split is smaller).
	Batch   *gram.Split
	options Options
}

// NewWalkthrough opens variant v on d (the notebooks: Options.TuxPaint, features standardised with
// the training split's statistics).
func (o Options) NewWalkthrough(v Variant, d *gram.Dataset) *Walkthrough {
	idx := make([]int, min(WalkthroughBatch, d.Train.N))
	for i := range idx {
		idx[i] = i
	}
	return &Walkthrough{Variant: v, Seed: 1, Steps: 5, Data: d, Batch: d.Train.Subset(idx), options: o}
}

// Model is the study's model of the variant for the walkthrough's seed (Options.Train with an
// evaluation every epoch, as the study's learning curves train it): trained once, then reloaded
// from Options.CacheDir.
func (w *Walkthrough) Model() (*gram.Trainer, error) {
	r, err := w.options.Train(w.Data, w.Variant, w.Seed, 1)
	if err != nil {
		return nil, err
	}
	return r.Trainer, nil
}

// TrainBatch trains a fresh model of the variant (seed Seed) on the batch alone for Steps optimizer
// steps, one step per epoch (no validation split), as one models.Run (gram.NewRun, Run.Train with
// out; out.Dir "" keeps it in memory), and returns each step's statistics (History of its records).
func (w *Walkthrough) TrainBatch(out models.Output) ([]gram.EpochStats, error) {
	cfg := w.Variant.Config
	cfg.BatchSize, cfg.Epochs, cfg.Seed, cfg.ValFraction = w.Batch.N, w.Steps, w.Seed, 0
	one := &gram.Dataset{Name: "the walkthrough batch", Kind: w.Data.Kind, Modalities: w.Data.Modalities, Train: w.Batch, Test: w.Data.Test}
	run, err := gram.NewRun(w.options.backend(), cfg, one, nil)
	if err != nil {
		return nil, err
	}
	res, err := run.Train(out)
	if err != nil {
		return nil, err
	}
	return History(res)
}

// Inputs is the batch as the model's inputs: one [B, dim] tensor per modality, anchor (text) first.
func (w *Walkthrough) Inputs() []any {
	s := w.Batch
	in := make([]any, s.NumModalities())
	for m := range in {
		in[m] = tensors.FromFlatDataAndDimensions(s.Features[m], s.N, s.Dims[m])
	}
	return in
}

// Provenance says where a walkthrough table comes from: the batch, the seed and config.
func (w *Walkthrough) Provenance(config any) report.Provenance {
	return report.Provenance{Data: fmt.Sprintf("the walkthrough batch: the first %d training tuples of %s", w.Batch.N, barName(w.Data)),
		Kind: w.Data.Kind, Seeds: []int64{w.Seed}, Config: config}
}

// BatchVolumes is a batch's volume matrix read as the walkthrough reads it.
type BatchVolumes struct {
	// Matched are the volumes V[i, i] (anchor i with its own tuple), Unmatched the V[i, j ≠ i] row by row.
	Matched, Unmatched []float64
	// Eval is the retrieval of −V within the batch (gram.EvaluateScores with the batch's relevance).
	Eval gram.Evaluation
}

// Volumes reads a [B, B] volume matrix of the batch (row i: anchor i, column j: tuple j; smaller is
// better aligned).
func (w *Walkthrough) Volumes(v [][]float64) (BatchVolumes, error) {
	var r BatchVolumes
	b := w.Batch.N
	if len(v) != b {
		return r, fmt.Errorf("gramstudy: volume matrix of %d rows for a batch of %d", len(v), b)
	}
	scores := make([]float32, 0, b*b)
	for i, row := range v {
		if len(row) != b {
			return r, fmt.Errorf("gramstudy: volume matrix row %d has %d columns for a batch of %d", i, len(row), b)
		}
		for j, x := range row {
			if i == j {
				r.Matched = append(r.Matched, x)
			} else {
				r.Unmatched = append(r.Unmatched, x)
			}
			scores = append(scores, float32(-x))
		}
	}
	var err error
	r.Eval, err = gram.EvaluateScores(scores, b, w.Batch.Relevant)
	return r, err
}

// Encode runs every modality's encoder and contra head (gram.Encode) on features x (one [B, in]
// node per modality, anchor first): the encoder outputs [B, Hidden] (DAM's input) and the heads
// [B, ContraDim] before normalisation (the volume's input).
func Encode(scope *model.Scope, cfg gram.Config, x []*graph.Node) (hidden, heads []*graph.Node) {
	for m, xm := range x {
		h, head := gram.Encode(scope, cfg, m, xm)
		hidden, heads = append(hidden, h), append(heads, head)
	}
	return hidden, heads
}

// ModelVolume is the model's own volume in graph g: gram.VolumeFunc of cfg's geometry, with the
// learned α (gram.Alpha) for the hybrid one.
func ModelVolume(scope *model.Scope, cfg gram.Config, g *graph.Graph) loss.VolumeFunc {
	var alpha *graph.Node
	if cfg.Geometry == gram.Hybrid {
		alpha = gram.Alpha(scope.Store(), g, cfg)
	}
	return gram.VolumeFunc(cfg.Geometry, cfg.RawLift, alpha)
}

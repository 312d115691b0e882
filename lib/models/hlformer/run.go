package hlformer

import (
	"fmt"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/models"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/ml/model"
)

// RunConfig is HLFormer's whole configuration as a run (models.Run, `geoalign train hlformer`'s
// config.json) holds it: the architecture, the objective's weights and the training schedule.
type RunConfig struct {
	Model    Config     // the architecture (PaperConfig)
	Loss     LossConfig // the objective's weights (CharadesLoss)
	Training Training
}

// Training is the part of TrainConfig a run's configuration holds, plus the validation share; the
// rest of the recipe is TrainConfig's defaults (the code's weight-decay grouping CodeNoDecay, its
// warmup_linear schedule, float32, every batch of an epoch).
type Training struct {
	Epochs            int
	BatchVideos       int     // videos per batch, each with all its captions
	QueryBucket       int     // queries per batch rounded down to a multiple of this (Batching; 0: off)
	DropPartialBatch  bool    // drop the last incomplete batch of every epoch (static shapes); the official code trains it
	LearningRate      float64 // BertAdam, warmup_linear over 1 % of the steps
	HardNegativeStart int     // first epoch (0-based) with hard triplet negatives
	Patience          int     // early stop after this many epochs without a better validation SumR
	VideoChunk        int     // videos per block of the chunked step (0: DefaultChunk of the backend, SingleGraphStep: one graph)
	Seed              int64
	ValFraction       float64 // validation share of the training videos when the data has no val split
}

// DefaultRunConfig is the official Charades-STA configuration (PaperConfig, CharadesLoss,
// CharadesTraining) with the feature widths left to the data (0) and data.DefaultValFraction.
func DefaultRunConfig() RunConfig {
	tc := CharadesTraining()
	return RunConfig{
		Model: PaperConfig(0, 0),
		Loss:  CharadesLoss(),
		Training: Training{Epochs: tc.Epochs, BatchVideos: tc.BatchVideos, QueryBucket: tc.QueryBucket,
			LearningRate: tc.LearningRate, HardNegativeStart: tc.HardNegativeStart, Patience: tc.Patience,
			VideoChunk: tc.VideoChunk, Seed: tc.Seed, ValFraction: data.DefaultValFraction},
	}
}

// Validate reports a training schedule outside its domain.
func (t Training) Validate() error {
	if !(t.ValFraction > 0 && t.ValFraction < 1) {
		return fmt.Errorf("Training.ValFraction = %g outside (0, 1)", t.ValFraction)
	}
	if t.Epochs < 1 || t.BatchVideos < 2 || t.LearningRate <= 0 || t.QueryBucket < 0 || t.Patience < 0 {
		return fmt.Errorf("Training: need Epochs ≥ 1, BatchVideos ≥ 2, LearningRate > 0, QueryBucket ≥ 0, Patience ≥ 0 (got %d, %d, %g, %d, %d)",
			t.Epochs, t.BatchVideos, t.LearningRate, t.QueryBucket, t.Patience)
	}
	return nil
}

// TrainConfig is the schedule t trains with: TrainConfig's defaults and t's fields.
func (t Training) TrainConfig() TrainConfig {
	return TrainConfig{Epochs: t.Epochs, BatchVideos: t.BatchVideos, QueryBucket: t.QueryBucket, PartialBatch: !t.DropPartialBatch, LearningRate: t.LearningRate,
		HardNegativeStart: t.HardNegativeStart, Patience: t.Patience, VideoChunk: t.VideoChunk, Seed: t.Seed, DType: dtypes.Float32}
}

// Run is an HLFormer model on a collection (models.Run): Train is NewTrainer's Train, Evaluate is
// Evaluator.EvaluateStream.
type Run struct {
	cfg     RunConfig
	backend compute.Backend
	model   *Model
	store   *model.Store
	eval    *Evaluator
	load    func(split string) (*prvr.Split, error)
	notes   []string
}

var _ models.Run = (*Run)(nil)

// NewRun builds the model of cfg (its feature widths set) with a store seeded by
// cfg.Training.Seed. load returns a split by name ("train" and "val" for training, any of "train",
// "val", "test" for Evaluate), loading it when first asked; notes are facts about the data a result
// must carry (Run.Notes).
func NewRun(backend compute.Backend, cfg RunConfig, load func(split string) (*prvr.Split, error), notes []string) (*Run, error) {
	if err := cfg.Training.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Model.Validate(); err != nil {
		return nil, err
	}
	r := &Run{cfg: cfg, backend: backend, load: load, notes: notes}
	var err error
	if r.model, err = New(cfg.Model); err != nil {
		return nil, err
	}
	if r.store, err = NewStore(cfg.Training.Seed); err != nil {
		return nil, err
	}
	if r.eval, err = NewEvaluator(backend, r.model, r.store, dtypes.Float32); err != nil {
		return nil, err
	}
	return r, nil
}

// Store holds the model's variables.
func (r *Run) Store() *model.Store { return r.store }

// Notes are the notes NewRun was given.
func (r *Run) Notes() []string { return r.notes }

// Train trains on the "train" split, validated on "val", with NewTrainer (the code's recipe:
// BertAdam with CodeNoDecay, warmup_linear, hard negatives from Training.HardNegativeStart); the
// store is then the trainer's, holding the best validation's weights.
func (r *Run) Train(out models.Output) (*train.Result, error) {
	tr, err := r.load("train")
	if err != nil {
		return nil, err
	}
	val, err := r.load("val")
	if err != nil {
		return nil, err
	}
	tc := r.cfg.Training.TrainConfig()
	tc.CheckpointDir, tc.Log, tc.Progress, tc.Label, tc.Devices = out.Dir, out.Log, !out.Quiet, out.Label, out.Devices
	t, err := NewTrainer(r.backend, r.model, r.cfg.Loss, tc, tr, val)
	if err != nil {
		return nil, err
	}
	r.store, r.eval = t.Store, t.eval
	res, err := t.Train()
	if err != nil {
		return nil, err
	}
	return res.Loop, nil
}

// Evaluate scores a split by Evaluator.EvaluateStream (videos encoded and scored one chunk at a
// time): the PRVR protocol, text→video R@1/5/10/100.
func (r *Run) Evaluate(split string, keep bool) (*models.Evaluation, error) {
	s, err := r.load(split)
	if err != nil {
		return nil, err
	}
	res, scores, err := r.eval.EvaluateStream(s)
	if err != nil {
		return nil, err
	}
	ev := &models.Evaluation{Result: res, Opts: retrieval.Options{Ks: retrieval.PRVRKs}, Rows: s.NumQueries(), Cols: s.NumVideos(), GT: s.QueryVideo}
	if keep {
		ev.Scores = scores
	}
	return ev, nil
}

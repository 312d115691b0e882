package gare

import (
	"fmt"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/models"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/ml/model"
)

// RunConfig is GARE's whole configuration as a run (models.Run, `geoalign train gare`'s
// config.json) holds it: the model with its loss, optimiser and epochs (Config), and the run's
// training options. Model.Patience and Model.ValFraction are not used: a run has its validation
// split given (Training.ValFraction is the data's share for it) and stops by Training.Patience.
type RunConfig struct {
	Model    Config // architecture, loss and optimiser (DefaultConfig); Epochs is here
	Training Training
}

// Training are the options of a run's training besides Config.
type Training struct {
	Seed        int64
	Patience    int     // early stop after this many epochs without a better validation SumR (0: never)
	ValFraction float64 // validation share of the training videos when the data has no validation split
	TextChunk   int     // texts per block of the chunked step (0 or SingleGraphStep: the single-graph step, the default; n > 0: chunked, less memory)
}

// DefaultRunConfig is the official code (DefaultConfig) with the feature widths, the frame and word
// counts left to the data (0), and data.DefaultValFraction.
func DefaultRunConfig() RunConfig {
	c := DefaultConfig()
	c.TextInputDim, c.VideoInputDim, c.Frames, c.Words = 0, 0, 0, 0
	return RunConfig{Model: c, Training: Training{ValFraction: data.DefaultValFraction}}
}

// Validate reports a configuration a run cannot train (Config.Validate checks the rest when the
// model is built).
func (c RunConfig) Validate() error {
	if c.Training.Patience < 0 || c.Model.Epochs < 1 || c.Model.Batch < 2 {
		return fmt.Errorf("need Model.Epochs ≥ 1, Model.Batch ≥ 2, Training.Patience ≥ 0 (got %d, %d, %d)", c.Model.Epochs, c.Model.Batch, c.Training.Patience)
	}
	return nil
}

// config is the model's Config of a run: Model with Training.Patience.
func (c RunConfig) config() Config {
	mc := c.Model
	mc.Patience = c.Training.Patience
	return mc
}

// Run is a GARE model on a text–video data set (models.Run): Train is Model.NewTrainer's Train with
// the validation split given, Evaluate scores with a Scorer.
type Run struct {
	cfg   RunConfig
	m     *Model
	pairs *Dataset // paired training set: caption i ↔ its video
	load  func(split string) (*Dataset, error)
	notes []string

	every  int             // Observe's period (0: no observer)
	onStep func(int) error // Observe's observer
}

var _ models.Run = (*Run)(nil)

// NewRun builds the model of cfg (its feature widths set), initialised from cfg.Training.Seed.
// pairs is the training set (paired: caption i ↔ its video); load returns a retrieval set by name
// ("train", "val", "test"): "val" validates training; notes are facts about the data a result must
// carry (Run.Notes).
func NewRun(backend compute.Backend, cfg RunConfig, pairs *Dataset, load func(split string) (*Dataset, error), notes []string) (*Run, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m, err := New(backend, cfg.config(), cfg.Training.Seed)
	if err != nil {
		return nil, err
	}
	return &Run{cfg: cfg, m: m, pairs: pairs, load: load, notes: notes}, nil
}

// Store holds the model's variables.
func (r *Run) Store() *model.Store { return r.m.Store }

// Model is the run's model (its weights are Store's): what a study probes or evaluates beyond
// Evaluate's metrics, e.g. after runner.LoadBest.
func (r *Run) Model() *Model { return r.m }

// Config is the run's configuration, as NewRun was given it (`geoalign train gare`'s config.json).
func (r *Run) Config() RunConfig { return r.cfg }

// Notes are the notes NewRun was given.
func (r *Run) Notes() []string { return r.notes }

// Train trains on the paired training set with Model.NewTrainer (the code's recipe, Model.Optimizer;
// every epoch a permutation of the pairs from the loop's data-order generator, seeded by
// Training.Seed, cut into full batches of Model.Batch), validated on the "val" set.
func (r *Run) Train(out models.Output) (*train.Result, error) {
	val, err := r.load("val")
	if err != nil {
		return nil, err
	}
	t, err := r.m.NewTrainer(r.pairs, TrainOptions{Seed: r.cfg.Training.Seed, TextChunk: r.cfg.Training.TextChunk, Val: val,
		Dir: out.Dir, Label: out.Label, Quiet: out.Quiet, Log: out.Log, Devices: out.Devices, Every: r.every, OnStep: r.onStep})
	if err != nil {
		return nil, err
	}
	return t.Train()
}

// Observe makes Train call fn(step) before the first step, every `every` steps and after the last
// (TrainOptions.Every and OnStep: probes of the training dynamics, e.g. the geometry of Δ; an error
// stops training). The loop then also takes its records (validation, history.json, checkpoints)
// every `every` steps instead of every epoch, so an observed run's directory is not the unobserved
// run's; a resumed run is observed from its checkpoint on only. every ≤ 0 or fn nil: no observer.
func (r *Run) Observe(every int, fn func(step int) error) { r.every, r.onStep = every, fn }

// WarmStart starts the run from the encoders of from, a gare Run whose configuration agrees on them
// (Model.CopyEncodersFrom: input projections, frame positions, temporal transformer; ψ keeps its
// own initialisation): the stage-1 encoders that play CLIP's part. A run that resumes from a
// checkpoint continues from the checkpoint.
func (r *Run) WarmStart(from models.Run) error {
	src, ok := from.(*Run)
	if !ok {
		return fmt.Errorf("gare: WarmStart from a %T, want a gare run", from)
	}
	return r.m.CopyEncodersFrom(src.m)
}

// Evaluate scores a split with a Scorer, block by block (Δ is never stored): text→video and
// video→text R@1/5/10, MdR, MnR (GARE's CLIP4Clip-style metrics). With keep the matrix is
// materialised.
func (r *Run) Evaluate(split string, keep bool) (*models.Evaluation, error) {
	ds, err := r.load(split)
	if err != nil {
		return nil, err
	}
	sc, err := r.m.NewScorer(ds, ds.Videos(), ScorerOptions{})
	if err != nil {
		return nil, err
	}
	ev := &models.Evaluation{Opts: retrieval.Options{VideoToText: true}, Rows: ds.NumTexts, Cols: ds.NumVideos, GT: ds.GroundTruth()}
	var scorer retrieval.BlockScorer[float32] = sc
	if keep {
		mat, err := sc.Matrix()
		if err != nil {
			return nil, err
		}
		scorer, ev.Scores = mat, mat.Data
	}
	ev.Result, err = retrieval.Evaluate(scorer, ev.GT, ev.Opts)
	return ev, err
}

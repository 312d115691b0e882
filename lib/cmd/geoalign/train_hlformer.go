package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/bigfile"
	"github.com/geoalign/geoalign/lib/data/captions"
	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/models/hlformer"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/ml/model"
)

var hlformerKind = modelKind{
	name:    "hlformer",
	summary: "HLFormer (ICCV 2025), partially relevant video retrieval on MS-SL-layout features",
	prvr:    true,
	layout: `Data: the MS-SL / HLFormer layout (the official release of Charades-STA, TVR and ActivityNet
features drops in as is):

  DIR/NAME/FeatureData/FEATURE/{shape.txt, id.txt, feature.bin, video2frames.txt}   video frames (BigFile)
  DIR/NAME/TextData/NAME{train,val,test}.caption.txt   "<video_id>#enc#<k> <sentence>" lines
  DIR/NAME/TextData/roberta_NAME_query_feat.hdf5       one (n_tokens, D_q) dataset per caption id

with DIR = --data-root, NAME = --collection, FEATURE = --visual-feature (--text-feature names another
HDF5 file under TextData). Each video is processed as the official provider does (32 clips by segment
averaging, at most 128 frames, L2 normalisation; queries cut to 30 tokens).

Validation: NAMEval.caption.txt when it exists and differs from the test captions. The official
Charades-STA release has no validation split (its val file is a copy of test, and the official code
selects the model on it); here the model is never selected on test: without a distinct val split,
Training.ValFraction of the training videos (a fixed choice, the same for every seed) are set aside
for validation — a deviation from the official code, recorded in RUNDIR/config.json.`,
	defaults: func() modelConfig { return hlformerDefaults() },
}

// hlformerConfig is `geoalign train hlformer`'s configuration.
type hlformerConfig struct {
	Model    hlformer.Config     // the architecture (hlformer.PaperConfig)
	Loss     hlformer.LossConfig // the objective's weights (hlformer.CharadesLoss)
	Training hlformerTraining
}

// hlformerTraining is hlformer.TrainConfig's schedule, plus the validation share.
type hlformerTraining struct {
	Epochs            int
	BatchVideos       int     // videos per batch, each with all its captions
	QueryBucket       int     // queries per batch rounded down to a multiple of this (hlformer.Batching; 0: off)
	DropPartialBatch  bool    // drop the last incomplete batch of every epoch (static shapes); the official code trains it
	LearningRate      float64 // BertAdam, warmup_linear over 1 % of the steps
	HardNegativeStart int     // first epoch (0-based) with hard triplet negatives
	Patience          int     // early stop after this many epochs without a better validation SumR
	VideoChunk        int     // videos per block of the chunked step (0: default, -1: single graph)
	Seed              int64
	ValFraction       float64 // validation share of the training videos when there is no val split
}

// hlformerDefaults is the official Charades-STA configuration (hlformer.PaperConfig,
// CharadesLoss, CharadesTraining).
func hlformerDefaults() *hlformerConfig {
	tc := hlformer.CharadesTraining()
	return &hlformerConfig{
		Model: hlformer.PaperConfig(0, 0),
		Loss:  hlformer.CharadesLoss(),
		Training: hlformerTraining{Epochs: tc.Epochs, BatchVideos: tc.BatchVideos, QueryBucket: tc.QueryBucket,
			LearningRate: tc.LearningRate, HardNegativeStart: tc.HardNegativeStart, Patience: tc.Patience,
			VideoChunk: tc.VideoChunk, Seed: tc.Seed, ValFraction: data.DefaultValFraction},
	}
}

func (c *hlformerConfig) run() runFields {
	t := &c.Training
	return runFields{Epochs: &t.Epochs, Seed: &t.Seed, Patience: t.Patience, ValFraction: t.ValFraction}
}

// hlformerRun is an HLFormer model on a collection.
type hlformerRun struct {
	cfg    *hlformerConfig
	layout prvr.Layout
	m      *hlformer.Model
	store  *model.Store
	step   hlformer.Step
	eval   *hlformer.Evaluator
	splits map[string]*prvr.Split // loaded splits; "val" may be carved from "train"
	notes  []string
}

func (c *hlformerConfig) open(backend compute.Backend, src dataSource, training bool) (modelRun, error) {
	t := c.Training
	if !(t.ValFraction > 0 && t.ValFraction < 1) {
		return nil, fmt.Errorf("Training.ValFraction = %g outside (0, 1)", t.ValFraction)
	}
	if t.Epochs < 1 || t.BatchVideos < 2 || t.LearningRate <= 0 || t.QueryBucket < 0 || t.Patience < 0 {
		return nil, fmt.Errorf("Training: need Epochs ≥ 1, BatchVideos ≥ 2, LearningRate > 0, QueryBucket ≥ 0, Patience ≥ 0 (got %d, %d, %g, %d, %d)",
			t.Epochs, t.BatchVideos, t.LearningRate, t.QueryBucket, t.Patience)
	}
	r := &hlformerRun{cfg: c, splits: map[string]*prvr.Split{},
		layout: prvr.Layout{Root: src.Root, Collection: src.Collection, VisualFeature: src.VisualFeature, TextFeature: src.TextFeature}}
	if err := r.checkFiles(); err != nil {
		return nil, err
	}
	if training {
		if err := r.loadTrainVal(); err != nil {
			return nil, err
		}
		if err := r.checkSplits(); err != nil {
			return nil, err
		}
	}
	if err := c.Model.Validate(); err != nil {
		return nil, err
	}
	var err error
	if r.m, err = hlformer.New(c.Model); err != nil {
		return nil, err
	}
	if r.store, err = hlformer.NewStore(t.Seed); err != nil {
		return nil, err
	}
	if training {
		tr := r.splits["train"]
		// The number of batches does not depend on the shuffle.
		plans := r.batching().Plan(tr, rand.New(rand.NewPCG(0, 0)))
		batches := len(plans)
		if batches == 0 {
			return nil, fmt.Errorf("%s: the training split has %d videos, fewer than one batch of Training.BatchVideos = %d (Training.DropPartialBatch drops the smaller one)",
				r.layout.CaptionFile("train"), tr.NumVideos(), t.BatchVideos)
		}
		r.notes = append(r.notes, batchingNotes(t, tr, plans)...)
		chunk := t.VideoChunk
		if chunk == 0 {
			chunk = hlformer.DefaultVideoChunk
		}
		opt := train.BertAdam(t.LearningRate, t.Epochs*batches)
		if r.step, err = hlformer.NewStep(backend, r.m, r.store, opt, c.Loss, chunk); err != nil {
			return nil, err
		}
	}
	if r.eval, err = hlformer.NewEvaluator(backend, r.m, r.store, dtypes.Float32); err != nil {
		return nil, err
	}
	return r, nil
}

// checkFiles reports a missing directory or file of the layout before anything is loaded.
func (r *hlformerRun) checkFiles() error {
	for _, p := range []string{
		filepath.Join(r.layout.FeatureDir(), bigfile.ShapeFileName), filepath.Join(r.layout.FeatureDir(), bigfile.Video2FramesFileName),
		r.layout.TextFeatureFile(),
	} {
		if _, err := os.Stat(p); err != nil {
			return err // *PathError: names the file
		}
	}
	return nil
}

// load returns a split: "test" as the collection has it, "train" and "val" as training used them
// (loadTrainVal).
func (r *hlformerRun) load(split string) (*prvr.Split, error) {
	if split == "train" || split == "val" {
		if err := r.loadTrainVal(); err != nil {
			return nil, err
		}
	}
	if s, ok := r.splits[split]; ok {
		return s, nil
	}
	s, err := r.read(split)
	if err != nil {
		return nil, err
	}
	r.splits[split] = s
	return s, nil
}

// read loads one split of the collection and checks its widths against the configuration.
func (r *hlformerRun) read(split string) (*prvr.Split, error) {
	s, err := prvr.Load(r.layout, split)
	if err != nil {
		return nil, err
	}
	c := &r.cfg.Model
	if err := checkDim(&c.VideoDim, "Model.VideoDim", s.Dim, filepath.Join(r.layout.FeatureDir(), bigfile.ShapeFileName)); err != nil {
		return nil, err
	}
	if err := checkDim(&c.QueryDim, "Model.QueryDim", s.QueryDim, r.layout.TextFeatureFile()); err != nil {
		return nil, err
	}
	return s, nil
}

// loadTrainVal loads the training split and the validation split: the collection's own when it
// has one distinct from test, else carved from train (see hlformerKind.layout).
func (r *hlformerRun) loadTrainVal() error {
	if r.splits["train"] != nil && r.splits["val"] != nil {
		return nil
	}
	tr, err := r.read("train")
	if err != nil {
		return err
	}
	valFile := r.layout.CaptionFile("val")
	reason := fmt.Sprintf("%s does not exist", valFile)
	if _, err := os.Stat(valFile); err == nil {
		same, err := sameCaptionIDs(valFile, r.layout.CaptionFile("test"))
		if err != nil {
			return err
		}
		if !same {
			val, err := r.read("val")
			r.splits["train"], r.splits["val"] = tr, val
			return err
		}
		reason = fmt.Sprintf("%s holds the test captions (as in the official Charades-STA release)", valFile)
	}
	keep, val, err := data.CarveValidation(tr.NumVideos(), r.cfg.Training.ValFraction)
	if err != nil {
		return fmt.Errorf("%s: %w", r.layout.CaptionFile("train"), err)
	}
	r.splits["train"] = tr.SubsetVideos(keep, "train")
	r.splits["val"] = tr.SubsetVideos(val, "val")
	r.notes = []string{fmt.Sprintf("deviation from the official code: %s, so validation (early stopping, best epoch) uses %d of the %d training videos "+
		"(Training.ValFraction %g, a fixed choice), never test; training uses the other %d",
		reason, len(val), tr.NumVideos(), r.cfg.Training.ValFraction, len(keep))}
	return nil
}

// sameCaptionIDs reports whether two caption files list the same caption ids (false when b does
// not exist).
func sameCaptionIDs(a, b string) (bool, error) {
	if _, err := os.Stat(b); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	ca, err := captions.ReadFile(a)
	if err != nil {
		return false, err
	}
	cb, err := captions.ReadFile(b)
	if err != nil {
		return false, err
	}
	ids := func(cs []captions.Caption) []string {
		out := make([]string, len(cs))
		for i, c := range cs {
			out[i] = c.ID
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(ids(ca), ids(cb)), nil
}

func (r *hlformerRun) Store() *model.Store { return r.store }
func (r *hlformerRun) Notes() []string     { return r.notes }

// Train runs lib/train's loop on HLFormer's task (hlformer.NewTask): each epoch hlformer.Batching's
// batches drawn from the loop's data-order generator, hard negatives from
// Training.HardNegativeStart, as hlformer.Trainer schedules them.
func (r *hlformerRun) Train(lc train.Config) error {
	t := r.cfg.Training
	task := hlformer.NewTask(r.step, r.store, r.cfg.Model, hlformer.TrainConfig{BatchVideos: t.BatchVideos, QueryBucket: t.QueryBucket,
		PartialBatch: !t.DropPartialBatch, HardNegativeStart: t.HardNegativeStart, DType: dtypes.Float32}, r.splits["train"])
	task.Validate = validation(r)
	return runTask(task, lc)
}

// Evaluate scores a split by hlformer.Evaluator.EvaluateStream (videos encoded and scored one
// chunk at a time): the PRVR protocol, text→video R@1/5/10/100.
func (r *hlformerRun) Evaluate(split string, keep bool) (*evaluation, error) {
	s, err := r.load(split)
	if err != nil {
		return nil, err
	}
	res, scores, err := r.eval.EvaluateStream(s)
	if err != nil {
		return nil, err
	}
	ev := &evaluation{Result: res, Opts: retrieval.Options{Ks: retrieval.PRVRKs}, Rows: s.NumQueries(), Cols: s.NumVideos(), GT: s.QueryVideo}
	if keep {
		ev.Scores = scores
	}
	return ev, nil
}

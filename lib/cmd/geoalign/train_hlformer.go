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
	"github.com/geoalign/geoalign/lib/runner"
	"github.com/gomlx/compute"
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

// hlformerConfig is `geoalign train hlformer`'s configuration: hlformer.RunConfig (Model, Loss,
// Training).
type hlformerConfig struct{ hlformer.RunConfig }

// hlformerDefaults is the official Charades-STA configuration (hlformer.DefaultRunConfig).
func hlformerDefaults() *hlformerConfig { return &hlformerConfig{hlformer.DefaultRunConfig()} }

func (c *hlformerConfig) run() runFields {
	t := &c.Training
	return runFields{Epochs: &t.Epochs, Seed: &t.Seed}
}

// hlformerData is a collection in the MS-SL layout, its splits loaded when first needed.
type hlformerData struct {
	cfg    *hlformerConfig
	layout prvr.Layout
	splits map[string]*prvr.Split // loaded splits; "val" may be carved from "train"
	notes  []string
}

// open checks the files of the layout, loads the training and validation splits when training
// (filling in the feature widths) and builds the model (hlformer.NewRun).
func (c *hlformerConfig) open(backend compute.Backend, src runner.Source, training bool) (modelRun, error) {
	if err := c.Training.Validate(); err != nil {
		return nil, err
	}
	r := &hlformerData{cfg: c, splits: map[string]*prvr.Split{},
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
		tr := r.splits["train"]
		// The number of batches does not depend on the shuffle.
		plans := c.Training.TrainConfig().Batching().Plan(tr, rand.New(rand.NewPCG(0, 0)))
		if len(plans) == 0 {
			return nil, fmt.Errorf("%s: the training split has %d videos, fewer than one batch of Training.BatchVideos = %d (Training.DropPartialBatch drops the smaller one)",
				r.layout.CaptionFile("train"), tr.NumVideos(), c.Training.BatchVideos)
		}
		r.notes = append(r.notes, batchingNotes(c.Training, tr, plans)...)
	}
	return hlformer.NewRun(backend, c.RunConfig, r.load, r.notes)
}

// checkFiles reports a missing directory or file of the layout before anything is loaded.
func (r *hlformerData) checkFiles() error {
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
func (r *hlformerData) load(split string) (*prvr.Split, error) {
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
func (r *hlformerData) read(split string) (*prvr.Split, error) {
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
func (r *hlformerData) loadTrainVal() error {
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

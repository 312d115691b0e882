package main

import (
	"fmt"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/data/featdir"
	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/geoalign/geoalign/lib/runner"
	"github.com/gomlx/compute"
)

var gareKind = modelKind{
	name:     "gare",
	summary:  "GARE (NeurIPS 2025), text–video retrieval on given frame and sentence features",
	layout:   "Data (--data DIR), a text–video feature directory (package lib/data/featdir):\n\n" + featdir.TextVideoLayout,
	defaults: func() modelConfig { return gareDefaults() },
}

// gareConfig is `geoalign train gare`'s configuration: gare.RunConfig (Model, Training).
type gareConfig struct{ gare.RunConfig }

// gareDefaults is the official code with the widths left to the data (gare.DefaultRunConfig).
func gareDefaults() *gareConfig { return &gareConfig{gare.DefaultRunConfig()} }

func (c *gareConfig) run() runFields {
	return runFields{Epochs: &c.Model.Epochs, Seed: &c.Training.Seed}
}

// gareData is a text–video directory as GARE's data sets: the paired training set and the
// retrieval sets of the splits (built when first needed).
type gareData struct {
	data *featdir.TextVideo
	sets map[string]*gare.Dataset
}

// open loads the directory, checks it against the configuration (filling in the feature widths)
// and builds the model (gare.NewRun).
func (c *gareConfig) open(backend compute.Backend, src runner.Source, training bool) (modelRun, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	d, err := featdir.LoadTextVideo(src.Dir, c.Training.ValFraction)
	if err != nil {
		return nil, err
	}
	mc := &c.Model
	for _, w := range []struct {
		field *int
		name  string
		value int
		file  string
	}{
		{&mc.TextInputDim, "Model.TextInputDim", d.TextDim, "text.npy"},
		{&mc.VideoInputDim, "Model.VideoInputDim", d.VideoDim, "video.npy"},
		{&mc.Frames, "Model.Frames", d.Frames, "video.npy"},
	} {
		if err := checkDim(w.field, w.name, w.value, filepath.Join(d.Dir, w.file)); err != nil {
			return nil, err
		}
	}
	if d.WordFeats != nil {
		if err := checkDim(&mc.Words, "Model.Words", d.Words, filepath.Join(d.Dir, "words.npy")); err != nil {
			return nil, err
		}
	} else if mc.UseDelta && mc.Context == gare.ContextWords {
		return nil, fmt.Errorf("%s: no such file: Model.Context = %d (word context) needs word features", filepath.Join(d.Dir, "words.npy"), gare.ContextWords)
	}
	g := &gareData{data: d, sets: map[string]*gare.Dataset{}}
	pairs := gare.PairedFromDir(d, "train", d.Splits.Train)
	if training && pairs.NumTexts/mc.Batch == 0 {
		return nil, fmt.Errorf("%s: the training split has %d captions, fewer than one batch of Model.Batch = %d",
			filepath.Join(d.Dir, featdir.TrainFile), pairs.NumTexts, mc.Batch)
	}
	return gare.NewRun(backend, c.RunConfig, pairs, g.dataset, splitNotes(d.Splits))
}

// dataset is the retrieval set of a split.
func (r *gareData) dataset(split string) (*gare.Dataset, error) {
	if ds, ok := r.sets[split]; ok {
		return ds, nil
	}
	var videos []int
	switch split {
	case "train":
		videos = r.data.Splits.Train
	case "val":
		videos = r.data.Splits.Val
	case "test":
		videos = r.data.Splits.Test
	default:
		return nil, fmt.Errorf("unknown split %q (train, val or test)", split)
	}
	ds := gare.RetrievalFromDir(r.data, split, videos)
	if err := ds.Validate(); err != nil {
		return nil, err
	}
	r.sets[split] = ds
	return ds, nil
}

// splitNotes records a carved validation split.
func splitNotes(s featdir.Splits) []string {
	if s.ValCarved {
		return []string{s.Note}
	}
	return nil
}

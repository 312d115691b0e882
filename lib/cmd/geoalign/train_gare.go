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
	pairs := pairedDataset(d, d.Splits.Train)
	if training && pairs.NumTexts/mc.Batch == 0 {
		return nil, fmt.Errorf("%s: the training split has %d captions, fewer than one batch of Model.Batch = %d",
			filepath.Join(d.Dir, featdir.TrainFile), pairs.NumTexts, mc.Batch)
	}
	return gare.NewRun(backend, c.RunConfig, pairs, g.dataset, splitNotes(d.Splits))
}

// pairedDataset is the training set: every caption of the videos paired with its video's frames
// (a video with k captions appears k times, as in the official MSR-VTT training pairs).
func pairedDataset(d *featdir.TextVideo, videos []int) *gare.Dataset {
	texts := d.CaptionsOf(videos)
	pairVideos := make([]int, len(texts))
	for i, t := range texts {
		pairVideos[i] = d.CaptionVid[t]
	}
	ds := gareDataset(d, "train", texts, pairVideos)
	ds.VideoOf = nil
	return ds
}

// retrievalDataset is an evaluation set: the captions of the videos ranked against the videos.
func retrievalDataset(d *featdir.TextVideo, name string, videos []int) *gare.Dataset {
	return gareDataset(d, name, d.CaptionsOf(videos), videos)
}

// gareDataset gathers texts (caption rows) and videos (video rows) into a gare.Dataset; VideoOf
// maps each text to the position of its video in videos.
func gareDataset(d *featdir.TextVideo, name string, texts, videos []int) *gare.Dataset {
	ds := &gare.Dataset{Name: name, Kind: "given features", NumTexts: len(texts), NumVideos: len(videos),
		TextDim: d.TextDim, VideoDim: d.VideoDim, Frames: d.Frames, Words: d.Words}
	col := make(map[int]int, len(videos))
	fw := d.Frames * d.VideoDim
	for j, v := range videos {
		col[v] = j
		ds.Video = append(ds.Video, d.Video[v*fw:(v+1)*fw]...)
		ds.FrameMask = append(ds.FrameMask, d.FrameMask[v*d.Frames:(v+1)*d.Frames]...)
	}
	for _, t := range texts {
		ds.Text = append(ds.Text, d.Text[t*d.TextDim:(t+1)*d.TextDim]...)
		if d.WordFeats != nil {
			w := d.Words * d.TextDim
			ds.WordFeats = append(ds.WordFeats, d.WordFeats[t*w:(t+1)*w]...)
			ds.WordMask = append(ds.WordMask, d.WordMask[t*d.Words:(t+1)*d.Words]...)
		}
		ds.VideoOf = append(ds.VideoOf, col[d.CaptionVid[t]])
	}
	return ds
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
	ds := retrievalDataset(r.data, split, videos)
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

package main

import (
	"fmt"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/featdir"
	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/ml/model"
)

var gareKind = modelKind{
	name:     "gare",
	summary:  "GARE (NeurIPS 2025), text–video retrieval on given frame and sentence features",
	layout:   "Data (--data DIR), a text–video feature directory (package lib/data/featdir):\n\n" + featdir.TextVideoLayout,
	defaults: func() modelConfig { return gareDefaults() },
}

// gareConfig is `geoalign train gare`'s configuration.
type gareConfig struct {
	Model    gare.Config // architecture, loss and optimiser (gare.DefaultConfig); Epochs is here
	Training gareTraining
}

type gareTraining struct {
	Seed        int64
	Patience    int     // early stop after this many epochs without a better validation SumR (0: never)
	ValFraction float64 // validation share of the training videos when DIR has no val.txt
	TextChunk   int     // texts per block of the chunked step (0 or -1: the single-graph step, the default; n > 0: chunked, less memory)
}

// gareDefaults is the official code (gare.DefaultConfig) with the feature widths, the frame and
// word counts left to the data.
func gareDefaults() *gareConfig {
	c := gare.DefaultConfig()
	c.TextInputDim, c.VideoInputDim, c.Frames, c.Words = 0, 0, 0, 0
	return &gareConfig{Model: c, Training: gareTraining{ValFraction: data.DefaultValFraction}}
}

func (c *gareConfig) run() runFields {
	return runFields{Epochs: &c.Model.Epochs, Seed: &c.Training.Seed, Patience: c.Training.Patience, ValFraction: c.Training.ValFraction}
}

// gareRun is a GARE model on a text–video directory.
type gareRun struct {
	cfg   *gareConfig
	data  *featdir.TextVideo
	m     *gare.Model
	step  *gare.Step
	train *gare.Dataset // paired: caption i ↔ its video
	sets  map[string]*gare.Dataset
}

func (c *gareConfig) open(backend compute.Backend, src dataSource, training bool) (modelRun, error) {
	t := c.Training
	if t.Patience < 0 || c.Model.Epochs < 1 || c.Model.Batch < 2 {
		return nil, fmt.Errorf("need Model.Epochs ≥ 1, Model.Batch ≥ 2, Training.Patience ≥ 0 (got %d, %d, %d)", c.Model.Epochs, c.Model.Batch, t.Patience)
	}
	d, err := featdir.LoadTextVideo(src.Dir, t.ValFraction)
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
	r := &gareRun{cfg: c, data: d, sets: map[string]*gare.Dataset{}}
	r.train = pairedDataset(d, d.Splits.Train)
	steps := r.train.NumTexts / mc.Batch
	if training {
		if steps == 0 {
			return nil, fmt.Errorf("%s: the training split has %d captions, fewer than one batch of Model.Batch = %d",
				filepath.Join(d.Dir, featdir.TrainFile), r.train.NumTexts, mc.Batch)
		}
	}
	if r.m, err = gare.New(backend, *mc, uint64(t.Seed)); err != nil {
		return nil, err
	}
	if training {
		if r.step, err = r.m.NewStep(mc.Epochs*steps, t.TextChunk); err != nil {
			return nil, err
		}
	}
	return r, nil
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

func (r *gareRun) Store() *model.Store { return r.m.Store }
func (r *gareRun) Notes() []string     { return splitNotes(r.data.Splits) }

// Train runs lib/train's loop on GARE's step as gare.Model.Train does: every epoch a permutation
// of the pairs (from the loop's data-order generator) cut into full batches of Model.Batch, one
// BertAdam step each.
func (r *gareRun) Train(lc train.Config) error {
	task := train.Task[[]int]{
		Store: r.m.Store,
		Plan:  train.Shuffled(r.train.NumTexts, r.cfg.Model.Batch),
		Step: func(batch []int) ([]float64, error) {
			st, err := r.step.Run(r.train, batch)
			return []float64{st.Total, st.Info, st.IB, st.Norm, st.Dir}, err
		},
		Terms:    []string{"loss", "info", "ib", "norm", "dir"},
		Validate: validation(r),
	}
	return runTask(task, lc)
}

// Evaluate scores a split with gare.Scorer, block by block (Δ is never stored): text→video and
// video→text R@1/5/10, MdR, MnR (GARE's CLIP4Clip-style metrics). With keep the matrix is
// materialised.
func (r *gareRun) Evaluate(split string, keep bool) (*evaluation, error) {
	ds, err := r.dataset(split)
	if err != nil {
		return nil, err
	}
	sc, err := r.m.NewScorer(ds, ds.Videos(), gare.ScorerOptions{})
	if err != nil {
		return nil, err
	}
	ev := &evaluation{Opts: retrieval.Options{VideoToText: true}, Rows: ds.NumTexts, Cols: ds.NumVideos, GT: ds.GroundTruth()}
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

func (r *gareRun) dataset(split string) (*gare.Dataset, error) {
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

package main

import (
	"fmt"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/featdir"
	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/ml/model"
)

var gramLayout = "Data (--data DIR), a tuple feature directory (package lib/data/featdir):\n\n" + featdir.TupleLayout

var gramKind = modelKind{
	name:     "gram",
	summary:  "GRAM (ICLR 2025), k-modal volume alignment on given per-modality features",
	layout:   gramLayout,
	defaults: func() modelConfig { return &gramConfig{Model: gram.DefaultConfig(), Training: gramTrainingDefaults()} },
}

var hypergramKind = modelKind{
	name:    "hypergram",
	summary: "HyperGRAM (CVPR 2026): GRAM with the hybrid hyperbolic/Euclidean volume (Model.Geometry 1 or 2)",
	layout:  gramLayout,
	defaults: func() modelConfig {
		return &gramConfig{Model: gram.HyperGRAMConfig(), Training: gramTrainingDefaults()}
	},
}

// gramConfig is `geoalign train gram|hypergram`'s configuration.
type gramConfig struct {
	Model    gram.Config // model, loss and optimiser (gram.DefaultConfig / HyperGRAMConfig); Epochs and Seed are here
	Training gramTraining
}

type gramTraining struct {
	Patience    int     // early stop after this many epochs without a better validation SumR (0: never)
	ValFraction float64 // validation share of the training samples when DIR has no val.txt
}

func gramTrainingDefaults() gramTraining { return gramTraining{ValFraction: data.DefaultValFraction} }

func (c *gramConfig) run() runFields {
	return runFields{Epochs: &c.Model.Epochs, Seed: &c.Model.Seed, Patience: c.Training.Patience, ValFraction: c.Training.ValFraction}
}

// gramRun is a GRAM / HyperGRAM model on a tuple directory.
type gramRun struct {
	backend compute.Backend
	data    *featdir.Tuples
	trainer *gram.Trainer
	splits  map[string]*gram.Split
}

func (c *gramConfig) open(backend compute.Backend, src dataSource, training bool) (modelRun, error) {
	mc := c.Model
	switch {
	case mc.CheckpointDir != "":
		return nil, fmt.Errorf("Model.CheckpointDir = %q: geoalign train keeps the checkpoints in RUNDIR (--out); leave it empty", mc.CheckpointDir)
	case mc.EvalEvery != 0:
		return nil, fmt.Errorf("Model.EvalEvery = %d would evaluate the test split during training; geoalign train validates on the validation split after every epoch (leave it 0)", mc.EvalEvery)
	case c.Training.Patience < 0:
		return nil, fmt.Errorf("Training.Patience = %d < 0", c.Training.Patience)
	case mc.Epochs < 1:
		return nil, fmt.Errorf("Model.Epochs = %d < 1", mc.Epochs)
	}
	mc.Quiet = true // the loop draws the progress
	d, err := featdir.LoadTuples(src.Dir, c.Training.ValFraction)
	if err != nil {
		return nil, err
	}
	r := &gramRun{backend: backend, data: d, splits: map[string]*gram.Split{}}
	for name, rows := range map[string][]int{"train": d.Splits.Train, "val": d.Splits.Val, "test": d.Splits.Test} {
		if r.splits[name], err = gram.NewSplit(d.Rows(rows), d.Dims, nil); err != nil {
			return nil, fmt.Errorf("%s: %s split: %w", d.Dir, name, err)
		}
	}
	if n := r.splits["train"].N; n < mc.BatchSize {
		return nil, fmt.Errorf("%s: the training split has %d samples, fewer than one batch of Model.BatchSize = %d",
			filepath.Join(d.Dir, featdir.TrainFile), n, mc.BatchSize)
	}
	ds := &gram.Dataset{Name: d.Dir, Kind: "given features", Modalities: d.Modalities, Train: r.splits["train"], Test: r.splits["val"]}
	if r.trainer, err = gram.NewTrainer(backend, ds, mc); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *gramRun) Store() *model.Store { return r.trainer.Store }
func (r *gramRun) StepsPerEpoch() int  { return r.trainer.StepsPerEpoch() }
func (r *gramRun) Notes() []string     { return splitNotes(r.data.Splits) }

// TrainEpoch runs gram.Trainer.RunEpoch, whose batches come from (Seed, epoch number = its history
// length + 1): the history is padded to e epochs first, so that a resumed run draws the batches an
// uninterrupted one would. RunEpoch reports the epoch, not its steps.
func (r *gramRun) TrainEpoch(e int, onStep func(float64)) (float64, error) {
	t := r.trainer
	for len(t.History) < e {
		t.History = append(t.History, gram.EpochStats{Epoch: len(t.History) + 1})
	}
	t.History = t.History[:e]
	s, err := t.RunEpoch()
	if err != nil {
		return 0, err
	}
	for range r.StepsPerEpoch() {
		onStep(s.Loss)
	}
	return s.Loss, nil
}

func (r *gramRun) Validate() (retrieval.Report, error) { return validate(r) }

// Evaluate scores a split with the GRAM protocol (gram.Evaluate): −volume of the model's geometry
// (or the mean cosine of the pairwise baseline), one anchor per tuple, both directions, R@1/5/10,
// MdR with torch.median's lower median.
func (r *gramRun) Evaluate(split string, keep bool) (*evaluation, error) {
	s, ok := r.splits[split]
	if !ok {
		return nil, fmt.Errorf("unknown split %q (train, val or test)", split)
	}
	emb, err := r.trainer.Embed(s)
	if err != nil {
		return nil, err
	}
	scores, err := gram.ScoreMatrix(r.backend, emb, r.trainer.ModelScore())
	if err != nil {
		return nil, err
	}
	mat, err := retrieval.NewMatrix(s.N, s.N, scores)
	if err != nil {
		return nil, err
	}
	ev := &evaluation{Opts: retrieval.Options{Median: retrieval.MedianLower, VideoToText: true}, Rows: s.N, Cols: s.N}
	if ev.Result, err = retrieval.Evaluate(mat, nil, ev.Opts); err != nil {
		return nil, err
	}
	if keep {
		ev.Scores = scores
	}
	return ev, nil
}

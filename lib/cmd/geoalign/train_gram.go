package main

import (
	"fmt"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/data/featdir"
	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/ml/model"
)

var gramLayout = "Data (--data DIR), a tuple feature directory (package lib/data/featdir):\n\n" + featdir.TupleLayout

var gramKind = modelKind{
	name:     "gram",
	summary:  "GRAM (ICLR 2025), k-modal volume alignment on given per-modality features",
	layout:   gramLayout,
	defaults: func() modelConfig { return &gramConfig{Model: gram.DefaultConfig()} },
}

var hypergramKind = modelKind{
	name:     "hypergram",
	summary:  "HyperGRAM (CVPR 2026): GRAM with the hybrid hyperbolic/Euclidean volume (Model.Geometry 1 or 2)",
	layout:   gramLayout,
	defaults: func() modelConfig { return &gramConfig{Model: gram.HyperGRAMConfig()} },
}

// gramConfig is `geoalign train gram|hypergram`'s configuration: gram.Config holds the model, the
// loss, the optimiser and the schedule (Epochs, Seed, Patience, ValFraction).
type gramConfig struct {
	Model gram.Config
}

func (c *gramConfig) run() runFields {
	m := &c.Model
	return runFields{Epochs: &m.Epochs, Seed: &m.Seed, Patience: m.Patience, ValFraction: m.ValFraction}
}

// gramRun is a GRAM / HyperGRAM model on a tuple directory.
type gramRun struct {
	backend compute.Backend
	cfg     gram.Config
	data    *featdir.Tuples
	dataset *gram.Dataset
	splits  map[string]*gram.Split
	trainer *gram.Trainer
}

func (c *gramConfig) open(backend compute.Backend, src dataSource, training bool) (modelRun, error) {
	mc := c.Model
	if mc.CheckpointDir != "" {
		return nil, fmt.Errorf("Model.CheckpointDir = %q: geoalign train keeps the checkpoints in RUNDIR (--out); leave it empty", mc.CheckpointDir)
	}
	if err := mc.Validate(); err != nil {
		return nil, err
	}
	d, err := featdir.LoadTuples(src.Dir, mc.ValFraction)
	if err != nil {
		return nil, err
	}
	r := &gramRun{backend: backend, cfg: mc, data: d, splits: map[string]*gram.Split{}}
	for name, rows := range map[string][]int{"train": d.Splits.Train, "val": d.Splits.Val, "test": d.Splits.Test} {
		if r.splits[name], err = gram.NewSplit(d.Rows(rows), d.Dims, nil); err != nil {
			return nil, fmt.Errorf("%s: %s split: %w", d.Dir, name, err)
		}
	}
	if n := r.splits["train"].N; n < mc.BatchSize {
		return nil, fmt.Errorf("%s: the training split has %d samples, fewer than one batch of Model.BatchSize = %d",
			filepath.Join(d.Dir, featdir.TrainFile), n, mc.BatchSize)
	}
	r.dataset = &gram.Dataset{Name: d.Dir, Kind: "given features", Modalities: d.Modalities,
		Train: r.splits["train"], Val: r.splits["val"], Test: r.splits["test"]}
	if !training { // evaluation: a trainer without a run directory, the best weights copied in
		if r.trainer, err = gram.NewTrainer(backend, r.dataset, mc); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (r *gramRun) Store() *model.Store { return r.trainer.Store }
func (r *gramRun) Notes() []string     { return splitNotes(r.data.Splits) }

// Train is gram.Trainer.Train (lib/train's loop, validation by gram.ValMetric on the validation
// split) in the run directory.
func (r *gramRun) Train(lc train.Config) error {
	cfg := r.cfg
	cfg.CheckpointDir, cfg.Quiet = lc.Dir, lc.Quiet
	var err error
	if r.trainer, err = gram.NewTrainer(r.backend, r.dataset, cfg); err != nil {
		return err
	}
	return r.trainer.Train()
}

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

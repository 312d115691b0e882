package main

import (
	"fmt"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/data/featdir"
	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/geoalign/geoalign/lib/runner"
	"github.com/gomlx/compute"
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
	return runFields{Epochs: &m.Epochs, Seed: &m.Seed}
}

// open loads the tuple directory and builds the model on it (gram.NewRun).
func (c *gramConfig) open(backend compute.Backend, src runner.Source, training bool) (modelRun, error) {
	mc := c.Model
	if mc.CheckpointDir != "" {
		return nil, fmt.Errorf("Model.CheckpointDir = %q: geoalign train keeps the checkpoints in RUNDIR (--out); leave it empty", mc.CheckpointDir)
	}
	if err := mc.Validate(); err != nil {
		return nil, err
	}
	dataset, splits, err := gram.LoadTupleDir(src.Dir, mc.ValFraction)
	if err != nil {
		return nil, err
	}
	if n := dataset.Train.N; n < mc.BatchSize {
		return nil, fmt.Errorf("%s: the training split has %d samples, fewer than one batch of Model.BatchSize = %d",
			filepath.Join(src.Dir, featdir.TrainFile), n, mc.BatchSize)
	}
	return gram.NewRun(backend, mc, dataset, splitNotes(splits))
}

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
	d, err := featdir.LoadTuples(src.Dir, mc.ValFraction)
	if err != nil {
		return nil, err
	}
	splits := map[string]*gram.Split{}
	for name, rows := range map[string][]int{"train": d.Splits.Train, "val": d.Splits.Val, "test": d.Splits.Test} {
		if splits[name], err = gram.NewSplit(d.Rows(rows), d.Dims, nil); err != nil {
			return nil, fmt.Errorf("%s: %s split: %w", d.Dir, name, err)
		}
	}
	if n := splits["train"].N; n < mc.BatchSize {
		return nil, fmt.Errorf("%s: the training split has %d samples, fewer than one batch of Model.BatchSize = %d",
			filepath.Join(d.Dir, featdir.TrainFile), n, mc.BatchSize)
	}
	dataset := &gram.Dataset{Name: d.Dir, Kind: "given features", Modalities: d.Modalities,
		Train: splits["train"], Val: splits["val"], Test: splits["test"]}
	return gram.NewRun(backend, mc, dataset, splitNotes(d.Splits))
}

// Package models holds the contract every model package implements (GRAM and HyperGRAM in
// lib/models/gram, GARE in lib/models/gare, HLFormer in lib/models/hlformer): a Run is one model
// built from its package's whole configuration on one data set, trained on lib/train's loop with
// the training recipe of its package (optimizer, weight-decay grouping, schedule, step: built in
// one place there), and evaluated on a split. `geoalign train` and `geoalign eval` drive every
// model through it.
package models

import (
	"io"

	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/gomlx/ml/model"
)

// Run is one model built on one data set. Each model package builds its Run from its
// configuration (NewRun); every number of a training run is decided by that configuration.
type Run interface {
	// Store holds the model's variables: after Train those of the best validation, and
	// `geoalign eval` copies a run directory's best checkpoint into it.
	Store() *model.Store
	// Train trains with lib/train's loop and the package's recipe: the run's configuration decides
	// every number (epochs, seed, patience, optimizer, …), validation after every epoch selects by
	// retrieval.ValMetric on the validation split (never the test split); out says only where the
	// run goes and how it is shown. The result is the loop's: its records (history.json) and the
	// best one. (The WordNet hierarchy, whose metric is its own, has no validation split and
	// selects nothing: its result is the last epoch; lib/hierarchy.Run.)
	Train(out Output) (*train.Result, error)
	// Notes are facts about the data a result must carry (e.g. a carved validation split).
	Notes() []string
	// Evaluate scores a split ("train", "val" or "test") with the current weights; with keep, the
	// score matrix is returned too.
	Evaluate(split string, keep bool) (*Evaluation, error)
}

// WarmStarter is a Run that can start from another run's trained weights instead of its
// initialisation: GRAM's recipe continues a cosine-trained model with the volume loss (gram's Run:
// Trainer.InitFrom, the encoders and contra heads), GARE's runs start from stage-1 encoders (gare's
// Run: Model.CopyEncodersFrom). from is a Run of the same package and sizes whose Store holds the
// weights to start from (after its Train, or with a run directory's best checkpoint copied in, as
// `geoalign eval` does); call WarmStart before Train. A run that resumes from a checkpoint continues
// from the checkpoint. The run directory of a warm-started run names its source (lib/runner.Spec.From).
type WarmStarter interface {
	WarmStart(from Run) error
}

// Evaluation is a scored split.
type Evaluation struct {
	Result retrieval.Result
	Opts   retrieval.Options // the options that compute the same numbers from Scores (`geoalign metrics`)
	Rows   int               // queries
	Cols   int               // items
	Scores []float32         // Rows × Cols row-major (with keep), higher = better
	GT     []int             // ground-truth column of each row (nil: the diagonal)
	// Metrics are the numbers of a Run whose metric is its own, by name: the WordNet hierarchy
	// (lib/hierarchy.Run: reconstruction mean rank and MAP, Nickel & Kiela 2017 §4, and the
	// entailment cones of a held-out split) ranks each node's several parents, which a
	// retrieval.Result of one ground truth per query cannot hold; Result, Opts, Scores and GT are
	// then zero, Rows counts the evaluated nodes. nil for the retrieval models (GRAM, GARE,
	// HLFormer), untouched: their Result holds every number and `geoalign metrics` recomputes it
	// from Scores, so a second place for their numbers would be a second source of truth.
	Metrics map[string]float64
}

// Output is where a run's training goes and how it is shown (lib/train's Config.Dir, Label, Quiet
// and Log); nothing in it changes a number of the run.
type Output struct {
	// Dir is the run directory: atomic checkpoints, the best validation's model in train.BestDir,
	// history.json; a run on a directory that holds a checkpoint resumes from it ("" keeps
	// everything in memory).
	Dir   string
	Label string    // names the progress bar ("": the package's own label)
	Quiet bool      // no progress bar
	Log   io.Writer // one line per epoch (nil: none)
	// Devices > 1 trains data-parallel over that many devices of the backend (train.Step.Distribute:
	// XLA partitions the global batch's single-graph step; docs/xla.md §3). The initial weights, dropout
	// masks and sampled negatives are the same bits for every device count, backend and step layout
	// (lib/seedrand), so Devices changes the run's numbers only by the order of floating-point sums
	// (docs/xla.md §6).
	Devices int
}

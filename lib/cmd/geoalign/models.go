package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/ml/model"
)

// modelKind is a model `geoalign train` knows.
type modelKind struct {
	name    string
	summary string
	prvr    bool   // data in the MS-SL layout (--data-root …) rather than a --data DIR
	layout  string // the data format, printed by `geoalign train <model> -h`
	// defaults returns the official code's configuration, feature widths 0 (read from the data).
	defaults func() modelConfig
}

// modelKinds in the order `geoalign train -h` lists them.
var modelKinds = []modelKind{hlformerKind, gareKind, gramKind, hypergramKind}

func lookupModel(name string) (modelKind, bool) {
	for _, k := range modelKinds {
		if k.name == name {
			return k, true
		}
	}
	return modelKind{}, false
}

func modelNames() string {
	names := make([]string, len(modelKinds))
	for i, k := range modelKinds {
		names[i] = k.name
	}
	return strings.Join(names, ", ")
}

// modelConfig is a model's whole configuration (architecture, loss, training): the "config" of
// config.json, the JSON --config overrides and --print-config prints. Its field names are the Go
// names of the model packages' configuration structs.
type modelConfig interface {
	// run returns the fields every model has (pointers, so that flags can set them).
	run() runFields
	// open loads the data of src, checks it against the configuration (filling in the feature
	// widths, or reporting a width that disagrees) and builds the model; for evaluation only
	// (!training) it may defer loading a split until Evaluate needs it.
	open(backend compute.Backend, src dataSource, training bool) (modelRun, error)
}

// runFields are the configuration fields every model has, wherever its package keeps them.
type runFields struct {
	Epochs      *int
	Seed        *int64
	Patience    int     // validations without a better valMetric before stopping (0: never)
	ValFraction float64 // share of train set aside for validation when the data has no val split
}

// modelRun is one model built on one data set.
type modelRun interface {
	// Store holds the model's variables: `geoalign eval` copies the best checkpoint into it.
	Store() *model.Store
	// Train trains with lib/train's loop configured by lc (lc.Dir = RUNDIR: a run there resumes
	// from its last complete checkpoint), validating on the validation split by valMetric.
	Train(lc train.Config) error
	// Notes are facts about the data a result must carry (e.g. a carved validation split).
	Notes() []string
	// Evaluate scores a split ("train", "val" or "test") with the current weights; with keep,
	// the score matrix is returned too.
	Evaluate(split string, keep bool) (*evaluation, error)
}

// valMetric selects the best epoch and stops training early: text→video SumR on the validation
// split (HLFormer's rule; GRAM's and GARE's text→video recalls summed). Its name and the other
// validation keys (metricsMap) are gram.ValMetric's convention.
const valMetric = gram.ValMetric

// metricsMap flattens a report into the validation metrics of a history record: t2v_r1, t2v_r5,
// …, t2v_sumr, t2v_mdr, t2v_mnr, and the same for v2t.
func metricsMap(r retrieval.Report) map[string]float64 {
	out := map[string]float64{}
	add := func(dir string, m *retrieval.Metrics) {
		if m == nil {
			return
		}
		for i, k := range m.Ks {
			out[fmt.Sprintf("%s_r%d", dir, k)] = m.Recall[i]
		}
		out[dir+"_sumr"], out[dir+"_mdr"], out[dir+"_mnr"] = m.SumR, m.MdR, m.MnR
	}
	add("t2v", &r.T2V)
	add("v2t", r.V2T)
	return out
}

// validation is the loop's Validate for a modelRun: its "val" split.
func validation(m modelRun) func() (map[string]float64, error) {
	return func() (map[string]float64, error) {
		ev, err := m.Evaluate("val", false)
		if err != nil {
			return nil, err
		}
		return metricsMap(ev.Result.Report), nil
	}
}

// evaluation is a scored split.
type evaluation struct {
	Result retrieval.Result
	Opts   retrieval.Options // what `geoalign metrics` needs to compute the same numbers
	Rows   int               // queries
	Cols   int               // items
	Scores []float32         // Rows × Cols row-major (with keep), higher = better
	GT     []int             // ground-truth column of each row (nil: the diagonal)
}

// decodeConfig overlays the JSON b on cfg; unknown fields are an error naming what to look at.
func decodeConfig(b []byte, cfg modelConfig, source string) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(cfg); err != nil {
		return fmt.Errorf("%s: %w (geoalign train <model> --print-config lists every field)", source, err)
	}
	if dec.More() {
		return fmt.Errorf("%s: more than one JSON value", source)
	}
	return nil
}

// printConfig writes cfg as indented JSON.
func printConfig(w io.Writer, cfg modelConfig) error {
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}

// checkDim fills *field with the width read from the data, or reports a configuration that sets
// it to something else.
func checkDim(field *int, name string, fromData int, file string) error {
	if *field != 0 && *field != fromData {
		return fmt.Errorf("%s: features have width %d, but the configuration sets %s = %d (leave it 0: widths are read from the data)",
			file, fromData, name, *field)
	}
	*field = fromData
	return nil
}

// runTask trains task with lib/train's loop to the end (or resumes it from lc.Dir).
func runTask[B any](task train.Task[B], lc train.Config) error {
	loop, err := train.NewLoop(task, lc)
	if err != nil {
		return err
	}
	_, err = loop.Run()
	return err
}

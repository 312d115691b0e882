package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/geoalign/geoalign/lib/models"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/runner"
	"github.com/gomlx/compute"
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
	open(backend compute.Backend, src runner.Source, training bool) (modelRun, error)
}

// runFields are the configuration fields the flags set, wherever the model's package keeps them.
type runFields struct {
	Epochs *int
	Seed   *int64
}

// modelRun is one model built on one data set: the contract every model package implements.
type modelRun = models.Run

// evaluation is a scored split.
type evaluation = models.Evaluation

// valMetric selects the best epoch and stops training early: text→video SumR on the validation
// split, the key every model's history records it under.
const valMetric = retrieval.ValMetric

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

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data/featdir"
	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/geoalign/geoalign/lib/rundir"
)

// dataFiles lists the data files a run on src reads (those that exist): a feature directory's
// (featdir.Files), or the collection's caption files of every split, BigFile and query features
// (prvr.Layout.Files).
func dataFiles(src dataSource) ([]string, error) {
	if src.Dir != "" {
		return featdir.Files(src.Dir)
	}
	l := prvr.Layout{Root: src.Root, Collection: src.Collection, VisualFeature: src.VisualFeature, TextFeature: src.TextFeature}
	var out []string
	for _, split := range []string{"train", "val", "test"} {
		for _, p := range l.Files(split) {
			if _, err := os.Stat(p); err == nil {
				out = append(out, p)
			} else if !errors.Is(err, os.ErrNotExist) {
				return nil, err
			}
		}
	}
	return out, nil
}

// newRecord is the record of a run about to be created with the configuration raw on src.
func newRecord(raw []byte, src dataSource) (*rundir.Record, error) {
	h, err := rundir.ConfigHash(raw)
	if err != nil {
		return nil, err
	}
	files, err := dataFiles(src)
	if err != nil {
		return nil, err
	}
	stamps, err := rundir.Stamp(files, nil)
	if err != nil {
		return nil, err
	}
	r := &rundir.Record{ConfigSHA256: h, Data: stamps, Code: reproduce.GitCommit()}
	if info, err := backend.Describe(); err == nil {
		r.Backend = info.String()
	}
	return r, nil
}

// checkRecord verifies that RUNDIR's configuration and data are those it was made from (the
// record in config.json): an error names the file that changed. A run made before runs kept a
// record is not checked; notes says so.
func checkRecord(run string, spec *runSpec) (notes []string, err error) {
	path := filepath.Join(run, configFile)
	if spec.Made == nil {
		return []string{fmt.Sprintf("%s has no record of its data and code (made by an older geoalign): not checked", path)}, nil
	}
	if err := spec.Made.CheckConfig(spec.Config, path); err != nil {
		return nil, err
	}
	files, err := dataFiles(spec.Data)
	if err != nil {
		return nil, err
	}
	if err := spec.Made.CheckData(files); err != nil {
		return nil, fmt.Errorf("%w: the run %s was made from other data", err, run)
	}
	if c := reproduce.GitCommit(); c != spec.Made.Code {
		notes = append(notes, fmt.Sprintf("%s was made by code %s; this is %s", run, spec.Made.Code, c))
	}
	return notes, nil
}

// configDiff lists the fields where the configuration cmd (what a command line resolves to)
// differs from stored (a run's config.json), as "Field: stored → cmd". A field that is 0 in the
// defaults and in cmd is one the data fills in (a feature width): its stored value is not a
// difference.
func configDiff(defaults, stored, cmd modelConfig) ([]string, error) {
	flat := func(c modelConfig) (map[string]any, error) {
		b, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out := map[string]any{}
		flatten("", v, out)
		return out, nil
	}
	d, err := flat(defaults)
	if err != nil {
		return nil, err
	}
	s, err := flat(stored)
	if err != nil {
		return nil, err
	}
	c, err := flat(cmd)
	if err != nil {
		return nil, err
	}
	isZero := func(v any) bool { n, ok := v.(json.Number); return ok && (n == "0" || n == "0.0") }
	var diffs []string
	for k, cv := range c {
		if sv := s[k]; !reflect.DeepEqual(sv, cv) && !(isZero(cv) && isZero(d[k])) {
			diffs = append(diffs, fmt.Sprintf("%s: %s → %s", k, show(sv), show(cv)))
		}
	}
	slices.Sort(diffs)
	return diffs, nil
}

// flatten maps the leaves of a decoded JSON object to dotted paths ("Model.Epochs").
func flatten(prefix string, v any, out map[string]any) {
	m, ok := v.(map[string]any)
	if !ok {
		out[prefix] = v
		return
	}
	for k, x := range m {
		if prefix != "" {
			k = prefix + "." + k
		}
		flatten(k, x, out)
	}
}

func show(v any) string {
	if v == nil {
		return "(absent)"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

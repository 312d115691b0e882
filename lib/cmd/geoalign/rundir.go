package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
)

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

package reproduce

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
)

// ReadConfig decodes the JSON file of a `--config` flag into into (a pointer to the configuration,
// holding the base the file's fields replace), refusing fields the configuration lacks, and returns the
// file's bytes (for ConfigNotes). Errors name the flag and the file.
func ReadConfig(file string, into any) ([]byte, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--config: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return nil, fmt.Errorf("--config %s: %w", file, err)
	}
	return b, nil
}

// Variant is a named configuration of a variant, as ConfigNotes compares it.
type Variant struct {
	Name   string
	Config any
}

// ConfigNotes are the notes of every table on a `--config` file (its JSON, raw) applied on top of a
// scale's configuration scale, giving cfg: first "Base configuration of every variant: --config FILE
// on top of the scale's; …" naming each field the file sets whose value differs from the scale's,
// with the value used; then one note "--config FILE: the variant "V" overrides A, B" per variant
// whose configuration differs from cfg in a field the file sets. Configurations are compared as
// JSON (marshalled alike); fields are dotted JSON paths (Model.Dim).
func ConfigNotes(file string, raw []byte, scale, cfg any, variants []Variant) ([]string, error) {
	var set map[string]any
	if err := json.Unmarshal(raw, &set); err != nil {
		return nil, fmt.Errorf("--config %s: %w", file, err)
	}
	given, mine, from := ConfigLeaves(set), ConfigLeaves(cfg), ConfigLeaves(scale)
	var changed []string
	for _, k := range slices.Sorted(maps.Keys(given)) {
		if fmt.Sprint(mine[k]) != fmt.Sprint(from[k]) {
			changed = append(changed, fmt.Sprintf("%s = %v", k, mine[k]))
		}
	}
	what := "it changes none of the scale's values"
	if len(changed) > 0 {
		what = "it replaces the scale's values above by " + strings.Join(changed, ", ")
	}
	notes := []string{fmt.Sprintf("Base configuration of every variant: --config %s on top of the scale's; %s.", file, what)}
	for _, v := range variants {
		var over []string
		for k, val := range ConfigLeaves(v.Config) {
			if _, ok := given[k]; ok && fmt.Sprint(val) != fmt.Sprint(mine[k]) {
				over = append(over, k)
			}
		}
		if len(over) > 0 {
			slices.Sort(over)
			notes = append(notes, fmt.Sprintf("--config %s: the variant %q overrides %s", file, v.Name, strings.Join(over, ", ")))
		}
	}
	return slices.Compact(notes), nil
}

package reproduce

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Variant is a named configuration of a variant, as Overrides compares it.
type Variant struct {
	Name   string
	Config any
}

// Overrides names, in the notes of every table, the fields of a `--config` file (its JSON, raw) that
// a variant changes: one note "--config FILE: the variant "V" overrides A, B" per variant whose
// configuration (marshalled to JSON like base) differs from base, the base configuration with the
// file applied, in a field the file sets. Fields are dotted JSON paths (Model.Dim).
func Overrides(file string, raw []byte, base any, variants []Variant) ([]string, error) {
	var set map[string]any
	if err := json.Unmarshal(raw, &set); err != nil {
		return nil, fmt.Errorf("--config %s: %w", file, err)
	}
	given, mine := leaves(set, ""), leaves(asMap(base), "")
	var notes []string
	for _, v := range variants {
		var over []string
		for k, val := range leaves(asMap(v.Config), "") {
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

// asMap is v as JSON object.
func asMap(v any) map[string]any {
	b, _ := json.Marshal(v) // a configuration always marshals
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// leaves flattens a JSON object to its leaf values by dotted path.
func leaves(m map[string]any, prefix string) map[string]any {
	out := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if sub, ok := m[k].(map[string]any); ok {
			maps.Copy(out, leaves(sub, prefix+k+"."))
		} else {
			out[prefix+k] = m[k]
		}
	}
	return out
}

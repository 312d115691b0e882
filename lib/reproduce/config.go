package reproduce

import (
	"encoding/json"
	"maps"
	"slices"
)

// ConfigLeaves flattens v (a configuration struct, or a JSON object already decoded into a map) as
// JSON to its leaf values by dotted path ("Training.Epochs"), for `--config`'s notes: which field of
// the file a variant overrides. A value that does not marshal gives an empty map.
func ConfigLeaves(v any) map[string]any {
	b, _ := json.Marshal(v)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return leaves(m, "")
}

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

package retrieval

import (
	"slices"
	"strconv"
	"strings"
)

// ValMetric is the key of text→video SumR among a record's validation metrics (Values): the one
// metric every model's training selects its best epoch by and stops early on (the HLFormer code's
// best-model rule; GRAM's and GARE's text→video recalls summed).
const ValMetric = "t2v_sumr"

// Direction prefixes of the keys of Values.
const (
	T2V = "t2v"
	V2T = "v2t"
)

// Values flattens a report into the validation metrics of a training record (lib/train's
// Record.Val, history.json): "t2v_r<K>" for every cut-off K, "t2v_sumr" (ValMetric), "t2v_mdr",
// "t2v_mnr", and the same keys with "v2t_" when the report has video→text. Queries and Tied are not
// kept.
func Values(r Report) map[string]float64 {
	out := map[string]float64{}
	add := func(dir string, m *Metrics) {
		if m == nil {
			return
		}
		for i, k := range m.Ks {
			out[dir+"_r"+strconv.Itoa(k)] = m.Recall[i]
		}
		out[dir+"_sumr"], out[dir+"_mdr"], out[dir+"_mnr"] = m.SumR, m.MdR, m.MnR
	}
	add(T2V, &r.T2V)
	add(V2T, r.V2T)
	return out
}

// FromValues reads back the metrics of one direction (T2V or V2T) from a map Values wrote: the
// recalls of every "<dir>_r<K>" key, sorted by K, SumR, MdR and MnR. Queries and Tied are 0.
func FromValues(v map[string]float64, dir string) Metrics {
	m := Metrics{SumR: v[dir+"_sumr"], MdR: v[dir+"_mdr"], MnR: v[dir+"_mnr"]}
	for key := range v {
		if k, err := strconv.Atoi(strings.TrimPrefix(key, dir+"_r")); strings.HasPrefix(key, dir+"_r") && err == nil && k > 0 {
			m.Ks = append(m.Ks, k)
		}
	}
	slices.Sort(m.Ks)
	for _, k := range m.Ks {
		m.Recall = append(m.Recall, v[dir+"_r"+strconv.Itoa(k)])
	}
	return m
}

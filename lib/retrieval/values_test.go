package retrieval

import (
	"maps"
	"reflect"
	"testing"
)

// Values names every metric of both directions with the keys a training history uses, and
// FromValues reads a direction back.
func TestValuesKeys(t *testing.T) {
	t2v := Metrics{Queries: 4, Ks: []int{1, 5, 10}, Recall: []float64{25, 50, 100}, MdR: 4.5, MnR: 5.25, SumR: 175, Tied: 1}
	v2t := Metrics{Queries: 3, Ks: []int{1, 5, 10}, Recall: []float64{100.0 / 3, 200.0 / 3, 100}, MdR: 2, MnR: 3, SumR: 200}
	got := Values(Report{T2V: t2v, V2T: &v2t})
	want := map[string]float64{
		"t2v_r1": 25, "t2v_r5": 50, "t2v_r10": 100, "t2v_sumr": 175, "t2v_mdr": 4.5, "t2v_mnr": 5.25,
		"v2t_r1": 100.0 / 3, "v2t_r5": 200.0 / 3, "v2t_r10": 100, "v2t_sumr": 200, "v2t_mdr": 2, "v2t_mnr": 3,
	}
	if !maps.Equal(got, want) {
		t.Errorf("Values = %v, want %v", got, want)
	}
	if got[ValMetric] != t2v.SumR {
		t.Errorf("Values[%q] = %v, want text→video SumR %v", ValMetric, got[ValMetric], t2v.SumR)
	}
	if only := Values(Report{T2V: t2v}); len(only) != 6 {
		t.Errorf("without video→text: %v", only)
	}
	// Read back: everything but Queries and Tied, the cut-offs sorted as numbers (10 after 5).
	for dir, m := range map[string]Metrics{T2V: t2v, V2T: v2t} {
		m.Queries, m.Tied = 0, 0
		if back := FromValues(got, dir); !reflect.DeepEqual(back, m) {
			t.Errorf("FromValues(%s) = %+v, want %+v", dir, back, m)
		}
	}
}

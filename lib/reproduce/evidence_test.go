package reproduce

import "testing"

// Evidence keeps the order of what was added and decides its comparisons as one Holm family: two
// comparisons each significant alone (raw p ≈ 0.03) are not both significant after Holm (×2 for the
// smaller p), exactly as one Decide call over both.
func TestEvidenceKeepsOrderAndOneFamily(t *testing.T) {
	seeds := []int64{1, 2, 3, 4, 5}
	mk := func(name string, vs ...float64) Sample { return Sample{Name: name, Seeds: seeds, Values: vs} }
	c1 := Comparison{Paper: "p", Claim: "one", Data: "d", Metric: "m", Higher: true,
		A: mk("a", 1, 2, 3, 4, 5), B: mk("b", 1.9, 2.6, 4.2, 4.5, 6.3)}
	c2 := c1
	c2.Claim = "two"
	var e Evidence
	e.Compare(c1)
	e.Add(Describe("p", "shape", "fig", "d", "x"))
	e.Compare(c2)
	got, err := e.Decide()
	if err != nil {
		t.Fatal(err)
	}
	want, err := Decide([]Comparison{c1, c2})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Claim != "one" || got[1].Outcome != Descriptive || got[2].Claim != "two" {
		t.Fatalf("order: %+v", got)
	}
	for i, k := range []int{0, 2} {
		if got[k].P == nil || want[i].P == nil || *got[k].P != *want[i].P || got[k].Outcome != want[i].Outcome {
			t.Fatalf("claim %d: %+v, one Decide call gives %+v", k, got[k].P, want[i].P)
		}
		if got[k].P.Family != 2 {
			t.Fatalf("claim %d: family %d, want 2", k, got[k].P.Family)
		}
	}
}

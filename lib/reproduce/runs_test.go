package reproduce_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/geoalign/geoalign/lib/retrieval"
)

// result is a study's own result type: what one training run leaves.
type result struct {
	R1    float64
	Epoch int
}

var r1 = reproduce.Metric[result]{Name: "R@1", Of: func(r result) float64 { return r.R1 }, Decimals: 1, Higher: true, Best: 100,
	Random: func(_, videos int) float64 { return 100 / float64(videos) }}

// runsOf are variant name's runs with R@1 r1s[i] on seed i + 1, kept at epoch i + 2.
func runsOf(name string, r1s ...float64) reproduce.Runs[result] {
	r := reproduce.Runs[result]{Name: name, Epoch: func(r result) int { return r.Epoch }}
	for i, x := range r1s {
		r.Seeds = append(r.Seeds, int64(i+1))
		r.Results = append(r.Results, result{R1: x, Epoch: i + 2})
	}
	return r
}

// Two variants trained on the same three seeds: their table rows, their paired differences and the
// claim that the second beats the first. By hand: a = 10, 12, 11 has mean 11 and sample std 1;
// b = 12, 14, 13.5 has mean 13.1667 and std √(2.1667/2) = 1.0408; b − a = 2, 2, 2.5 has mean 2.1667
// and std √(0.16667/2) = 0.2887.
func ExampleRuns() {
	a, b := runsOf("baseline", 10, 12, 11), runsOf("model", 12, 14, 13.5)
	t := report.NewTable("R@1", report.Provenance{}, slices.Concat([]string{"variant"}, reproduce.MetricNames([]reproduce.Metric[result]{r1}), []string{"paper"})...)
	a.AddRow(t, []reproduce.Metric[result]{r1}, "46.6")
	b.AddRow(t, []reproduce.Metric[result]{r1}, "")
	reproduce.AddFloorRow(t, "zero-training floor", result{R1: 4}, []reproduce.Metric[result]{r1}, "")
	for _, row := range t.Rows {
		fmt.Println(row)
	}
	fmt.Println(reproduce.Differences(a, b, r1), reproduce.Paired(a, b, r1).Format(2))
	c := reproduce.Compare(reproduce.Comparison{Paper: "P", Claim: "model beats baseline", Data: "synthetic", Random: r1.RandomLevel(500, 500)}, a, b, r1)
	fmt.Println(c.Metric, c.Higher, c.Best, c.Random, c.A.Name, c.A.Values, c.B.Name, c.B.Values, c.B.BestEpoch)
	// Output:
	// [baseline 11.0 ± 1.0 46.6]
	// [model 13.2 ± 1.0 —]
	// [zero-training floor 4.0 —]
	// [2 2 2.5] 2.17 ± 0.29
	// R@1 true 100 0.2 baseline [10 12 11] model [12 14 13.5] [2 3 4]
}

// TestCellsOfOneSeed: one seed's cell is its value, marked, not "x ± 0".
func TestCellsOfOneSeed(t *testing.T) {
	if got := runsOf("a", 12.34).Cell(r1); got != "12.3 (1 seed)" {
		t.Errorf("one seed's cell %q, want \"12.3 (1 seed)\"", got)
	}
	if got := runsOf("a", 10, 12, 11).Cell(r1); got != "11.0 ± 1.0" {
		t.Errorf("three seeds' cell %q, want \"11.0 ± 1.0\"", got)
	}
}

// TestBeatsFloor: the floor's one value is repeated over the model's seeds as sample A, without
// epochs (not a trained model), and the comparison carries no separate floor; the rule then holds
// the claim (12, 14, 13.5 against 4: Δ = 9.17 ± 0.60 s.e., t = 15.2 on 2 d.f.).
func TestBeatsFloor(t *testing.T) {
	b := runsOf("model", 12, 14, 13.5)
	floor := reproduce.Sample{Name: "floor", Values: []float64{4}}
	c := reproduce.BeatsFloor(reproduce.Comparison{Paper: "P", Claim: "model beats the floor", Data: "synthetic",
		Floor: &floor}, floor, b, r1)
	if c.Floor != nil || c.A.Learned || c.A.BestEpoch != nil || !slices.Equal(c.A.Values, []float64{4, 4, 4}) ||
		!slices.Equal(c.A.Seeds, b.Seeds) || !c.B.Learned || !slices.Equal(c.B.BestEpoch, []int{2, 3, 4}) || c.Metric != "R@1" {
		t.Fatalf("floor comparison %+v", c)
	}
	claims, err := reproduce.Decide([]reproduce.Comparison{c})
	if err != nil {
		t.Fatal(err)
	}
	if d := claims[0].Diff; d == nil || math.Abs(d.Mean-55.0/6) > 1e-9 {
		t.Errorf("Δ %+v, want mean 55/6", d)
	}
}

// TestRandomLevel: a metric without Random has no random level (0 for the rule).
func TestRandomLevel(t *testing.T) {
	if got := (reproduce.Metric[result]{}).RandomLevel(10, 10); got != 0 {
		t.Errorf("random level without Random: %g", got)
	}
	if got := r1.RandomLevel(10, 50); got != 2 {
		t.Errorf("random level %g, want 100/50", got)
	}
}

// TestRandomSumR against the closed form with one ground truth per query: R@K = 100 · min(K, n) / n.
func TestRandomSumR(t *testing.T) {
	for _, c := range []struct {
		n    int
		ks   []int
		want float64
	}{
		{1334, retrieval.PRVRKs, 100 * 116.0 / 1334},
		{50, retrieval.PRVRKs, 100 * (1 + 5 + 10 + 50) / 50.0}, // R@100 of 50 videos is 100
		{1237, retrieval.TextVideoKs, 1600 / 1237.0},
		{8, retrieval.TextVideoKs, 100 * (1 + 5 + 8) / 8.0},
		{8, nil, 0},
	} {
		if got := reproduce.RandomSumR(c.n, c.ks...); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("RandomSumR(%d, %v) = %g, want %g", c.n, c.ks, got, c.want)
		}
	}
}

package reproduce_test

import (
	"fmt"

	"github.com/geoalign/geoalign/lib/reproduce"
)

// A study declares what it compares; the rule does the rest. Two claims of one paper: the first
// is tested (it passes the floor gate), the second is stopped by the ceiling gate before any test.
// (numpy/scipy on the same numbers: 91.198 ± 0.169, 88.788 ± 0.214, ttest_rel p = 0.003165.)
func ExampleDecide() {
	seeds := []int64{1, 2, 3, 4, 5}
	claims, err := reproduce.Decide([]reproduce.Comparison{{
		Paper: "HLFormer", Claim: "hybrid Euclidean + Lorentz attention beats Euclidean-only",
		PaperFigure: "Charades SumR 78.7 vs 72.9 (Table 1)", Data: "Charades-STA, label-derived",
		Metric: "SumR", Higher: true,
		A:     reproduce.Sample{Name: "euclidean-only", Seeds: seeds, Values: []float64{88.67, 89.40, 88.10, 89.02, 88.75}, Learned: true},
		B:     reproduce.Sample{Name: "hlformer", Seeds: seeds, Values: []float64{91.39, 90.80, 91.75, 90.95, 91.10}, Learned: true},
		Floor: &reproduce.Sample{Name: "zero-training GloVe", Values: []float64{85.2}},
		Best:  600, // SumR: six recalls of at most 100
	}, {
		Paper: "HLFormer", Claim: "digits: hybrid beats Euclidean-only", Data: "FSDD", Metric: "R@1", Higher: true, Best: 100,
		A: reproduce.Sample{Name: "euclidean-only", Seeds: seeds, Values: []float64{100, 100, 100, 100, 100}, Learned: true},
		B: reproduce.Sample{Name: "hlformer", Seeds: seeds, Values: []float64{100, 100, 100, 100, 100}, Learned: true},
	}})
	if err != nil {
		panic(err)
	}
	for _, c := range claims {
		fmt.Println(c)
	}
	// Output:
	// hybrid Euclidean + Lorentz attention beats Euclidean-only → holds (SumR: hlformer 91.20 ± 0.17 vs euclidean-only 88.79 ± 0.21; n = 5, Δ = +2.41 ± 0.38, Holm p = 0.0032; floor zero-training GloVe 85.2)
	// digits: hybrid beats Euclidean-only → not testable: ceiling — euclidean-only and hlformer are identical on every seed (R@1: hlformer 100 ± 0 vs euclidean-only 100 ± 0; n = 5, Δ = +0 ± 0)
}

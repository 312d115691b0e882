package retrieval

import (
	"math"
	"testing"
)

// TestRandomLevels against exact enumeration: every placement of the relevant items among n
// positions is equally likely under a random ranking; the best-placed one gives the rank.
func TestRandomLevels(t *testing.T) {
	for n := 1; n <= 9; n++ {
		for r := 1; r <= n; r++ {
			hits := make([]int, n+2) // hits[k]: placements whose best rank is ≤ k
			placements := 0
			for mask := 0; mask < 1<<n; mask++ {
				if popcount(mask) != r {
					continue
				}
				placements++
				best := 0
				for mask>>best&1 == 0 {
					best++
				}
				for k := best + 1; k <= n+1; k++ {
					hits[k]++
				}
			}
			for k := 1; k <= n+1; k++ {
				want := 100 * float64(hits[k]) / float64(placements)
				if got := RandomRecall(k, n, r); math.Abs(got-want) > 1e-9 {
					t.Errorf("RandomRecall(k = %d, n = %d, relevant = %d) = %g, enumeration %g", k, n, r, got, want)
				}
			}
		}
		ranks := make([]int, n) // one ground truth: each rank once
		for i := range ranks {
			ranks[i] = i + 1
		}
		m, err := FromRanks(ranks, []int{1}, MedianNumPy)
		if err != nil {
			t.Fatal(err)
		}
		if got := RandomMeanRank(n); got != m.MnR {
			t.Errorf("RandomMeanRank(%d) = %g, mean of the ranks 1…n %g", n, got, m.MnR)
		}
	}
}

func popcount(x int) int {
	c := 0
	for ; x != 0; x &= x - 1 {
		c++
	}
	return c
}

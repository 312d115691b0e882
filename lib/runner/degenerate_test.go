package runner

import (
	"math"
	"testing"
)

func TestRandomSumR(t *testing.T) {
	// 20 items, 20 queries, R@1/5/10: 100·(1 + 5 + 10)/20 = 80, and Σ 100·√(p(1 − p)/20) for
	// p = 1/20, 5/20, 10/20 = 25.736195425421972 (Python, math.sqrt).
	mean, sd := randomSumR([]int{1, 5, 10}, 20, 20)
	if math.Abs(mean-80) > 1e-12 || math.Abs(sd-25.736195425421972) > 1e-12 {
		t.Errorf("randomSumR = %v ± %v, want 80 ± 25.736195425421972", mean, sd)
	}
}

package stats

import (
	"fmt"
	"math"
	"sort"
)

// Holm returns Holm–Bonferroni adjusted p-values, in the order of p.
//
// With the m p-values sorted ascending, p₍₁₎ ≤ … ≤ p₍ₘ₎, the adjusted value of p₍ₖ₎ is
// max_{j ≤ k} min(1, (m − j + 1)·p₍ⱼ₎) (Holm 1979, Scand. J. Statist. 6:65–70): rejecting where it
// is below α controls the family-wise error rate at α. Tied p-values get the same adjusted value;
// the result is monotone in p and never below it. An empty family gives an empty result.
// Holm panics if a p-value is NaN or outside [0, 1]: that is a bug in the caller, not data.
func Holm(p []float64) []float64 {
	m := len(p)
	for i, v := range p {
		if math.IsNaN(v) || v < 0 || v > 1 {
			panic(fmt.Sprintf("stats.Holm: p[%d] = %v is not a p-value", i, v))
		}
	}
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return p[order[i]] < p[order[j]] })
	adj := make([]float64, m)
	running := 0.0
	for k, i := range order {
		running = max(running, min(1, float64(m-k)*p[i]))
		adj[i] = running
	}
	return adj
}

package retrieval

// The levels of the metrics under a uniformly random ranking: what a model that learned nothing
// scores in expectation (the claim rule's collapse gate compares a trained model with them).

// RandomRecall is R@K (%) expected under a uniformly random ranking of n items of which relevant
// are ground truths of the query: the probability that at least one of them is among the first k,
// 100 · (1 − C(n − relevant, k) / C(n, k)). With one ground truth it is 100 · min(k, n) / n.
func RandomRecall(k, n, relevant int) float64 {
	miss := 1.0 // C(n − r, k) / C(n, k) = Π_{i<k} (n − r − i) / (n − i)
	for i := 0; i < min(k, n); i++ {
		miss *= float64(max(n-relevant-i, 0)) / float64(n-i)
	}
	return 100 * (1 - miss)
}

// RandomMeanRank is MnR expected under a uniformly random ranking of n items with one ground
// truth: its rank is uniform on 1…n, so (n + 1) / 2.
func RandomMeanRank(n int) float64 { return float64(n+1) / 2 }

package retrieval

import (
	"fmt"
	"slices"
	"sort"
)

// The multi-positive protocol: a query has several relevant items (a WordNet node and all its
// ancestors in the transitive closure, a video and all its captions), and each relevant item is
// ranked among the query's non-relevant items only — the other positives neither help nor hurt it.
// This is the reconstruction protocol of Nickel & Kiela (2017/2018) and HyperGRAM's WordNet
// experiments (facebookresearch/poincare-embeddings hype/graph.py eval_reconstruction): the rank of
// positive p is 1 + #(non-positives scoring higher than p) (+ the tie term), and the query's average
// precision is sklearn's average_precision_score with the positives as the relevant set,
//
//	AP = (1/P) Σ_i i / (i + #non-positives ranked before the i-th best positive),   i = 1 … P.

// PositiveRanks ranks each positive of one query among the query's non-positive items.
//
// row holds the query's scores over every item (higher = better: negate a distance); positives are
// the relevant items (distinct, in range); skip is an item to leave out of the ranking altogether
// (the query itself, for a node ranked against its own table), or −1. tie says where a non-positive
// with exactly a positive's score goes: TiePessimistic before it, TieOptimistic after it (the
// official reconstruction, which counts only non-positives strictly closer), TieByIndex by index.
//
// ranks[i] is the 1-based rank of positives[i]; ap is the query's average precision. The cost is
// O(items · log positives) with one pass over the row. NaN scores are an error.
func PositiveRanks[F Float](row []F, positives []int32, skip int, tie TieRule) (ranks []int, ap float64, err error) {
	n := len(row)
	if len(positives) == 0 {
		return nil, 0, fmt.Errorf("retrieval: PositiveRanks needs at least one positive")
	}
	isPos := make(map[int32]int, len(positives))
	for i, p := range positives {
		if p < 0 || int(p) >= n {
			return nil, 0, fmt.Errorf("retrieval: positive %d out of range [0, %d)", p, n)
		}
		if int(p) == skip {
			return nil, 0, fmt.Errorf("retrieval: positive %d is also the skipped item", p)
		}
		if _, dup := isPos[p]; dup {
			return nil, 0, fmt.Errorf("retrieval: positive %d listed twice", p)
		}
		isPos[p] = i
	}
	// Positives sorted by score, best first.
	order := make([]int, len(positives))
	for i := range order {
		order[i] = i
	}
	for _, p := range positives {
		if v := row[p]; v != v {
			return nil, 0, fmt.Errorf("retrieval: score of positive %d is NaN", p)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		va, vb := row[positives[a]], row[positives[b]]
		switch {
		case va > vb:
			return -1
		case va < vb:
			return 1
		}
		return int(positives[a]) - int(positives[b])
	})
	ps := make([]F, len(order)) // descending
	for k, i := range order {
		ps[k] = row[positives[i]]
	}
	// A non-positive with score s is strictly better than the positives at sorted positions
	// [below(s), P) and ties with those at [atOrBelow(s), below(s)). Difference arrays turn the
	// per-item intervals into per-positive counts.
	P := len(ps)
	greater := make([]int, P+1)
	equal := make([]int, P+1)
	var tiedItems [][]int32 // per sorted positive, the tied non-positives (only for TieByIndex)
	for w, s := range row {
		if w == skip {
			continue
		}
		if _, ok := isPos[int32(w)]; ok {
			continue
		}
		if s != s {
			return nil, 0, fmt.Errorf("retrieval: score of item %d is NaN", w)
		}
		lo := sort.Search(P, func(k int) bool { return ps[k] <= s }) // first positive not above s
		hi := sort.Search(P, func(k int) bool { return ps[k] < s })  // first positive strictly below s
		greater[hi]++
		if lo < hi {
			equal[lo]++
			equal[hi]--
			if tie == TieByIndex {
				if tiedItems == nil {
					tiedItems = make([][]int32, P)
				}
				for k := lo; k < hi; k++ {
					tiedItems[k] = append(tiedItems[k], int32(w))
				}
			}
		}
	}
	ranks = make([]int, len(positives))
	gSum, eSum := 0, 0
	for k := range P {
		gSum += greater[k]
		eSum += equal[k]
		before := 0
		if tiedItems != nil {
			for _, w := range tiedItems[k] {
				if int(w) < int(positives[order[k]]) {
					before++
				}
			}
		}
		r := tie.rank(gSum, eSum, before)
		ranks[order[k]] = r
		// r − 1 non-positives come before the (k+1)-th best positive.
		ap += float64(k+1) / float64(k+r)
	}
	return ranks, ap / float64(P), nil
}

// MultiPositiveMetrics summarises the multi-positive protocol over many queries.
type MultiPositiveMetrics struct {
	MeanRank  float64 // mean over every (query, positive) pair of the positive's rank among non-positives
	MAP       float64 // mean over queries of the average precision
	Queries   int     // queries evaluated
	Positives int     // (query, positive) pairs ranked
}

// MultiPositiveAccumulator adds up PositiveRanks over queries, so that a caller producing score
// rows block by block (a distance table too large to hold) keeps only counters.
type MultiPositiveAccumulator struct {
	rankSum, apSum float64
	m              MultiPositiveMetrics
}

// Add ranks one query's positives (see PositiveRanks) and accumulates them.
func (a *MultiPositiveAccumulator) Add(row []float64, positives []int32, skip int, tie TieRule) error {
	ranks, ap, err := PositiveRanks(row, positives, skip, tie)
	if err != nil {
		return err
	}
	for _, r := range ranks {
		a.rankSum += float64(r)
	}
	a.apSum += ap
	a.m.Positives += len(ranks)
	a.m.Queries++
	return nil
}

// Metrics returns the mean rank and MAP of everything added so far.
func (a *MultiPositiveAccumulator) Metrics() (MultiPositiveMetrics, error) {
	m := a.m
	if m.Queries == 0 {
		return m, fmt.Errorf("retrieval: no query evaluated")
	}
	m.MeanRank = a.rankSum / float64(m.Positives)
	m.MAP = a.apSum / float64(m.Queries)
	return m, nil
}

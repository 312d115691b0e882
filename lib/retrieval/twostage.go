package retrieval

import (
	"fmt"
	"slices"
)

// CandidateScorer scores a short list of items for one query: the expensive second
// stage (GRAM's ITM head on the top 50, GARE's ψ-adjusted similarity, …).
type CandidateScorer[F Float] interface {
	// ScoreCandidates writes the scores of query q against items into dst
	// (len(dst) == len(items)); higher is better.
	ScoreCandidates(q int, items []int32, dst []F) error
}

// TwoStageOptions control TwoStage.
type TwoStageOptions struct {
	Options // Ks, Ties, Median and the block sizes of the cheap pass

	// Shortlist is the number of candidates the cheap scorer passes on (GRAM's
	// itm_rerank_num = 50, docs/official-code.md §1.6; GARE Appendix I discusses 256).
	Shortlist int

	// CoverageTop, if > 0, measures how much of the expensive scorer's own top-k
	// (k = CoverageTop, over all items) the shortlist contains, on CoverageQueries (nil:
	// every query). Each measured query costs one expensive score per item.
	CoverageTop     int
	CoverageQueries []int
}

// TwoStageResult is the outcome of TwoStage.
type TwoStageResult struct {
	Cheap    Result  // the cheap scorer alone (its Top is the shortlist)
	Reranked Metrics // text→video after rescoring the shortlist
	Ranks    []int   // 1-based reranked rank of each query's ground truth
	Coverage *Coverage
}

// Coverage is the share of the expensive full ranking's top-k found in the shortlist.
type Coverage struct {
	Queries   int     // queries measured
	TopK      int     // k
	Shortlist int     // K
	Mean      float64 // mean over queries of |top-k ∩ shortlist| / k
	Complete  float64 // fraction of queries whose whole top-k is in the shortlist
}

// TwoStage ranks with a cheap scorer, keeps its Shortlist best items per query,
// rescores only those with the expensive scorer and ranks again.
//
// As in GRAM's refine_score_matrix (docs/official-code.md §1.6), every shortlisted item ranks above
// every other item, which all share the lowest score: a ground truth outside the
// shortlist gets rank Shortlist+1 (TieOptimistic), items (TiePessimistic), or
// Shortlist + 1 + #(items outside the shortlist with a smaller index) (TieByIndex).
// Only text→video is reranked; rank video→text with Transpose'd scorers.
func TwoStage[F Float](cheap BlockScorer[F], expensive CandidateScorer[F], gt []int, opts TwoStageOptions) (TwoStageResult, error) {
	nq, ni := cheap.Shape()
	if opts.Shortlist < 1 || opts.Shortlist > ni {
		return TwoStageResult{}, fmt.Errorf("retrieval: shortlist of %d outside [1, %d items]", opts.Shortlist, ni)
	}
	first := opts.Options
	first.TopK = opts.Shortlist
	res, err := Evaluate(cheap, gt, first)
	if err != nil {
		return TwoStageResult{}, err
	}
	gt, _ = checkGroundTruth(gt, nq, ni) // validated by Evaluate
	out := TwoStageResult{Cheap: res, Ranks: make([]int, nq)}
	k := opts.Shortlist
	scores := make([]F, k)
	tied := 0
	for q := range nq {
		items, _ := res.Top.Row(q)
		if err := expensive.ScoreCandidates(q, items, scores); err != nil {
			return TwoStageResult{}, fmt.Errorf("retrieval: rescoring query %d: %w", q, err)
		}
		pos := slices.Index(items, int32(gt[q]))
		var greater, equal, before int
		if pos >= 0 {
			v := scores[pos]
			if v != v {
				return TwoStageResult{}, fmt.Errorf("retrieval: NaN rescored score at query %d, item %d", q, gt[q])
			}
			for j, x := range scores {
				switch {
				case x != x:
					return TwoStageResult{}, fmt.Errorf("retrieval: NaN rescored score at query %d, item %d", q, items[j])
				case j == pos:
				case x > v:
					greater++
				case x == v:
					equal++
					if int(items[j]) < gt[q] {
						before++
					}
				}
			}
		} else {
			// Below the whole shortlist, tied with the other ni-k-1 outsiders.
			greater, equal = k, ni-k-1
			before = gt[q]
			for _, it := range items {
				if int(it) < gt[q] {
					before--
				}
			}
		}
		if equal > 0 {
			tied++
		}
		out.Ranks[q] = opts.Ties.rank(greater, equal, before)
	}
	if out.Reranked, err = FromRanks(out.Ranks, res.T2V.Ks, opts.Median); err != nil {
		return TwoStageResult{}, err
	}
	out.Reranked.Tied = tied
	if opts.CoverageTop > 0 {
		c, err := coverage(res.Top, expensive, ni, opts.CoverageTop, opts.CoverageQueries)
		if err != nil {
			return TwoStageResult{}, err
		}
		out.Coverage = &c
	}
	return out, nil
}

// coverage scores every item for the measured queries with the expensive scorer and
// checks its top-k against the shortlist.
func coverage[F Float](short *Top, expensive CandidateScorer[F], ni, k int, queries []int) (Coverage, error) {
	if k > ni {
		return Coverage{}, fmt.Errorf("retrieval: coverage top-%d of %d items", k, ni)
	}
	nq := len(short.Items) / short.K
	if queries == nil {
		queries = make([]int, nq)
		for i := range queries {
			queries[i] = i
		}
	}
	if len(queries) == 0 {
		return Coverage{}, fmt.Errorf("retrieval: no coverage queries")
	}
	all := make([]int32, ni)
	for i := range all {
		all[i] = int32(i)
	}
	row := make([]F, ni)
	best := make([]int32, k)
	bestScores := make([]float64, k)
	c := Coverage{Queries: len(queries), TopK: k, Shortlist: short.K}
	inShortlist := make(map[int32]bool, short.K)
	for _, q := range queries {
		if q < 0 || q >= nq {
			return Coverage{}, fmt.Errorf("retrieval: coverage query %d out of range [0, %d)", q, nq)
		}
		if err := expensive.ScoreCandidates(q, all, row); err != nil {
			return Coverage{}, fmt.Errorf("retrieval: scoring all items for query %d: %w", q, err)
		}
		topK(row, best, bestScores)
		clear(inShortlist)
		items, _ := short.Row(q)
		for _, it := range items {
			inShortlist[it] = true
		}
		hit := 0
		for _, it := range best {
			if inShortlist[it] {
				hit++
			}
		}
		c.Mean += float64(hit) / float64(k)
		if hit == k {
			c.Complete++
		}
	}
	c.Mean /= float64(len(queries))
	c.Complete /= float64(len(queries))
	return c, nil
}

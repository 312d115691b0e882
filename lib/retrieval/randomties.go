package retrieval

import (
	"fmt"
	"math"
	"slices"
)

// RandomTies returns the text→item metrics of the row-major [queries × items] score matrix scores when
// the ground truth's ties are broken uniformly at random, in expectation: with g items scoring higher
// than the ground truth gt[q] and e other items scoring the same, its rank is uniform on g+1 … g+e+1,
// so
//
//	P(rank ≤ K) = clamp((K − g)/(e + 1), 0, 1),   E[rank] = g + 1 + e/2.
//
// R@K is 100·mean_q P(rank ≤ K) (a fraction of a query counts), MnR the mean expected rank and MdR the
// median (rule median) of the expected ranks. It lies between TiePessimistic and TieOptimistic, and
// equals both when no ground truth ties (Tied = 0). It is the fair comparator between a scorer whose
// scores tie often (a zero-training baseline over discrete labels) and one whose scores do not (a
// learned model): TiePessimistic would lower the first by an artefact of its ties. ks nil means
// TextVideoKs.
func RandomTies[F Float](scores []F, gt []int, items int, ks []int, median MedianRule) (Metrics, error) {
	if ks == nil {
		ks = TextVideoKs
	}
	if err := checkKs(ks); err != nil {
		return Metrics{}, err
	}
	nq := len(gt)
	if nq == 0 || items <= 0 || len(scores) != nq*items {
		return Metrics{}, fmt.Errorf("retrieval: RandomTies needs %d queries × %d items scores, got %d", nq, items, len(scores))
	}
	m := Metrics{Queries: nq, Ks: slices.Clone(ks), Recall: make([]float64, len(ks))}
	ranks := make([]float64, nq)
	for q, v := range gt {
		if v < 0 || v >= items {
			return Metrics{}, fmt.Errorf("retrieval: query %d has ground truth %d outside [0, %d)", q, v, items)
		}
		row := scores[q*items : (q+1)*items]
		s := row[v]
		var g, e int
		for i, x := range row {
			switch {
			case i == v:
			case x > s:
				g++
			case x == s:
				e++
			}
		}
		if e > 0 {
			m.Tied++
		}
		for i, k := range ks {
			m.Recall[i] += math.Min(math.Max(float64(k-g)/float64(e+1), 0), 1)
		}
		ranks[q] = float64(g) + 1 + float64(e)/2
		m.MnR += ranks[q]
	}
	for i := range ks {
		m.Recall[i] = 100 * m.Recall[i] / float64(nq)
		m.SumR += m.Recall[i]
	}
	m.MnR /= float64(nq)
	slices.Sort(ranks)
	lo, hi := ranks[(nq-1)/2], ranks[nq/2]
	if median == MedianLower {
		m.MdR = lo
	} else {
		m.MdR = (lo + hi) / 2
	}
	return m, nil
}

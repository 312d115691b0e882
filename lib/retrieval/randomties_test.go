package retrieval

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// permutations calls fn with every permutation of 0…n−1.
func permutations(n int, fn func([]int)) {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	var rec func(k int)
	rec = func(k int) {
		if k == n {
			fn(p)
			return
		}
		for i := k; i < n; i++ {
			p[k], p[i] = p[i], p[k]
			rec(k + 1)
			p[k], p[i] = p[i], p[k]
		}
	}
	rec(0)
}

// TestRandomTiesAgainstEveryTieBreak averages, over every permutation of the items used as the
// tie-break order, the ground truth's rank in a stable sort by descending score: the exact expectation
// of a uniformly random tie-break, computed without the closed form.
func TestRandomTiesAgainstEveryTieBreak(t *testing.T) {
	const items = 6
	scores := []float32{
		0.5, 0.5, 0.5, 0.1, 0.9, 0.5, // one higher, three tied with the ground truth
		0.2, 0.3, 0.1, 0.0, 0.4, 0.5, // no tie, rank 1
		0.1, 0.1, 0.1, 0.1, 0.1, 0.1, // all tied
		0.7, 0.9, 0.8, 0.7, 0.6, 0.7, // two higher, two tied
		0.3, 0.3, 0.9, 0.9, 0.3, 0.3, // two higher, three tied
	}
	gt := []int{0, 5, 2, 3, 4}
	ks := []int{1, 2, 5}
	got, err := RandomTies(scores, gt, items, ks, MedianNumPy)
	if err != nil {
		t.Fatal(err)
	}
	recall := make([]float64, len(ks))
	expRank := make([]float64, len(gt))
	var perms float64
	permutations(items, func(p []int) {
		perms++
		for q, v := range gt {
			row := scores[q*items : (q+1)*items]
			order := make([]int, items)
			for i := range order {
				order[i] = p[i]
			}
			sort.SliceStable(order, func(a, b int) bool { return row[order[a]] > row[order[b]] })
			for r, i := range order {
				if i == v {
					expRank[q] += float64(r + 1)
					for j, k := range ks {
						if r+1 <= k {
							recall[j]++
						}
					}
				}
			}
		}
	})
	var sumR, mnr float64
	for j := range ks {
		want := 100 * recall[j] / perms / float64(len(gt))
		sumR += want
		if math.Abs(got.Recall[j]-want) > 1e-9 {
			t.Errorf("R@%d = %v, every tie-break %v", ks[j], got.Recall[j], want)
		}
	}
	for q := range expRank {
		expRank[q] /= perms
		mnr += expRank[q] / float64(len(gt))
	}
	sort.Float64s(expRank)
	if math.Abs(got.SumR-sumR) > 1e-9 || math.Abs(got.MnR-mnr) > 1e-9 || math.Abs(got.MdR-expRank[len(expRank)/2]) > 1e-9 {
		t.Errorf("SumR %v MnR %v MdR %v; every tie-break %v %v %v", got.SumR, got.MnR, got.MdR, sumR, mnr, expRank[len(expRank)/2])
	}
	if got.Tied != 4 {
		t.Errorf("Tied = %d, want 4", got.Tied)
	}
}

// Without ties the expectation is the ranking itself: the same metrics as Evaluate.
func TestRandomTiesWithoutTiesIsEvaluate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const nq, ni = 40, 30
	scores := make([]float64, nq*ni)
	for i := range scores {
		scores[i] = rng.Float64()
	}
	gt := make([]int, nq)
	for q := range gt {
		gt[q] = rng.IntN(ni)
	}
	mat, _ := NewMatrix(nq, ni, scores)
	res, err := Evaluate[float64](mat, gt, Options{Ks: PRVRKs})
	if err != nil {
		t.Fatal(err)
	}
	got, err := RandomTies(scores, gt, ni, PRVRKs, MedianNumPy)
	if err != nil {
		t.Fatal(err)
	}
	for i := range PRVRKs {
		if math.Abs(got.Recall[i]-res.T2V.Recall[i]) > 1e-9 {
			t.Errorf("R@%d %v vs Evaluate %v", PRVRKs[i], got.Recall[i], res.T2V.Recall[i])
		}
	}
	if math.Abs(got.MnR-res.T2V.MnR) > 1e-9 || got.MdR != res.T2V.MdR || got.Tied != 0 {
		t.Errorf("MnR %v MdR %v Tied %d vs Evaluate %v %v", got.MnR, got.MdR, got.Tied, res.T2V.MnR, res.T2V.MdR)
	}
	if _, err := RandomTies(scores[:10], gt, ni, nil, MedianNumPy); err == nil {
		t.Error("short score matrix: no error")
	}
}

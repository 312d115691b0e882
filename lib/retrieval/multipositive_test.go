package retrieval

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// bruteMultiPositive ranks the positives the slow way: sort the non-skipped items by score (best
// first, ties broken as the rule says), walk the list, and count non-positives before each positive.
func bruteMultiPositive(row []float64, positives []int32, skip int, tie TieRule) (ranks []int, ap float64) {
	isPos := map[int]bool{}
	for _, p := range positives {
		isPos[int(p)] = true
	}
	var order []int
	for w := range row {
		if w != skip {
			order = append(order, w)
		}
	}
	sort.SliceStable(order, func(a, b int) bool {
		x, y := order[a], order[b]
		if row[x] != row[y] {
			return row[x] > row[y]
		}
		switch tie {
		case TieOptimistic: // positives before tied non-positives
			return isPos[x] && !isPos[y]
		case TiePessimistic: // non-positives before tied positives
			return !isPos[x] && isPos[y]
		}
		return x < y
	})
	rankOf := map[int]int{}
	found, negatives := 0, 0
	for pos, w := range order {
		if !isPos[w] {
			negatives++
			continue
		}
		found++
		rankOf[w] = 1 + negatives
		ap += float64(found) / float64(pos+1)
	}
	for _, p := range positives {
		ranks = append(ranks, rankOf[int(p)])
	}
	return ranks, ap / float64(len(positives))
}

func TestPositiveRanksByHand(t *testing.T) {
	// Items 0..5 with scores; positives 1 and 4; item 0 is the query itself (skipped).
	//   order by score: 0 (9, skipped), 2 (8), 1 (7, pos), 3 (5), 5 (4), 4 (3, pos)
	// positive 1: one non-positive (2) above → rank 2; positive 4: 2, 3, 5 above → rank 4.
	// AP = (1/2)(1/2 + 2/5) = 0.45.
	row := []float64{9, 7, 8, 5, 3, 4}
	ranks, ap, err := PositiveRanks(row, []int32{4, 1}, 0, TieOptimistic)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ranks, []int{4, 2}) || math.Abs(ap-0.45) > 1e-15 {
		t.Fatalf("ranks %v AP %v, want [4 2] 0.45", ranks, ap)
	}
	// Perfect ranking: every positive above every non-positive → ranks 1, AP 1.
	ranks, ap, _ = PositiveRanks([]float32{1, 5, 6, 0}, []int32{1, 2}, -1, TiePessimistic)
	if !slices.Equal(ranks, []int{1, 1}) || ap != 1 {
		t.Fatalf("perfect: ranks %v AP %v", ranks, ap)
	}
	// Worst ranking: 3 non-positives above both positives → ranks 4, AP (1/4 + 2/5)/2.
	ranks, ap, _ = PositiveRanks([]float64{9, 8, 7, 1, 2}, []int32{3, 4}, -1, TiePessimistic)
	if !slices.Equal(ranks, []int{4, 4}) || math.Abs(ap-(0.25+0.4)/2) > 1e-15 {
		t.Fatalf("worst: ranks %v AP %v", ranks, ap)
	}
	// Constant scores: optimistic puts positives first, pessimistic last.
	flat := []float64{1, 1, 1, 1}
	if r, _, _ := PositiveRanks(flat, []int32{2}, -1, TieOptimistic); r[0] != 1 {
		t.Errorf("flat optimistic rank %d, want 1", r[0])
	}
	if r, _, _ := PositiveRanks(flat, []int32{2}, -1, TiePessimistic); r[0] != 4 {
		t.Errorf("flat pessimistic rank %d, want 4", r[0])
	}
	if r, _, _ := PositiveRanks(flat, []int32{2}, -1, TieByIndex); r[0] != 3 {
		t.Errorf("flat by-index rank %d, want 3", r[0])
	}
}

func TestPositiveRanksMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 300 {
		n := 3 + rng.IntN(40)
		row := make([]float64, n)
		levels := 2 + rng.IntN(8) // few distinct values: many ties
		for i := range row {
			if trial%2 == 0 {
				row[i] = float64(rng.IntN(levels))
			} else {
				row[i] = rng.Float64()
			}
		}
		skip := rng.IntN(n+1) - 1
		var positives []int32
		for _, w := range rng.Perm(n)[:1+rng.IntN(n-1)] {
			if w != skip {
				positives = append(positives, int32(w))
			}
		}
		if len(positives) == 0 {
			continue
		}
		for _, tie := range []TieRule{TiePessimistic, TieOptimistic, TieByIndex} {
			got, gotAP, err := PositiveRanks(row, positives, skip, tie)
			if err != nil {
				t.Fatal(err)
			}
			want, wantAP := bruteMultiPositive(row, positives, skip, tie)
			if !slices.Equal(got, want) {
				t.Fatalf("trial %d %v: ranks %v, brute force %v (row %v, positives %v, skip %d)", trial, tie, got, want, row, positives, skip)
			}
			// AP of tied positives depends only on the multiset of ranks, except for TieByIndex
			// where positives tied with each other may swap; compare it for the other two rules.
			if tie != TieByIndex && math.Abs(gotAP-wantAP) > 1e-12 {
				t.Fatalf("trial %d %v: AP %.6f, brute force %.6f", trial, tie, gotAP, wantAP)
			}
		}
	}
}

// Permuting items (and the positives' labels with them) leaves ranks and AP unchanged.
func TestPositiveRanksPermutationInvariant(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 50 {
		n := 20
		row := make([]float64, n)
		for i := range row {
			row[i] = rng.NormFloat64()
		}
		positives := []int32{3, 11, 17}
		r0, ap0, _ := PositiveRanks(row, positives, 5, TiePessimistic)
		perm := rng.Perm(n)
		prow := make([]float64, n)
		for i, p := range perm {
			prow[p] = row[i]
		}
		pp := []int32{int32(perm[3]), int32(perm[11]), int32(perm[17])}
		r1, ap1, _ := PositiveRanks(prow, pp, perm[5], TiePessimistic)
		if !slices.Equal(r0, r1) || ap0 != ap1 {
			t.Fatalf("permutation changed ranks %v → %v, AP %v → %v", r0, r1, ap0, ap1)
		}
	}
}

func TestPositiveRanksErrors(t *testing.T) {
	row := []float64{1, 2, 3}
	for name, c := range map[string]struct {
		row  []float64
		pos  []int32
		skip int
	}{
		"none":      {row, nil, -1},
		"range":     {row, []int32{3}, -1},
		"negative":  {row, []int32{-1}, -1},
		"duplicate": {row, []int32{1, 1}, -1},
		"skipped":   {row, []int32{1}, 1},
		"NaN item":  {[]float64{1, math.NaN(), 3}, []int32{0}, -1},
		"NaN pos":   {[]float64{1, math.NaN(), 3}, []int32{1}, -1},
	} {
		if _, _, err := PositiveRanks(c.row, c.pos, c.skip, TiePessimistic); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestMultiPositiveAccumulator(t *testing.T) {
	var a MultiPositiveAccumulator
	if _, err := a.Metrics(); err == nil {
		t.Error("empty accumulator: no error")
	}
	// Query 1: ranks 4, 2 (AP 0.45, see TestPositiveRanksByHand); query 2: rank 1 (AP 1).
	if err := a.Add([]float64{9, 7, 8, 5, 3, 4}, []int32{4, 1}, 0, TieOptimistic); err != nil {
		t.Fatal(err)
	}
	if err := a.Add([]float64{0, 5, 1}, []int32{1}, -1, TieOptimistic); err != nil {
		t.Fatal(err)
	}
	m, err := a.Metrics()
	if err != nil {
		t.Fatal(err)
	}
	if m.Queries != 2 || m.Positives != 3 || math.Abs(m.MeanRank-7.0/3) > 1e-15 || math.Abs(m.MAP-0.725) > 1e-15 {
		t.Fatalf("got %+v, want 2 queries, 3 positives, mean rank 7/3, MAP 0.725", m)
	}
}

package main

import (
	"math"
	"testing"
)

// expectedByEnumeration breaks the ground truth's ties in every possible way: the ground truth and the
// e videos tied with it take the places g+1 … g+e+1 in every order, each equally likely.
func expectedByEnumeration(row []float32, gt, k int) (recall, rank float64) {
	var g, e int
	for v, x := range row {
		if v == gt {
			continue
		}
		if x > row[gt] {
			g++
		} else if x == row[gt] {
			e++
		}
	}
	for place := g + 1; place <= g+e+1; place++ { // the ground truth's place in one ordering class
		if place <= k {
			recall++
		}
		rank += float64(place)
	}
	return recall / float64(e+1), rank / float64(e+1)
}

func TestTiesExpectedMatchesEnumeration(t *testing.T) {
	const nv = 6
	scores := []float32{
		0.5, 0.5, 0.5, 0.1, 0.9, 0.5, // gt 0: one higher, three tied
		0.2, 0.3, 0.1, 0.0, 0.4, 0.5, // gt 5: no tie, rank 1
		0.1, 0.1, 0.1, 0.1, 0.1, 0.1, // gt 2: all tied
		0.7, 0.9, 0.8, 0.7, 0.6, 0.7, // gt 3: two higher, two tied
	}
	gt := []int{0, 5, 2, 3}
	ks := []int{1, 2, 5}
	got := tiesExpected(scores, gt, nv, ks)
	var sumR, mnr float64
	for _, k := range ks {
		var want float64
		for q := range gt {
			r, _ := expectedByEnumeration(scores[q*nv:(q+1)*nv], gt[q], k)
			want += 100 * r / float64(len(gt))
		}
		sumR += want
		if key := "R@" + string(rune('0'+k)); math.Abs(got[key]-want) > 1e-12 {
			t.Errorf("%s = %v, enumeration %v", key, got[key], want)
		}
	}
	for q := range gt {
		_, r := expectedByEnumeration(scores[q*nv:(q+1)*nv], gt[q], 1)
		mnr += r / float64(len(gt))
	}
	if math.Abs(got["SumR"]-sumR) > 1e-12 || math.Abs(got["MnR"]-mnr) > 1e-12 {
		t.Errorf("SumR %v MnR %v, enumeration %v %v", got["SumR"], got["MnR"], sumR, mnr)
	}
	// Closed form for the hand-made rows: R@1 = (0 + 1 + 1/6 + 0)/4.
	if want := 100 * (1 + 1.0/6) / 4; math.Abs(got["R@1"]-want) > 1e-12 {
		t.Errorf("R@1 = %v, want %v", got["R@1"], want)
	}
}

package data

import (
	"slices"
	"testing"
)

func TestCarveValidation(t *testing.T) {
	for _, c := range []struct {
		n       int
		frac    float64
		wantVal int
	}{{10, 0.1, 2}, {3, 0.1, 2}, {5338, 0.1, 534}, {4, 0.5, 2}, {20, 0.25, 5}} {
		keep, val, err := CarveValidation(c.n, c.frac)
		if err != nil {
			t.Fatal(err)
		}
		if len(val) != c.wantVal || len(keep) != c.n-c.wantVal {
			t.Errorf("n=%d frac=%g: %d kept, %d val; want %d val", c.n, c.frac, len(keep), len(val), c.wantVal)
		}
		all := slices.Sorted(slices.Values(append(slices.Clone(keep), val...)))
		for i, x := range all {
			if x != i {
				t.Fatalf("n=%d: keep ∪ val is not a partition of 0..n-1: %v", c.n, all)
			}
		}
		if !slices.IsSorted(keep) || !slices.IsSorted(val) {
			t.Errorf("not sorted")
		}
		keep2, val2, _ := CarveValidation(c.n, c.frac)
		if !slices.Equal(keep, keep2) || !slices.Equal(val, val2) {
			t.Errorf("n=%d: not deterministic", c.n)
		}
	}
	for _, bad := range []struct {
		n    int
		frac float64
	}{{2, 0.5}, {3, 0.9}, {10, 0}, {10, 1}, {10, -0.1}} {
		if _, _, err := CarveValidation(bad.n, bad.frac); err == nil {
			t.Errorf("n=%d frac=%g: no error", bad.n, bad.frac)
		}
	}
}

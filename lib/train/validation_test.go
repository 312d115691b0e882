package train

import (
	"slices"
	"testing"
)

// TestCarveValidation: the held-out indices are round(fraction·n) (at least 2), disjoint from the
// kept ones, together 0…n−1, both ascending; the same on every call (a fixed permutation), not the
// first or last rows; impossible fractions are refused.
func TestCarveValidation(t *testing.T) {
	keep, held, err := CarveValidation(50, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	if len(held) != 5 || len(keep) != 45 || !slices.IsSorted(keep) || !slices.IsSorted(held) {
		t.Fatalf("keep %v, held %v", keep, held)
	}
	all := slices.Sorted(slices.Values(append(slices.Clone(keep), held...)))
	for i, v := range all {
		if v != i {
			t.Fatalf("keep ∪ held is not 0…49: %v", all)
		}
	}
	if slices.Equal(held, []int{0, 1, 2, 3, 4}) || slices.Equal(held, []int{45, 46, 47, 48, 49}) {
		t.Errorf("held %v is a block of rows, not a permutation's draw", held)
	}
	k2, h2, _ := CarveValidation(50, 0.1)
	if !slices.Equal(k2, keep) || !slices.Equal(h2, held) {
		t.Error("two carvings of the same size differ")
	}
	if _, h, _ := CarveValidation(10, 0.01); len(h) != 2 {
		t.Errorf("a tiny fraction holds out %d, want at least 2", len(h))
	}
	for _, bad := range []struct {
		n int
		f float64
	}{{10, 0}, {10, 1}, {2, 0.5}, {10, -0.1}} {
		if _, _, err := CarveValidation(bad.n, bad.f); err == nil {
			t.Errorf("CarveValidation(%d, %v) accepted", bad.n, bad.f)
		}
	}
}

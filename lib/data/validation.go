package data

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// DefaultValFraction is the share of the training items CarveValidation sets aside when a data
// set has no validation split of its own (the official Charades-STA release has none: its
// "val" is the test split).
const DefaultValFraction = 0.1

// carveStream seeds the permutation of CarveValidation. It is a constant, not the training seed,
// so that every run on a data set validates on the same items whatever its seed.
const carveStream = 0x76616c6964 // "valid"

// CarveValidation splits n training items (videos, tuples) into the ones kept for training and
// round(fraction·n) ones (at least 1, at most n−1) set aside for model selection, both in
// increasing order. The choice depends on n and fraction only, never on the test split or on the
// training seed. It needs n ≥ 2 and 0 < fraction < 1.
func CarveValidation(n int, fraction float64) (keep, val []int, err error) {
	if !(fraction > 0 && fraction < 1) {
		return nil, nil, fmt.Errorf("validation fraction %g outside (0, 1)", fraction)
	}
	if n < 2 {
		return nil, nil, fmt.Errorf("%d training items: need at least 2 to carve a validation split", n)
	}
	k := min(max(int(math.Round(fraction*float64(n))), 1), n-1)
	perm := rand.New(rand.NewPCG(carveStream, uint64(n))).Perm(n)
	val, keep = slices.Clone(perm[:k]), slices.Clone(perm[k:])
	slices.Sort(val)
	slices.Sort(keep)
	return keep, val, nil
}

package data

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// DefaultValFraction is the share of the training items CarveValidation sets aside when a data
// set has no validation split of its own (the official Charades-STA release has none: its "val"
// is the test split; GRAM's and GARE's official code report the last or the test-best epoch).
const DefaultValFraction = 0.1

// valSeed seeds CarveValidation's permutation ("val"). It is a constant, not the training seed,
// so that every run and variant on a data set validates on the same items.
const valSeed = 0x76616c

// CarveValidation splits n training items (videos, tuples) into the ones kept for training and
// round(fraction·n) ones, at least 2, set aside for model selection and early stopping; both lists
// are in increasing order. The choice depends on n and fraction only (a fixed permutation), never
// on the test split or the training seed. It needs 0 < fraction < 1 and at least one item left to
// train on. Carving validation from train, never from test, is this project's deviation wherever
// the official code selects on test or not at all. It is the one carve of the project:
// gram, gare, prvr (by video) and featdir call it.
func CarveValidation(n int, fraction float64) (keep, val []int, err error) {
	k := max(2, int(math.Round(fraction*float64(n))))
	if !(fraction > 0 && fraction < 1) || k >= n {
		return nil, nil, fmt.Errorf("cannot carve a validation fraction %v (%d items) from %d training items", fraction, k, n)
	}
	inVal := make([]bool, n)
	for _, i := range rand.New(rand.NewPCG(valSeed, uint64(n))).Perm(n)[:k] {
		inVal[i] = true
	}
	for i, v := range inVal {
		if v {
			val = append(val, i)
		} else {
			keep = append(keep, i)
		}
	}
	return keep, val, nil
}

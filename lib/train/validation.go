package train

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// CarveValidation splits n training examples into the ones trained on (keep) and round(fraction·n)
// of them, at least 2, held out as the validation split (held), for models whose data has no
// validation split of its own; both lists ascending. The choice is a fixed permutation of n (the
// same for every seed, variant and model), so that runs compared with each other select on the
// same examples. Carving from train, never from test, is what keeps model selection and early
// stopping off the test split (a deviation wherever the official code selects on test or not at
// all: each model's documentation says so).
func CarveValidation(n int, fraction float64) (keep, held []int, err error) {
	k := max(2, int(math.Round(fraction*float64(n))))
	if fraction <= 0 || fraction >= 1 || k >= n {
		return nil, nil, fmt.Errorf("train: cannot carve a validation fraction %v (%d examples) from a train split of %d", fraction, k, n)
	}
	inVal := make([]bool, n)
	for _, i := range rand.New(rand.NewPCG(valSeed, uint64(n))).Perm(n)[:k] {
		inVal[i] = true
	}
	for i, v := range inVal {
		if v {
			held = append(held, i)
		} else {
			keep = append(keep, i)
		}
	}
	return keep, held, nil
}

// valSeed seeds CarveValidation's permutation ("val").
const valSeed = 0x76616c

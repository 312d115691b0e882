package stats

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// PairedT is the two-sided paired t-test of a − b (same seeds in the same order), df = n − 1.
// Errors when len(a) != len(b) or n < 2.
//
// meanDiff is the mean of a[i] − b[i], stdErr its standard error (sample s.d. / √n) and p the
// two-sided p-value of H₀: E[a − b] = 0. When every difference is the same, p is 0 if that
// difference is nonzero and 1 if it is zero (see the package documentation).
func PairedT(a, b []float64) (meanDiff, stdErr, p float64, err error) {
	if len(a) != len(b) {
		return 0, 0, 0, fmt.Errorf("stats: paired t-test of %d against %d values: the samples must pair seed by seed", len(a), len(b))
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	return OneSampleT(d, 0)
}

// OneSampleT is the two-sided one-sample t-test of H₀: E[x] = mu, df = n − 1.
// Errors when n < 2 or a value is not finite.
//
// meanDiff is mean(x) − mu, stdErr the standard error of mean(x) (sample s.d. / √n) and p the
// two-sided p-value. When every x[i] is the same, p is 0 if x[i] ≠ mu and 1 if x[i] = mu.
func OneSampleT(x []float64, mu float64) (meanDiff, stdErr, p float64, err error) {
	n := len(x)
	if n < 2 {
		return 0, 0, 0, fmt.Errorf("stats: a t-test needs n ≥ 2 values, got %d", n)
	}
	if math.IsNaN(mu) || math.IsInf(mu, 0) {
		return 0, 0, 0, fmt.Errorf("stats: t-test against a non-finite mean %v", mu)
	}
	var sum float64
	constant := true
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, 0, 0, fmt.Errorf("stats: value %d is %v; a t-test needs finite values", i, v)
		}
		sum += v - mu
		constant = constant && v == x[0]
	}
	meanDiff = sum / float64(n)
	if constant {
		// Zero variance: every difference is x[0] − mu exactly.
		if x[0] == mu {
			return 0, 0, 1, nil
		}
		return x[0] - mu, 0, 0, nil
	}
	var ss float64
	for _, v := range x {
		r := v - mu - meanDiff
		ss += r * r
	}
	stdErr = math.Sqrt(ss / float64(n-1) / float64(n))
	if stdErr == 0 {
		// The values differ but their spread underflows; no finite t exists.
		return 0, 0, 0, errors.New("stats: the sample's spread underflows float64; rescale the values")
	}
	t := meanDiff / stdErr
	// Two-sided: 2·P(T ≤ −|t|), evaluated in the lower tail where the CDF keeps its relative precision.
	p = 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.CDF(-math.Abs(t))
	return meanDiff, stdErr, min(p, 1), nil
}

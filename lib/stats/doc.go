// Package stats holds the significance tests behind the project's one claim rule
// (lib/reproduce): the paired and one-sample Student t-tests over seeds, and the Holm–Bonferroni
// adjustment of a family of p-values. Functions are pure, take []float64 and return float64.
//
// # Conventions
//
// Every test is two-sided with df = n − 1. The mean difference is reported with its standard
// error, the sample standard deviation (n − 1 denominator) over √n. The Student t CDF is gonum's
// (gonum.org/v1/gonum/stat/distuv.StudentsT); nothing here re-derives it.
//
// Zero variance (every difference identical, so t = d̄/0) is decided without dividing:
// p = 0 when the mean difference is nonzero (every seed agrees on a nonzero difference) and p = 1
// when it is zero (the samples are equal on every seed). scipy's ttest_rel returns ±inf and p = 0
// for the first case, NaN for the second; the rule needs a number for both.
//
// Inputs must be finite: a NaN or ±Inf value is an error, never a NaN p-value.
//
// Golden values: testdata/golden.py computes them with scipy.stats (ttest_rel, ttest_1samp) and a
// reference Holm written independently in Python; the tests read its output, testdata/golden.json.
package stats

package stats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// goldenFile is testdata/golden.json, written by testdata/golden.py: scipy.stats.ttest_rel and
// ttest_1samp, and a reference Holm written in Python from its definition.
type goldenFile struct {
	Paired []struct {
		Name string
		A, B []float64
		scipyT
	}
	OneSample []struct {
		Name string
		X    []float64
		Mu   float64
		scipyT
	} `json:"one_sample"`
	Holm []struct {
		Name     string
		P        []float64
		Adjusted []float64
	}
}

// scipyT is scipy's result for one t-test case: the mean difference, its standard error and the
// two-sided p-value.
type scipyT struct {
	MeanDiff float64 `json:"mean_diff"`
	StdErr   float64 `json:"std_err"`
	P        float64
}

// matchesScipy reports (t.Errorf) where a t-test's (d, se, p) differs from scipy's want; it returns
// false, after reporting it, when the test returned an error.
func matchesScipy(t *testing.T, test, name string, want scipyT, d, se, p float64, err error) bool {
	t.Helper()
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return false
	}
	if !near(d, want.MeanDiff) || !near(se, want.StdErr) || !near(p, want.P) {
		t.Errorf("%s: %s = (%.17g, %.17g, %.17g), scipy (%.17g, %.17g, %.17g)", name, test, d, se, p, want.MeanDiff, want.StdErr, want.P)
	}
	return true
}

func readGolden(t *testing.T) goldenFile {
	t.Helper()
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g goldenFile
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatalf("testdata/golden.json: %v", err)
	}
	if len(g.Paired) == 0 || len(g.OneSample) == 0 || len(g.Holm) == 0 {
		t.Fatal("testdata/golden.json lacks a section")
	}
	return g
}

// near reports whether got matches want to a relative 1e-6 (absolute 1e-12 at zero).
func near(got, want float64) bool {
	return math.Abs(got-want) <= 1e-12+1e-6*math.Abs(want)
}

func TestPairedTMatchesScipy(t *testing.T) {
	for _, c := range readGolden(t).Paired {
		d, se, p, err := PairedT(c.A, c.B)
		if !matchesScipy(t, "PairedT", c.Name, c.scipyT, d, se, p, err) {
			continue
		}
		// Swapping the samples flips the difference and keeps p.
		d2, se2, p2, _ := PairedT(c.B, c.A)
		if d2 != -d || se2 != se || !near(p2, p) {
			t.Errorf("%s: swapped PairedT = (%g, %g, %g), want (%g, %g, %g)", c.Name, d2, se2, p2, -d, se, p)
		}
	}
}

func TestOneSampleTMatchesScipy(t *testing.T) {
	for _, c := range readGolden(t).OneSample {
		d, se, p, err := OneSampleT(c.X, c.Mu)
		matchesScipy(t, "OneSampleT", c.Name, c.scipyT, d, se, p, err)
	}
}

func TestTTestZeroVariance(t *testing.T) {
	// Every difference is 0.5: p = 0 (scipy: t = inf, p = 0).
	d, se, p, err := PairedT([]float64{1.5, 2.5, 3.5}, []float64{1, 2, 3})
	if err != nil || d != 0.5 || se != 0 || p != 0 {
		t.Errorf("constant nonzero difference: (%g, %g, %g, %v), want (0.5, 0, 0, nil)", d, se, p, err)
	}
	// Equal on every seed: p = 1 (scipy: NaN).
	d, se, p, err = PairedT([]float64{15.7, 15.7, 100, 100, 3}, []float64{15.7, 15.7, 100, 100, 3})
	if err != nil || d != 0 || se != 0 || p != 1 {
		t.Errorf("identical samples: (%g, %g, %g, %v), want (0, 0, 1, nil)", d, se, p, err)
	}
	d, se, p, err = OneSampleT([]float64{2, 2}, 2)
	if err != nil || d != 0 || se != 0 || p != 1 {
		t.Errorf("constant sample at mu: (%g, %g, %g, %v), want (0, 0, 1, nil)", d, se, p, err)
	}
	d, se, p, err = OneSampleT([]float64{2, 2}, 3)
	if err != nil || d != -1 || se != 0 || p != 0 {
		t.Errorf("constant sample away from mu: (%g, %g, %g, %v), want (-1, 0, 0, nil)", d, se, p, err)
	}
}

func TestTTestErrors(t *testing.T) {
	cases := []struct {
		name string
		a, b []float64
	}{
		{"lengths differ", []float64{1, 2, 3}, []float64{1, 2}},
		{"n = 1", []float64{1}, []float64{2}},
		{"n = 0", nil, nil},
		{"NaN", []float64{1, math.NaN(), 3}, []float64{1, 2, 3}},
		{"Inf", []float64{1, 2, 3}, []float64{1, math.Inf(-1), 3}},
	}
	for _, c := range cases {
		if _, _, _, err := PairedT(c.a, c.b); err == nil {
			t.Errorf("PairedT(%s): no error", c.name)
		}
	}
	if _, _, _, err := OneSampleT([]float64{1, 2}, math.NaN()); err == nil {
		t.Error("OneSampleT against NaN: no error")
	}
}

func TestHolmMatchesReference(t *testing.T) {
	for _, c := range readGolden(t).Holm {
		got := Holm(c.P)
		if len(got) != len(c.Adjusted) {
			t.Fatalf("%s: %d adjusted values, want %d", c.Name, len(got), len(c.Adjusted))
		}
		for i := range got {
			if !near(got[i], c.Adjusted[i]) {
				t.Errorf("%s: Holm[%d] = %.17g, reference %.17g (p = %v)", c.Name, i, got[i], c.Adjusted[i], c.P)
			}
		}
	}
}

func TestHolmByHand(t *testing.T) {
	// Sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04 → running max 0.06.
	got := Holm([]float64{0.01, 0.04, 0.03, 0.005})
	want := []float64{0.03, 0.06, 0.06, 0.02}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Errorf("Holm = %v, want %v", got, want)
			break
		}
	}
	if got := Holm(nil); len(got) != 0 {
		t.Errorf("Holm(nil) = %v", got)
	}
	if got := Holm([]float64{0.2}); got[0] != 0.2 {
		t.Errorf("a family of one is not adjusted: %v", got)
	}
}

// TestHolmProperties checks, on random families with ties, what any Holm adjustment must satisfy:
// p ≤ adjusted ≤ min(1, m·p), monotone in p, equal for equal p, and the input left unchanged.
func TestHolmProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		m := 1 + r.IntN(12)
		p := make([]float64, m)
		for i := range p {
			switch r.IntN(4) {
			case 0: // a tie with an earlier value
				p[i] = p[r.IntN(i+1)]
			case 1: // near 1
				p[i] = 1 - r.Float64()*1e-3
			default:
				p[i] = r.Float64() * r.Float64()
			}
		}
		in := append([]float64(nil), p...)
		adj := Holm(p)
		for i := range p {
			if p[i] != in[i] {
				t.Fatalf("Holm changed its input: %v → %v", in, p)
			}
			if adj[i] < p[i] || adj[i] > min(1, float64(m)*p[i]) {
				t.Fatalf("adjusted %g outside [p, min(1, m·p)] for p = %g (family %v)", adj[i], p[i], p)
			}
			for j := range p {
				if p[i] <= p[j] && adj[i] > adj[j] {
					t.Fatalf("not monotone: p %g ≤ %g but adjusted %g > %g (family %v)", p[i], p[j], adj[i], adj[j], p)
				}
			}
		}
	}
}

func TestHolmPanicsOnNonPValue(t *testing.T) {
	for _, bad := range []float64{math.NaN(), -0.1, 1.5} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Holm accepted p = %v", bad)
				}
			}()
			Holm([]float64{0.1, bad})
		}()
	}
}

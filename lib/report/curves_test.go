package report

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

func TestLearningCurves(t *testing.T) {
	// Two runs of 3 and 2 epochs: epoch 1 {1, 3} → mean 2, s.e. √2/√2 = 1; epoch 2 {2, 4} → 3 ± 1;
	// epoch 3 {3} → 3 with no bar (by hand).
	mean, se := epochMeans([][]float64{{1, 2, 3}, {3, 4}})
	want, wantSE := []float64{2, 3, 3}, []float64{1, 1, 0}
	if len(mean) != 3 {
		t.Fatalf("epochMeans: %d epochs, want 3", len(mean))
	}
	for e := range want {
		if math.Abs(mean[e]-want[e]) > 1e-12 || math.Abs(se[e]-wantSE[e]) > 1e-12 {
			t.Errorf("epoch %d: %g ± %g, want %g ± %g", e+1, mean[e], se[e], want[e], wantSE[e])
		}
	}
	// NaN is an epoch without a value: epoch 2 {NaN, 4} → 4 ± 0 from the one value; epoch 3 of a single
	// run that has none → NaN.
	mean, se = epochMeans([][]float64{{1, math.NaN(), math.NaN()}, {3, 4}})
	if len(mean) != 3 || mean[0] != 2 || mean[1] != 4 || se[1] != 0 || !math.IsNaN(mean[2]) {
		t.Errorf("epochMeans with NaN: %v ± %v, want [2 4 NaN] with s.e. 0 at epoch 2", mean, se)
	}
	p, err := LearningCurves("loss", "train loss", Curve{Label: "HLFormer", PerRun: [][]float64{{1, 2, 3}, {3, 4}}},
		Curve{Label: "Euclidean-only", PerRun: [][]float64{{2, 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if f, err := Render(p, 0, 0); err != nil || len(f.PNG) == 0 {
		t.Errorf("Render: %v", err)
	}
	if _, err := LearningCurves("loss", "train loss", Curve{Label: "empty"}); err == nil || !strings.Contains(err.Error(), `"empty"`) {
		t.Errorf("a curve without values: err = %v", err)
	}
}

func TestWholeTicks(t *testing.T) {
	// The finest step of 1, 2, 5, 10, 20, 50, 100, 200, … with at most 8 steps over the range (by hand).
	for _, tc := range []struct {
		lo, hi      float64
		first, step float64
		n           int
	}{
		{1, 5, 1, 1, 5},       // 4 units: every one
		{1, 30, 5, 5, 6},      // 29 units: 5 → 5.8 steps; 2 → 14.5 too many
		{0, 1000, 0, 200, 6},  // 1000 units: 200 → 5 steps; 100 → 10 too many
		{0.5, 2.5, 1, 1, 2},   // only the whole numbers inside the range
		{-37, 512, 0, 100, 6}, // 549 units: 100 → 5.49 steps
	} {
		ticks := WholeTicks.Ticks(tc.lo, tc.hi)
		if len(ticks) != tc.n {
			t.Errorf("[%g, %g]: %d ticks %v, want %d", tc.lo, tc.hi, len(ticks), ticks, tc.n)
			continue
		}
		for i, tk := range ticks {
			if want := tc.first + float64(i)*tc.step; tk.Value != want || tk.Label != strconv.FormatFloat(want, 'f', -1, 64) {
				t.Errorf("[%g, %g] tick %d: %g %q, want %g", tc.lo, tc.hi, i, tk.Value, tk.Label, want)
			}
		}
	}
}

func TestExactTicks(t *testing.T) {
	labels := func(ticks []plot.Tick) (out []string) {
		for _, tk := range ticks {
			if !tk.IsMinor() {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	// A stage-2 loss axis: gonum places ticks at 3.95, 4.05, 4.15 and labels them with one decimal,
	// so two read "4" (the failure this ticker exists for); written out, they are 3.95, 4.05, 4.15.
	lo, hi := 3.901, 4.151
	if got := labels(plot.DefaultTicks{}.Ticks(lo, hi)); !slices.Equal(got, []string{"4", "4", "4.2"}) {
		t.Logf("gonum's labels of [%g, %g] are now %q (was 4, 4, 4.2)", lo, hi, got)
	}
	if got, want := labels(ExactTicks.Ticks(lo, hi)), []string{"3.95", "4.05", "4.15"}; !slices.Equal(got, want) {
		t.Errorf("ExactTicks [%g, %g]: %q, want %q", lo, hi, got, want)
	}
	// gonum writes ticks of step 25 with two decimals; they need none.
	if got, want := labels(ExactTicks.Ticks(124, 176)), []string{"125", "150", "175"}; !slices.Equal(got, want) {
		t.Errorf("ExactTicks [124, 176]: %q, want %q", got, want)
	}
	// Where gonum's labels read right in as few digits, its ticks are kept as they are.
	for _, r := range [][2]float64{{0, 10}, {1, 9.3}, {-2.5, 300}, {0.001, 0.0047}} {
		if got, want := ExactTicks.Ticks(r[0], r[1]), (plot.DefaultTicks{}).Ticks(r[0], r[1]); !slices.Equal(got, want) {
			t.Errorf("ExactTicks %v = %v, want gonum's %v", r, got, want)
		}
	}
	// Over many narrow and wide ranges, every label reads as its tick (to 1e-6 of the range) and
	// no two labels are the same.
	for lo := -1.0; lo < 5; lo += 0.0137 {
		for _, width := range []float64{0.05, 0.21, 0.3, 1.7, 40} {
			ticks := ExactTicks.Ticks(lo, lo+width)
			seen := map[string]bool{}
			for _, tk := range ticks {
				if tk.IsMinor() {
					continue
				}
				v, err := strconv.ParseFloat(tk.Label, 64)
				if err != nil || math.Abs(v-tk.Value) > 1e-6*width || seen[tk.Label] {
					t.Fatalf("[%g, %g]: tick %g labelled %q (labels %q)", lo, lo+width, tk.Value, tk.Label, labels(ticks))
				}
				seen[tk.Label] = true
			}
		}
	}
}

func TestLinesWholeAxis(t *testing.T) {
	y := []float64{3, 2, 1}
	steps, err := Lines("t", "optimizer step", "loss", []float64{1, 2, 3}, Series{Name: "a", Y: y})
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range steps.X.Tick.Marker.Ticks(1, 3) {
		if tk.Label != "" && tk.Value != math.Trunc(tk.Value) {
			t.Errorf("step axis labels %q at %g", tk.Label, tk.Value)
		}
	}
	// A fractional abscissa keeps gonum's default ticker, which labels 1.5 on [1, 2].
	frac, err := Lines("t", "x", "y", []float64{1, 1.5, 2}, Series{Name: "a", Y: y})
	if err != nil {
		t.Fatal(err)
	}
	half := false
	for _, tk := range frac.X.Tick.Marker.Ticks(1, 2) {
		half = half || (tk.Value == 1.5 && tk.Label != "")
	}
	if !half {
		t.Errorf("fractional axis: no label at 1.5 in %v", frac.X.Tick.Marker.Ticks(1, 2))
	}
}

func TestEndOfCurves(t *testing.T) {
	// Variant A: runs {1, 2, 2.5} (best = last, gain 0.5) and {1, 3, 2} (best = epoch 1, not counted);
	// last values 2.5 and 2 → s.d. √((0.25² + 0.25²)/1) = 0.35355. Variant B: {0, 1} (gain 1) and
	// {0, 2} (gain 2); last values 1, 2 → s.d. 0.70711. Spread = (0.35355 + 0.70711)/2 = 0.53033;
	// mean gain (0.5 + 1 + 2)/3 = 1.1667 > spread: still rising (by hand).
	curves := [][][]float64{{{1, 2, 2.5}, {1, 3, 2}}, {{0, 1}, {0, 2}}}
	best := [][]int{{2, 1}, {1, 1}}
	got := EndOfCurves("SumR", curves, best)
	for _, want := range []string{"n = 3", "by +1.17", "largest +2.00", "is 0.53", "still rising"} {
		if !strings.Contains(got, want) {
			t.Errorf("EndOfCurves = %q, missing %q", got, want)
		}
	}
	// Only variant A's first run at its last epoch: gain 0.5 < spread 0.53 → flat.
	if got := EndOfCurves("SumR", curves, [][]int{{2, 1}, {0, 0}}); !strings.Contains(got, "+0.50") || !strings.Contains(got, "flat") {
		t.Errorf("EndOfCurves = %q, want a flat end with gain +0.50", got)
	}
	// A loss, every run keeping its last epoch: changes −0.1 and −0.3 (mean −0.2, largest −0.3);
	// last values 0.9 and 1.2 → s.d. 0.21213 > 0.2: flat. Changes −0.1 and −0.7 (mean −0.4) with
	// last values 0.9 and 1.0 (s.d. 0.07071): still falling (by hand).
	loss := [][][]float64{{{1.5, 1, 0.9}, {2, 1.5, 1.2}}}
	if got := EndOfCurves("loss", loss, [][]int{{2, 2}}); !strings.Contains(got, "by -0.20") || !strings.Contains(got, "largest -0.30") || !strings.Contains(got, "flat") {
		t.Errorf("EndOfCurves(loss) = %q, want mean change −0.20, largest −0.30, flat", got)
	}
	loss = [][][]float64{{{1.5, 1, 0.9}, {2, 1.7, 1.0}}}
	if got := EndOfCurves("loss", loss, [][]int{{2, 2}}); !strings.Contains(got, "by -0.40") || !strings.Contains(got, "still falling") {
		t.Errorf("EndOfCurves(loss) = %q, want mean change −0.40, still falling", got)
	}
	// A spread below 0.1 gets the decimals for two significant digits: s.d. of 0.901, 0.904 = 0.0021.
	loss = [][][]float64{{{1.5, 0.91, 0.901}, {2, 0.905, 0.904}}}
	if got := EndOfCurves("loss", loss, [][]int{{2, 2}}); !strings.Contains(got, "by -0.0050") || !strings.Contains(got, "is 0.0021") {
		t.Errorf("EndOfCurves(loss) = %q, want 4 decimals (mean change −0.0050, s.d. 0.0021)", got)
	}
	// One seed: no spread; the decimals come from the change itself (−0.0031).
	if got := EndOfCurves("loss", [][][]float64{{{1, 0.9031, 0.9}}}, [][]int{{2}}); !strings.Contains(got, "by -0.0031") || !strings.Contains(got, "no spread") {
		t.Errorf("EndOfCurves(one seed) = %q, want the change −0.0031 and no spread", got)
	}
	if got := EndOfCurves("SumR", curves, [][]int{{1, 1}, {0, 0}}); got != "" {
		t.Errorf("no run at its last epoch: %q, want empty", got)
	}
}

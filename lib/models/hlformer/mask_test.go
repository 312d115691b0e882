package hlformer

import (
	"math"
	"testing"
)

// The code's mask for L = 4, width 2 written out by hand: σ = 2/9, centres 0, 1/4, 1/2, 3/4, columns
// 0, 1/3, 2/3, 1, each row divided by its largest entry.
func TestGaussianMaskCodeByHand(t *testing.T) {
	sigma := 2.0 / 9
	centres := []float64{0, 0.25, 0.5, 0.75}
	cols := []float64{0, 1.0 / 3, 2.0 / 3, 1}
	got := GaussianMask(4, 2, MaskCode)
	for i, c := range centres {
		var raw []float64
		best := 0.0
		for _, p := range cols {
			// The normal density with its 1/(σ√2π) factor; the factor cancels in the row ratio.
			v := 0.3989422804014327 / sigma * math.Exp(-(p-c)*(p-c)/(2*sigma*sigma))
			raw = append(raw, v)
			best = math.Max(best, v)
		}
		for j := range raw {
			if want := raw[j] / best; math.Abs(got[i][j]-want) > 1e-15 {
				t.Fatalf("M[%d][%d] = %.17g, want %.17g", i, j, got[i][j], want)
			}
		}
	}
	// Row 1: centre 1/4 lies between columns 0 and 1/3, nearer 1/3, which is the row's 1.
	if got[1][1] != 1 || got[1][0] >= 1 {
		t.Fatalf("row 1 = %v: its maximum should be at column 1", got[1])
	}
	if GaussianMask(7, 0, MaskCode) != nil {
		t.Fatal("width 0 (wid = None) must give no mask")
	}
}

// A tiny width is clamped to MaskMinWidth: the mask of width 1e-6 equals the mask of width 0.01.
func TestGaussianMaskMinWidth(t *testing.T) {
	a, b := GaussianMask(5, 1e-6, MaskCode), GaussianMask(5, MaskMinWidth, MaskCode)
	for i := range a {
		for j := range a[i] {
			if a[i][j] != b[i][j] || math.IsNaN(a[i][j]) {
				t.Fatalf("clamp: %v vs %v", a, b)
			}
		}
	}
}

func TestGaussianMaskPaper(t *testing.T) {
	m := GaussianMask(6, 2, MaskPaper)
	for i := range m {
		for j := range m[i] {
			want := math.Exp(-float64((j-i)*(j-i))/4) / (2 * math.Pi)
			if math.Abs(m[i][j]-want) > 1e-16 {
				t.Fatalf("paper M[%d][%d] = %g, want %g", i, j, m[i][j], want)
			}
		}
	}
}

// Where the code's density underflows (width 0.01 on 5 positions: every column ≥ 0.05 = 45σ from the
// centre of row 1), the mask is still the row-normalised Gaussian: 1 at the nearest column.
func TestGaussianMaskNarrowStaysFinite(t *testing.T) {
	m := GaussianMask(5, 0.01, MaskCode)
	for i := range m {
		rowMax := 0.0
		for _, v := range m[i] {
			if math.IsNaN(v) {
				t.Fatalf("NaN in row %d: %v", i, m[i])
			}
			rowMax = math.Max(rowMax, v)
		}
		if rowMax != 1 {
			t.Fatalf("row %d maximum %g, want 1", i, rowMax)
		}
	}
}

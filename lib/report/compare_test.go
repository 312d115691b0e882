package report

import (
	"path/filepath"
	"strings"
	"testing"
)

// Issue 50 item 4: the AVX2 → AVX-512 re-run of the CI-scale tables (the numbers) agrees;
// a deliberately changed cell does not, and is listed.
func TestCellsAgree(t *testing.T) {
	for _, c := range []struct {
		a, b string
		n    int
		want bool
	}{
		{"54.63 ± 6.88", "55.26 ± 7.55", 3, true},  // HLFormer Euclidean-only SumR, AVX2 → AVX-512
		{"0.88 ± 0.67", "0.93 ± 0.67", 3, true},    // its R@1
		{"23.0", "22.9", 0, true},                  // GARE's zero-training floor, v2t R@10
		{"23.0", "22.8", 0, false},                 // two units of the last digit
		{"54.63 ± 6.88", "70.00 ± 6.88", 3, false}, // 15.4 > 2 × 6.88/√3 = 7.9
		{"0.50 ± 0.00", "0.51 ± 0.00", 3, true},    // one unit of the last digit
		{"—", "—", 3, true},
		{"HLFormer", "HLFormer (v2)", 3, false},
		{"12.00", "12.00 ± 0.00", 3, false},
	} {
		if got, why := CellsAgree(c.a, c.b, c.n); got != c.want {
			t.Errorf("CellsAgree(%q, %q, n=%d) = %v (%s), want %v", c.a, c.b, c.n, got, why, c.want)
		}
	}
}

func TestCompareDirs(t *testing.T) {
	committed, rerun := t.TempDir(), t.TempDir()
	mk := func(dir, sumr, floor string) {
		tb := NewTable("T", Provenance{Data: "toy", Kind: Synthetic, Seeds: []int64{0, 1, 2}}, "model", "SumR")
		tb.AddPaperColumn("SumR (paper)", "Table 1")
		tb.AddRow("floor", floor, "—")
		tb.AddRow("HLFormer", sumr, "78.7")
		if err := tb.Save(filepath.Join(dir, "sub", "table1")); err != nil {
			t.Fatal(err)
		}
	}
	mk(committed, "54.63 ± 6.88", "23.0")
	mk(rerun, "55.26 ± 7.55", "22.9")
	res, err := CompareDirs(committed, rerun)
	if err != nil {
		t.Fatal(err)
	}
	if res.Tables != 1 || res.Cells != 4 || len(res.Disagreements) != 0 {
		t.Fatalf("a re-run within noise: %+v", res)
	}
	mk(rerun, "70.26 ± 1.00", "22.9") // a changed cell: 15.6 > 2 × 6.88/√3
	res, err = CompareDirs(committed, rerun)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Disagreements) != 1 || res.Disagreements[0].Row != "HLFormer" || res.Disagreements[0].Column != "SumR" ||
		!strings.Contains(res.Disagreements[0].String(), "70.26") {
		t.Fatalf("a changed cell: %+v", res.Disagreements)
	}
}

package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
)

// Every paper's Table 1 on an empty data cache is a bad-input error naming the cache (no silent
// fallback to synthetic data), and every paper's figures but HLFormer's refuse synthetic data.
func TestPapersFailLoudlyOnMissingData(t *testing.T) {
	empty := t.TempDir()
	for _, p := range reproduce.Papers() {
		e, _ := reproduce.Lookup(p)
		if e.Table1 != nil {
			if _, err := e.Table1(reproduce.Options{DataCache: empty, Out: t.TempDir()}); !data.IsBadInput(err) || !strings.Contains(err.Error(), empty) {
				t.Errorf("%s Table 1 on an empty cache: %v, want a bad-input error naming %s", p, err, empty)
			}
		}
		if e.Figures != nil && p != "hlformer" {
			if err := e.Figures(reproduce.Options{Synthetic: true, Out: t.TempDir()}); !data.IsBadInput(err) {
				t.Errorf("%s figures with --data synthetic: %v, want a bad-input error", p, err)
			}
		}
	}
}

// Issue 50 item 4: `figures --compare DIR` reports a re-run within noise as agreeing (exit 0) and lists
// a deliberately changed cell (exit 1).
func TestFiguresCompare(t *testing.T) {
	committed, rerun := t.TempDir(), t.TempDir()
	save := func(dir, floor, sumr string) {
		tb := report.NewTable("T", report.Provenance{Data: "toy", Kind: report.Synthetic, Seeds: []int64{0, 1, 2}}, "model", "SumR")
		tb.AddRow("floor", floor)
		tb.AddRow("HLFormer", sumr)
		if err := tb.Save(filepath.Join(dir, "tables", "t1")); err != nil {
			t.Fatal(err)
		}
	}
	save(committed, "23.0", "54.63 ± 6.88")
	save(rerun, "22.9", "55.26 ± 7.55") // the AVX2 → AVX-512 re-run of issue 50
	if code, out, errOut := call(runFigures, "--compare", rerun, "--out", committed); code != 0 || !strings.Contains(out, "4 cells compared") {
		t.Fatalf("a re-run within noise: exit %d: %s%s", code, out, errOut)
	}
	save(rerun, "22.9", "75.26 ± 7.55")
	code, out, _ := call(runFigures, "--compare", rerun, "--out", committed)
	if code != 1 || !strings.Contains(out, "HLFormer / SumR") || !strings.Contains(out, "1 disagree") {
		t.Fatalf("a changed cell: exit %d: %s", code, out)
	}
}

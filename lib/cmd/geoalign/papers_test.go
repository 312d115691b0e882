package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/geoalign/geoalign/lib/runcache"
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

// Issue 48 item 4: `figures --status` lists a table written through RunSections by this command as
// current (exit 0, its code keyed by this package), a table without a key as stale (exit 1), and
// refuses a directory without tables (exit 2); claims.json is no table.
func TestFiguresStatus(t *testing.T) {
	t.Setenv(runcache.BackendEnv, "go")
	dir := t.TempDir()
	table := func() *report.Table {
		tb := report.NewTable("T", report.Provenance{Data: "toy", Kind: report.Synthetic, Seeds: []int64{0, 1}}, "model", "SumR")
		return tb.AddRow("a", "1.0 ± 0.1")
	}
	// Written as a study writes its figures (RunSections stamps it): keyed by the package that ran them.
	_, err := reproduce.RunSections(reproduce.Options{}, "p", filepath.Join(dir, "p"), "", []reproduce.NamedSection{
		reproduce.Step("s", func(sec *reproduce.Section) error { sec.Table("t1", table()); return nil }),
	})
	if err != nil {
		t.Fatal(err)
	}
	tb, err := report.LoadTable(filepath.Join(dir, "p", "t1.json"))
	if err != nil {
		t.Fatal(err)
	}
	if c := tb.Provenance.Code; c == nil || len(c.Packages) != 1 || c.Packages[0] != runcache.Module+"/lib/cmd/geoalign" {
		t.Fatalf("RunSections from this command keys %+v, want lib/cmd/geoalign", c)
	}
	tb.Provenance.Commit = "0123456789ab" // a clean commit (this checkout's may be "+dirty")
	if err := tb.Save(filepath.Join(dir, "p", "t1")); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := call(runFigures, "--status", "--out", dir)
	if code != 0 || !strings.Contains(out, "p/t1.{json,md}") || !strings.Contains(out, "1 tables under "+dir+": 1 current, 0 not") {
		t.Fatalf("a fresh table: exit %d: %s%s", code, out, errOut)
	}
	old := table()
	old.Provenance.Commit = tb.Provenance.Commit
	old.Provenance.Backend = tb.Provenance.Backend
	if err := old.Save(filepath.Join(dir, "p", "t0")); err != nil {
		t.Fatal(err)
	}
	code, out, _ = call(runFigures, "--status", "--out", dir)
	if code != 1 || !strings.Contains(out, "p/t0.{json,md}") || !strings.Contains(out, "no key recorded") || !strings.Contains(out, "1 current, 1 not") ||
		!strings.Contains(out, "not current: 1 of 2 tables are not current") {
		t.Fatalf("a table without a key: exit %d: %s", code, out)
	}
	if code, _, errOut := call(runFigures, "--status", "--out", t.TempDir()); code != 2 || !strings.Contains(errOut, "no table") {
		t.Errorf("a directory without tables: exit %d: %s", code, errOut)
	}
	if code, _, _ := call(runFigures, "--status", "--compare", dir, "--out", dir); code != 2 {
		t.Errorf("--status with --compare: exit %d, want 2", code)
	}
	// The Table 1s are keyed by the study package that registered the paper.
	for _, p := range reproduce.Papers() {
		e, _ := reproduce.Lookup(p)
		if !strings.HasPrefix(e.Package(), runcache.Module+"/lib/studies/") {
			t.Errorf("paper %s registered by %q, want a study package", p, e.Package())
		}
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/rundir"
	"github.com/geoalign/geoalign/lib/runner"
	"github.com/geoalign/geoalign/lib/studies/hlformerstudy"
)

// HLFormer's protocol on a researcher's collection (issue 47): `geoalign reproduce --paper hlformer
// --data-root …` writes Table 1 with its floor, the agreement column, curves, claims.json and
// REPORT.md under OUT, one run directory per variant × seed under --runs that `geoalign eval --run`
// opens; bad input exits 2 before training with nothing under OUT, and a second reproduction on a
// locked OUT exits 2 naming the lock.
func TestReproduceHLFormerOnCollection(t *testing.T) {
	backend.SkipOnXLA(t, "trains 3 HLFormer variants for 2 seeds to check the protocol's files and exit codes, which are "+
		"backend-independent and run on the Go backend in every go test; HLFormer trains on XLA in TestTrainEvalHLFormer")
	dir := t.TempDir()
	c := writeToyPRVR(t, filepath.Join(dir, "data"), 24, 8)
	cfg := writeConfig(t, dir, strings.Replace(hlformerTestConfig, `"Training": {`, `"Training": {"Epochs": 1, `, 1))
	out, runs := filepath.Join(dir, "out"), filepath.Join(dir, "runs")
	flags := []string{"--paper", "hlformer", "--data-root", c.Root, "--collection", c.Collection, "--config", cfg, "--seeds", "0,1"}

	// Bad input first: nothing may be left under OUT.
	for name, args := range map[string][]string{
		"missing feature": append(append([]string{}, flags...), "--visual-feature", "nofeature"),
		"width":           append(append([]string{}, flags[:len(flags)-4]...), "--visual-feature", c.Feature, "--config", writeConfig(t, t.TempDir(), `{"Model": {"VideoDim": 7}}`)),
		"batch":           append(append([]string{}, flags[:len(flags)-4]...), "--visual-feature", c.Feature, "--config", writeConfig(t, t.TempDir(), `{"Training": {"BatchVideos": 64}}`)),
	} {
		code, _, errOut := call(runReproduce, append(args, "--out", out)...)
		if code != exitUsage {
			t.Errorf("%s: exit %d, want 2: %s", name, code, errOut)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatalf("%s: %s exists after bad input", name, out)
		}
		t.Logf("%s: %s", name, strings.TrimSpace(errOut))
	}

	args := append(append([]string{}, flags...), "--visual-feature", c.Feature, "--runs", runs, "--paper-data", "charades-sta", "--out", out)
	if code, _, errOut := call(runReproduce, args...); code != exitOK {
		t.Fatalf("reproduce exit %d: %s", code, errOut)
	}
	tab := reproduction(t, out, "hlformer/table1-ci.json",
		"hlformer/table1-ci.md", "hlformer/table1-ci.csv", "hlformer/table1-curves-val-ci.png", "hlformer/claims.json", "REPORT.md")
	// Video features 6-d, tokens 5-d: random ranking is the only floor, then the three variants.
	if len(tab.Rows) != 4 || tab.Rows[0][0] != hlformerstudy.FloorRandomRanking || tab.Columns[len(tab.Columns)-1].Name != hlformerstudy.AgreementColumn ||
		!strings.HasPrefix(tab.Rows[3][len(tab.Columns)-1], "yes") && !strings.HasPrefix(tab.Rows[3][len(tab.Columns)-1], "no") {
		t.Errorf("table 1: columns %v, rows %v", tab.Columns, tab.Rows)
	}
	rep, err := os.ReadFile(filepath.Join(out, "REPORT.md"))
	if err != nil || !strings.Contains(string(rep), "78.7 (HLFormer)") {
		t.Errorf("REPORT.md lacks the paper column: %v\n%s", err, rep)
	}

	// One run directory per variant × seed, each opened by geoalign eval --run.
	dirs, err := filepath.Glob(filepath.Join(runs, "hlformer", "hlformer", "*", runner.ConfigFile))
	if err != nil || len(dirs) != len(hlformerstudy.Table1Variants)*2 {
		t.Fatalf("run directories %v (%v), want %d", dirs, err, len(hlformerstudy.Table1Variants)*2)
	}
	for _, d := range dirs {
		evalJSON(t, filepath.Dir(d))
	}

	lock, err := rundir.Acquire(out)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	if code, _, errOut := call(runReproduce, args...); code != exitUsage || !strings.Contains(errOut, rundir.LockFile) {
		t.Errorf("a second reproduction on a locked OUT: exit %d, %s", code, errOut)
	}
}

// reproduction checks that the files of a reproduction exist under out and returns its table
// (the JSON file table under out).
func reproduction(t *testing.T, out, table string, files ...string) report.Table {
	t.Helper()
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	return readTable(t, filepath.Join(out, table))
}

package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/runner"
)

// A sweep of 2 settings × 2 seeds writes 4 run directories that geoalign eval opens, one of them the
// run `geoalign train` makes of the same configuration and seed (weights and records bit for bit);
// the table has one row per setting; the same sweep again trains nothing.
func TestSweep(t *testing.T) {
	backend.SkipOnXLA(t, "trains GRAM 5 times to check the sweep's run directories and table, which are backend-independent "+
		"and run on the Go backend in every go test; GRAM trains on XLA in TestTrainEvalGRAM")
	dir, data, cfg := toyGRAM(t)
	runs, out := filepath.Join(dir, "runs"), filepath.Join(dir, "out")
	args := []string{"gram", "--data", data, "--config", cfg, "--grid", "Model.Epochs=2; Model.LearningRate=0.01,0.003",
		"--seeds", "3,4", "--runs", runs, "--out", out, "--quiet"}
	if code, _, errOut := call(sweepMain, args...); code != exitOK {
		t.Fatalf("sweep exit %d: %s", code, errOut)
	}
	dirs, _ := filepath.Glob(filepath.Join(runs, "sweep", "gram-*"))
	if len(dirs) != 4 {
		t.Fatalf("%d run directories, want 4: %q", len(dirs), dirs)
	}
	var before []map[string]string
	for _, d := range dirs {
		evalJSON(t, d)
		before = append(before, snapshot(t, d))
	}

	tab, err := report.LoadTable(filepath.Join(out, "sweep.json"))
	if err != nil {
		t.Fatal(err)
	}
	var settings []string
	for _, r := range tab.Rows {
		settings = append(settings, r[0])
		if r[1] != "2" || len(strings.Split(r[6], " ")) != 2 {
			t.Errorf("row %v: want 2 seeds and 2 runs", r)
		}
		if _, err := os.Stat(filepath.Join(out, r[5])); err != nil {
			t.Error(err)
		}
	}
	if want := []string{"Model.Epochs=2, Model.LearningRate=0.01", "Model.Epochs=2, Model.LearningRate=0.003"}; !slices.Equal(settings, want) {
		t.Errorf("settings %q, want %q", settings, want)
	}

	// The first setting's seed 3 is `geoalign train gram --config cfg --epochs 2 --seed 3`.
	first := strings.Split(tab.Rows[0][6], " ")[0]
	if spec, err := readSpec(first); err != nil || !strings.Contains(string(spec.Config), `"Seed": 3,`) {
		t.Fatalf("%s: %v, %v", first, spec, err)
	}
	sameRunDir(t, cliRun(t, "gram", "--data", data, "--config", cfg, "--seed", "3"), first)

	// Again: every run is reused, nothing changes in the run directories.
	if code, _, errOut := call(sweepMain, args...); code != exitOK || !strings.Contains(errOut, "(0 trained or resumed") {
		t.Fatalf("second sweep exit %d: %s", code, errOut)
	}
	for i, d := range dirs {
		sameSnapshot(t, d, before[i], snapshot(t, d))
	}

	// A sweep interrupted in a run's second epoch (its last checkpoint and its curves not yet
	// written) resumes that run, to the same records.
	cps := checkpoints(first)
	want := records(t, first)
	if err := errors.Join(os.Remove(cps[len(cps)-1]), os.Remove(filepath.Join(first, curvesFile))); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := call(sweepMain, args...); code != exitOK || !strings.Contains(errOut, "(1 trained or resumed") {
		t.Fatalf("sweep after an interruption: exit %d: %s", code, errOut)
	}
	if got := records(t, first); !slices.Equal(got, want) {
		t.Errorf("resumed records %q, want %q", got, want)
	}
}

// A grid naming a field the configuration lacks, or a value its field cannot hold, is exit 2
// naming the field, before anything is written; so is missing data, naming the file.
func TestSweepBadGrid(t *testing.T) {
	dir, data, cfg := toyGRAM(t)
	if err := os.Remove(filepath.Join(data, "train.txt")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ grid, want string }{
		{"Model.LearningRate=0.01", "train.txt"},
		{"Model.LearningRat=0.1", "Model.LearningRat"},
		{"Model.Epochs=2,two", "Model.Epochs=two"},
		{"Model.BatchSize.X=1", "Model.BatchSize"},
		{"Model.Epochs", "Model.Epochs"},
		{"Model.LearningRate=0.01;Model.BatchSize=16,-1", "BatchSize"}, // decodes, but no run can have it
	} {
		runs := filepath.Join(dir, "runs")
		code, _, errOut := call(sweepMain, "gram", "--data", data, "--config", cfg, "--grid", c.grid, "--runs", runs, "--out", filepath.Join(dir, "out"))
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("--grid %q: exit %d, %q; want 2 naming %s", c.grid, code, errOut, c.want)
		}
		if _, err := os.Stat(runs); err == nil {
			t.Errorf("--grid %q: %s written", c.grid, runs)
		}
	}
}

// GARE's two stages as commands: stage 1 is a `geoalign train gare` run directory of its own, and
// `geoalign sweep gare --warm-start` starts every grid point from it. Each point's config.json names
// the source (directory and config sha256); a point is `geoalign train --warm-start` of the same
// configuration and seed bit for bit, and not the cold run; resuming with another source, or a
// warm start of a model without one, is exit 2.
func TestSweepWarmStart(t *testing.T) {
	backend.SkipOnXLA(t, "trains GARE 4 times to check the warm start's plumbing bit for bit, which is backend-independent "+
		"and runs on the Go backend in every go test; GARE trains on XLA in TestTrainEvalGARE")
	dir, data := toyTextVideoDir(t, 48, 8, 16)
	cfg := writeConfig(t, dir, gareTestConfig)
	pre := cliRun(t, "gare", "--data", data, "--config", cfg, "--seed", "7")
	from, err := runner.FromDir(pre)
	if err != nil {
		t.Fatal(err)
	}
	runs, out := filepath.Join(dir, "runs"), filepath.Join(dir, "out")
	if code, _, errOut := call(sweepMain, "gare", "--data", data, "--config", cfg, "--warm-start", pre, "--grid", "Model.Epochs=2;Model.LearningRate=0.003,0.001",
		"--seeds", "1", "--runs", runs, "--out", out, "--quiet"); code != exitOK {
		t.Fatalf("sweep exit %d: %s", code, errOut)
	}
	tab, err := report.LoadTable(filepath.Join(out, "sweep.json"))
	if err != nil || len(tab.Rows) != 2 {
		t.Fatalf("sweep table: %v, %v", tab, err)
	}
	var points []string
	for _, r := range tab.Rows {
		points = append(points, r[6])
		spec, err := readSpec(r[6])
		if err != nil || spec.From == nil || *spec.From != *from {
			t.Errorf("%s names the source %+v, want %+v", r[6], spec.From, from)
		}
	}
	warm := cliRun(t, "gare", "--data", data, "--config", cfg, "--seed", "1", "--warm-start", pre)
	sameRunDir(t, warm, points[0])
	cold := cliRun(t, "gare", "--data", data, "--config", cfg, "--seed", "1")
	if slices.Equal(records(t, cold), records(t, warm)) {
		t.Error("the warm-started run has the cold run's records: the warm start did nothing")
	}
	toy := writeToyPRVR(t, filepath.Join(dir, "prvr"), 16, 4)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"gare", "--data", data, "--config", cfg, "--warm-start", cold, "--resume", "--out", warm}, "started from " + pre},
		{[]string{"gare", "--data", data, "--config", cfg, "--warm-start", pre, "--resume", "--out", cold}, "did not start warm"},
		{[]string{"hlformer", "--data-root", toy.Root, "--collection", toy.Collection, "--visual-feature", toy.Feature,
			"--config", writeConfig(t, t.TempDir(), hlformerTestConfig), "--warm-start", pre, "--out", filepath.Join(dir, "x")}, "no warm start"},
	} {
		code, _, errOut := call(trainMain, c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("train %q: exit %d, %q; want 2 naming %q", c.args, code, errOut, c.want)
		}
	}
}

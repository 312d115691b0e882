package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/data/featdir"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/geoalign/geoalign/lib/runner"
)

// readTable reads a table saved as JSON (report.Table.Save).
func readTable(t *testing.T, path string) report.Table {
	t.Helper()
	tab, err := report.LoadTable(path)
	if err != nil {
		t.Fatal(err)
	}
	return *tab
}

// GRAM's and HyperGRAM's protocols on a researcher's tuple directory (issue 47):
// `geoalign reproduce --paper gram --data DIR` writes Table 1 with its floor rows, the agreement
// column, learning curves, claims.json and REPORT.md under OUT, one run directory per variant ×
// seed (and stage) under --runs that `geoalign eval --run` opens; `geoalign figures --sections
// table1,table4-k` reloads Table 1 from those runs (the same cells) and adds the modality-count
// table; HyperGRAM's geometries table runs too. Bad input exits 2 before training with nothing under
// OUT or --runs (the lock on OUT is reproduceCollection's, tested with HLFormer's collection).
func TestReproduceGRAMOnTuples(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	const nTrain, nVal, nTest = 48, 8, 20
	writeToyTuples(t, data, nTrain, nVal, nTest) // text 6-d, image 5-d, audio 3-d: random ranking is the only floor
	cfg := writeConfig(t, dir, strings.Replace(gramTestConfig, `"Model": {`, `"Model": {"Epochs": 2, `, 1))
	out, runs := filepath.Join(dir, "out"), filepath.Join(dir, "runs")

	// Bad input first: exit 2 naming the file and field, nothing under OUT or --runs.
	bad := func(name string, mutate func(d string), config string, want ...string) {
		t.Helper()
		d := filepath.Join(t.TempDir(), "data")
		writeToyTuples(t, d, nTrain, nVal, nTest)
		mutate(d)
		code, _, errOut := call(runReproduce, "--paper", "gram", "--data", d, "--config", config, "--seeds", "0", "--runs", runs, "--out", out)
		if code != exitUsage {
			t.Errorf("%s: exit %d, want 2: %s", name, code, errOut)
		}
		for _, w := range want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: %q does not name %q", name, strings.TrimSpace(errOut), w)
			}
		}
		for _, p := range []string{out, runs} {
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				t.Fatalf("%s: %s exists after bad input", name, p)
			}
		}
		t.Logf("%s: %s", name, strings.TrimSpace(errOut))
	}
	keep := func(string) {}
	bad("missing file", func(d string) { os.Remove(filepath.Join(d, "audio.npy")) }, cfg, "audio")
	bad("row counts", func(d string) {
		// image.npy with one row fewer than ids.txt and the other modalities.
		tu, err := featdir.LoadTuples(d, 0.1)
		if err != nil {
			t.Fatal(err)
		}
		tu.IDs = tu.IDs[:len(tu.IDs)-1]
		tu.Splits.Test = tu.Splits.Test[:len(tu.Splits.Test)-1]
		for m := range tu.Features {
			tu.Features[m] = tu.Features[m][:len(tu.IDs)*tu.Dims[m]]
		}
		short := filepath.Join(t.TempDir(), "short")
		if err := featdir.WriteTuples(short, tu); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(short, "image.npy"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "image.npy"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}, cfg, "image.npy", featdir.IDsFile)
	bad("unknown field", keep, writeConfig(t, t.TempDir(), `{"Model": {"TextDim": 7}}`), "config.json", "TextDim")
	bad("invalid field", keep, writeConfig(t, t.TempDir(), `{"Model": {"LearningRate": -1}}`), "config.json", "learning rate")
	bad("epochs", keep, writeConfig(t, t.TempDir(), `{"Model": {"Epochs": 1, "BatchSize": 16}}`), "config.json", "Model.Epochs = 1")
	bad("batch", keep, writeConfig(t, t.TempDir(), `{"Model": {"BatchSize": 64}}`), featdir.TrainFile, "Model.BatchSize = 64")

	args := []string{"--paper", "gram", "--data", data, "--config", cfg, "--seeds", "0,1", "--runs", runs, "--paper-data", "msr-vtt", "--out", out}
	if code, _, errOut := call(runReproduce, args...); code != exitOK {
		t.Fatalf("reproduce exit %d: %s", code, errOut)
	}
	for _, f := range []string{"gram/table1-ci.md", "gram/table1-ci.csv", "gram/table1-learning-curves-ci.png", "gram/claims.json", "REPORT.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	tab := readTable(t, filepath.Join(out, "gram", "table1-ci.json"))
	last := len(tab.Columns) - 1
	// Random ranking of 20 test tuples, one relevant each: R@1 = 100/20, R@10 = 100·10/20.
	if len(tab.Rows) != 4 || tab.Rows[0][1] != "floor: random ranking" || tab.Rows[0][2] != "5.0" || tab.Rows[0][3] != "50.0" ||
		tab.Columns[last].Name != reproduce.AgreementColumn("T→V+A R@1") {
		t.Errorf("table 1: columns %v, rows %v", tab.Columns, tab.Rows)
	}
	if c := tab.Rows[3][last]; !strings.HasPrefix(c, "yes") && !strings.HasPrefix(c, "no") { // GRAM (cosine → volume) has a paper number
		t.Errorf("agreement of %q: %q", tab.Rows[3][1], c)
	}
	notes := strings.Join(tab.Provenance.Notes, "\n")
	for _, w := range []string{"random ranking only", "instance-level", "not standardised", "Base configuration of every variant: --config " + cfg} {
		if !strings.Contains(notes, w) {
			t.Errorf("table 1 notes lack %q:\n%s", w, notes)
		}
	}
	rep, err := os.ReadFile(filepath.Join(out, "REPORT.md"))
	if err != nil || !strings.Contains(string(rep), "54.2") {
		t.Errorf("REPORT.md lacks the paper column: %v\n%s", err, rep)
	}

	// One run directory per variant × seed and stage (GRAM's recipe: a warm stage and the run),
	// each opened by geoalign eval --run on the tuple directory.
	var configs []string
	err = filepath.WalkDir(runs, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.Name() == runner.ConfigFile {
			configs = append(configs, p)
		}
		return err
	})
	if err != nil || len(configs) != 2*(3+1) {
		t.Fatalf("run directories %v (%v), want %d", configs, err, 2*(3+1))
	}
	for _, c := range configs {
		evalJSON(t, filepath.Dir(c))
	}

	// figures: Table 1 reloaded from the runs (the same cells), and the modality-count table.
	out2 := filepath.Join(dir, "out2")
	fig := append(append([]string{}, args[:len(args)-1]...), out2, "--sections", "table1,table4-k")
	if code, _, errOut := call(runFigures, fig...); code != exitOK {
		t.Fatalf("figures exit %d: %s", code, errOut)
	}
	again := readTable(t, filepath.Join(out2, "gram", "table1-ci.json"))
	if fmt.Sprint(again.Rows) != fmt.Sprint(tab.Rows) {
		t.Errorf("Table 1 from the run cache differs:\n%v\n%v", again.Rows, tab.Rows)
	}
	k := readTable(t, filepath.Join(out2, "gram", "table4-k-modalities-ci.json"))
	if len(k.Rows) != 2 || k.Rows[1][1] != "text + image + audio" {
		t.Errorf("modality-count table: rows %v", k.Rows)
	}
	if code, _, errOut := call(runFigures, append(fig[:len(fig)-1], "fig3")...); code != exitUsage {
		t.Errorf("figures --sections fig3 on a tuple directory: exit %d: %s", code, errOut)
	}

	// HyperGRAM's main comparison: the floor, then GRAM, pure hyperbolic, fixed α, HyperGRAM, ensemble.
	out3 := filepath.Join(dir, "out3")
	if code, _, errOut := call(runReproduce, "--paper", "hypergram", "--data", data, "--config", cfg, "--seeds", "0,1", "--runs", runs, "--out", out3); code != exitOK {
		t.Fatalf("reproduce hypergram exit %d: %s", code, errOut)
	}
	geo := readTable(t, filepath.Join(out3, "hypergram", "geometries-ci.json"))
	if len(geo.Rows) != 6 || geo.Rows[0][1] != "floor: random ranking" || geo.Rows[4][1] != "HyperGRAM" || !strings.HasPrefix(geo.Rows[5][1], "ensemble") {
		t.Errorf("geometries: rows %v", geo.Rows)
	}
}

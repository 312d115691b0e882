package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/studies/garestudy"
)

// GARE's protocol on a researcher's feature directory (issue 47): `geoalign reproduce --paper gare
// --data DIR` writes Table 1 with its floor (random ranking: the toy's text and video widths
// differ), the agreement column, learning curves, claims.json and REPORT.md under OUT; bad input
// (a missing feature file, a caption of an unknown video, a width other than --config's, too few
// pairs for a batch) exits 2 before any training, naming the file and the field, with nothing under
// OUT or --runs.
func TestReproduceGAREOnFeatureDir(t *testing.T) {
	backend.SkipOnXLA(t, "trains GARE's 2 variants for 2 seeds (and stage 1 twice) to check the protocol's files and exit codes, which are "+
		"backend-independent and run on the Go backend in every go test; GARE trains on XLA in TestTrainEvalGARE")
	dir, data := toyTextVideoDir(t, 40, 0, 16)
	cfg := writeConfig(t, dir, strings.Replace(gareTestConfig, `"Model": {`, `"Model": {"Epochs": 1, `, 1))
	out, runs := filepath.Join(dir, "out"), filepath.Join(dir, "runs")
	flags := []string{"--paper", "gare", "--seeds", "0,1", "--runs", runs, "--out", out}

	copyDir := func(edit func(d string)) string {
		d := filepath.Join(t.TempDir(), "data")
		writeToyTextVideo(t, d, 40, 0, 16)
		edit(d)
		return d
	}
	for name, c := range map[string]struct {
		data, config string
		want         []string
	}{
		"missing feature file": {copyDir(func(d string) { os.Remove(filepath.Join(d, "video.npy")) }), cfg, []string{"video"}},
		"mismatched ids": {copyDir(func(d string) {
			f, _ := os.OpenFile(filepath.Join(d, "captions.txt"), os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString("ghost#enc#0 a caption of no video\n")
			f.Close()
		}), cfg, []string{"captions.txt", "ghost"}},
		"width":     {data, writeConfig(t, t.TempDir(), `{"Model": {"TextInputDim": 7}}`), []string{"config.json", "Model.TextInputDim"}},
		"too few":   {data, writeConfig(t, t.TempDir(), `{"Model": {"Batch": 512}}`), []string{"train.txt", "Model.Batch"}},
		"no config": {data, filepath.Join(dir, "nope.json"), []string{"nope.json"}},
	} {
		code, _, errOut := call(runReproduce, append([]string{"--data", c.data, "--config", c.config}, flags...)...)
		if code != exitUsage {
			t.Errorf("%s: exit %d, want 2: %s", name, code, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: %q does not name %q", name, errOut, w)
			}
		}
		for _, d := range []string{out, runs} {
			if _, err := os.Stat(d); !os.IsNotExist(err) {
				t.Fatalf("%s: %s exists after bad input", name, d)
			}
		}
	}

	args := append([]string{"--data", data, "--config", cfg, "--paper-data", garestudy.PaperMSRVTT}, flags...)
	if code, _, errOut := call(runReproduce, args...); code != exitOK {
		t.Fatalf("reproduce exit %d: %s", code, errOut)
	}
	tab := reproduction(t, out, "gare/table1.json", "gare/table1.md", "gare/table1.csv", "gare/table1-curves-val.png", "gare/claims.json", "REPORT.md")
	// Baseline and GARE, then the floor; the paper's columns, then the agreement column.
	last := len(tab.Columns) - 1
	if len(tab.Rows) != 3 || tab.Rows[2][0] != garestudy.FloorRandom || !strings.HasPrefix(tab.Columns[last].Name, "agrees with the paper") ||
		!strings.HasPrefix(tab.Rows[1][last], "yes") && !strings.HasPrefix(tab.Rows[1][last], "no") || tab.Rows[0][last-2] != "46.6" {
		t.Errorf("table 1: columns %v, rows %v", tab.Columns, tab.Rows)
	}
	if !strings.Contains(tab.Provenance.Data, data) {
		t.Errorf("table 1's data %q does not name %s", tab.Provenance.Data, data)
	}
	rep, err := os.ReadFile(filepath.Join(out, "REPORT.md"))
	if err != nil || !strings.Contains(string(rep), "GARE beats the baseline text→video") {
		t.Errorf("REPORT.md lacks Table 1's claims: %v\n%s", err, rep)
	}
	if dirs, err := filepath.Glob(filepath.Join(runs, "gare-small", "*", "*", "stage2")); err != nil || len(dirs) != 4 {
		t.Errorf("stage-2 run directories %v (%v), want one per variant × seed", dirs, err)
	}
}

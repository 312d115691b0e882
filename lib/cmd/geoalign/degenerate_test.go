package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/train"
)

// Finding 8: features scaled by 1e30 train to a model no better than random; train ends with
// exit 0 and a warning that stderr, config.json's notes and history.json's last record carry. A
// learnable run has none.
func TestDegenerateRunWarns(t *testing.T) {
	dir, data, cfg := toyGRAM(t)
	good := filepath.Join(dir, "good")
	// 4 epochs: from the initial weights of lib/seedrand, 3 epochs of 2 steps tie the random ranking
	// of the 8 validation items (SumR 175.00 = its mean); a fourth learns.
	code, _, errOut := call(trainMain, "gram", "--data", data, "--config", cfg, "--epochs", "4", "--quiet", "--out", good)
	if code != 0 || strings.Contains(errOut, "warning") {
		t.Fatalf("learnable data: exit %d: %s", code, errOut)
	}
	for _, m := range []string{"text", "image", "audio"} {
		rewriteMatrix(t, filepath.Join(data, m+".npy"), func(x []float32, _ int) []float32 {
			for i := range x {
				x[i] *= 1e30
			}
			return x
		})
	}
	bad := filepath.Join(dir, "bad")
	noDAM := writeConfig(t, t.TempDir(), strings.Replace(gramTestConfig, `"Model": {`, `"Model": {"DAM": false, `, 1)) // DAM's head is NaN at this scale
	code, _, errOut = call(trainMain, "gram", "--data", data, "--config", noDAM, "--epochs", "2", "--quiet", "--out", bad)
	if code != 0 || !strings.Contains(errOut, "warning: validation t2v_sumr never beat random ranking") {
		t.Fatalf("features × 1e30: exit %d, stderr %q: want exit 0 and the warning", code, errOut)
	}
	spec, err := readSpec(bad)
	if err != nil {
		t.Fatal(err)
	}
	if n := spec.Notes; len(n) == 0 || !strings.Contains(n[len(n)-1], "never beat random ranking") {
		t.Errorf("config.json notes %q lack the warning", n)
	}
	b, _ := os.ReadFile(filepath.Join(bad, train.HistoryFile))
	if !strings.Contains(string(b), `"warning": "validation t2v_sumr never beat random ranking`) {
		t.Errorf("history.json lacks the warning:\n%s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(good, train.HistoryFile)); strings.Contains(string(b), "warning") {
		t.Errorf("a learnable run's history.json has a warning")
	}
	// The record is unchanged by the note: eval checks it.
	if code, _, errOut := call(evalMain, "--run", bad, "--json"); code != 0 {
		t.Errorf("eval of the warned run: exit %d: %s", code, errOut)
	}
}

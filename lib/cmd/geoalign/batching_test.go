package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
)

// Issue 31, finding 10: HLFormer's default training configuration (batches of 128 videos, queries
// rounded to 32) trains on a split of 96 training videos — one batch, smaller than 128, as the
// official code's DataLoader trains it (drop_last=False) — and says so in the run's notes;
// Training.DropPartialBatch (static shapes) refuses it as before. The model is the tests' small one
// (GEOALIGN_TEST_PAPER_HLFORMER=1: the paper-sized default, about 4 minutes on 2 shared cores).
func TestHLFormerSmallSplitTrains(t *testing.T) {
	backend.SkipOnXLA(t, "trains HLFormer to check the run's notes on a partial batch (command-line logic, backend-independent, "+
		"on the Go backend in every go test); HLFormer trains on XLA in TestTrainEvalHLFormer and TestTrainOnTwoDevicesEqualsOne")
	dir := t.TempDir()
	toy := writeToyPRVR(t, filepath.Join(dir, "data"), 107, 8) // 107 − 11 carved for validation = 96
	args := []string{"hlformer", "--data-root", toy.Root, "--collection", toy.Collection, "--visual-feature", toy.Feature, "--epochs", "1", "--quiet"}
	if os.Getenv("GEOALIGN_TEST_PAPER_HLFORMER") != "1" {
		model, _, _ := strings.Cut(hlformerTestConfig, `"Training"`)
		args = append(args, "--config", writeConfig(t, t.TempDir(), strings.TrimRight(model, " \n,")+"}"))
	}
	run := filepath.Join(dir, "run")
	code, _, errOut := call(trainMain, append(args, "--out", run)...)
	if code != 0 {
		t.Fatalf("default configuration on 96 videos: exit %d: %s", code, errOut)
	}
	spec, err := readSpec(run)
	if err != nil {
		t.Fatal(err)
	}
	if notes := strings.Join(spec.Notes, "\n"); !strings.Contains(notes, "96 videos make one batch, smaller than Training.BatchVideos = 128") {
		t.Errorf("notes do not record the batch:\n%s", notes)
	}
	if h := history(t, run); len(h) != 1 || h[0].Epoch != 1 || h[0].Loss != h[0].Loss {
		t.Errorf("history %+v: want one epoch with a finite loss", h)
	}
	code, stdout, stderr := call(trainMain, append(args, "--config", writeConfig(t, dir, `{"Training": {"DropPartialBatch": true}}`),
		"--out", filepath.Join(dir, "static"))...)
	checkBad(t, code, stdout, stderr, []string{"fewer than one batch of Training.BatchVideos = 128", "DropPartialBatch"})
}

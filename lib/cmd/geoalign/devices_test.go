package main

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
)

// TestTrainOnTwoDevicesEqualsOne: `geoalign train <model> --devices 2` (data-parallel through XLA,
// train.Step.Distribute) gives the loss curve of `--devices 1` at the same global batch, for HLFormer
// and GARE without dropout (a partitioned program draws its random masks in another layout), within
// float32 rounding of sums taken in another order. It needs ≥ 2 devices: make test-xla runs it on
// the XLA CPU plugin; on the Go backend `--devices 2` is a usage error (exit 2).
func TestTrainOnTwoDevicesEqualsOne(t *testing.T) {
	b := backend.MustNew()
	if b.NumDevices() < 2 {
		dir := t.TempDir()
		code, _, errOut := call(trainMain, "gare", "--data", dir, "--devices", "2", "--out", filepath.Join(dir, "run"))
		if code != exitUsage {
			t.Fatalf("--devices 2 on a %d-device backend: exit %d, want %d (%s)", b.NumDevices(), code, exitUsage, errOut)
		}
		t.Skipf("backend %s has %d device: the 2-device comparison runs under make test-xla (%s)", b.Name(), b.NumDevices(), errOut)
	}
	// tol: float32 losses summed in another order through a few epochs of Adam (relative).
	const tol = 1e-4
	dir := t.TempDir()
	prvrData := writeToyPRVR(t, filepath.Join(dir, "prvr"), 64, 16)
	tvData := filepath.Join(dir, "tv")
	writeToyTextVideo(t, tvData, 96, 16, 24)
	// HLFormer's 1-device run trains the single-graph step too ("VideoChunk": -1), the step that
	// --devices 2 partitions (both steps draw the same weights, masks and negatives, lib/seedrand; the
	// single graph keeps this test to one step layout).
	// One batch shape (the partial last batch dropped): XLA compiles the single graph (~33k HLO
	// instructions, ~850 LLVM kernels on the CPU plugin; minutes on a loaded CPU, about as long on
	// 1 device as on 2) once per batch shape, and the shuffled partial batch doubled it.
	hlCfg := writeConfig(t, t.TempDir(), strings.Replace(hlformerTestConfig, `"Training": {`, `"Training": {"DropPartialBatch": true, "VideoChunk": -1, `, 1))
	gareCfg := writeConfig(t, t.TempDir(), `{"Model": {"Dim": 16, "TemporalLayers": 1, "TemporalHeads": 2, "Batch": 16, "LearningRate": 0.003, "PsiDropout": 0},
 "Training": {"Patience": 0}}`)
	for _, m := range []struct {
		name string
		args []string
	}{
		{"hlformer", []string{"--data-root", prvrData.Root, "--collection", prvrData.Collection, "--visual-feature", prvrData.Feature, "--config", hlCfg}},
		{"gare", []string{"--data", tvData, "--config", gareCfg}},
	} {
		t.Run(m.name, func(t *testing.T) {
			losses := map[int][]float64{}
			for _, n := range []int{1, 2} {
				run := filepath.Join(dir, m.name+"-"+strconv.Itoa(n))
				args := append([]string{m.name}, m.args...)
				args = append(args, "--epochs", "2", "--devices", strconv.Itoa(n), "--quiet", "--out", run)
				if code, _, errOut := call(trainMain, args...); code != 0 {
					t.Fatalf("--devices %d: exit %d: %s", n, code, errOut)
				}
				h, err := readHistory(run)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range h {
					losses[n] = append(losses[n], r.Loss)
				}
			}
			if len(losses[1]) == 0 || len(losses[1]) != len(losses[2]) {
				t.Fatalf("records: %d on 1 device, %d on 2", len(losses[1]), len(losses[2]))
			}
			worst := 0.0
			for i := range losses[1] {
				d := math.Abs(losses[1][i]-losses[2][i]) / math.Max(1e-12, math.Abs(losses[1][i]))
				worst = max(worst, d)
				if !(d <= tol) {
					t.Errorf("epoch %d: loss %.9g on 1 device, %.9g on 2", i+1, losses[1][i], losses[2][i])
				}
			}
			t.Logf("losses on 1 device %v, on 2 %v: max relative difference %.2g", losses[1], losses[2], worst)
		})
	}
}

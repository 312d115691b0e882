package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/rundir"
	"github.com/geoalign/geoalign/lib/train"
)

// history reads RUNDIR/history.json.
func history(t *testing.T, run string) []historyRecord {
	t.Helper()
	h, err := readHistory(run)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// sameRun checks that two runs recorded the same losses and validation metrics at every epoch
// (bit for bit) and that eval prints the same test metrics.
func sameRun(t *testing.T, a, b string) {
	t.Helper()
	ha, hb := history(t, a), history(t, b)
	if len(ha) != len(hb) {
		t.Fatalf("%d epochs vs %d", len(ha), len(hb))
	}
	for i := range ha {
		ja, _ := json.Marshal(ha[i].Val)
		jb, _ := json.Marshal(hb[i].Val)
		if ha[i].Loss != hb[i].Loss || string(ja) != string(jb) || ha[i].Best != hb[i].Best {
			t.Errorf("epoch %d: loss %v val %s, resumed: loss %v val %s", i+1, ha[i].Loss, ja, hb[i].Loss, jb)
		}
	}
	_, ea := evalJSON(t, a)
	_, eb := evalJSON(t, b)
	if ea != eb {
		t.Errorf("test metrics differ:\n%s\n%s", ea, eb)
	}
}

// checkpoints lists the complete checkpoints of a run directory, oldest first.
func checkpoints(run string) []string {
	names, _ := filepath.Glob(filepath.Join(run, "checkpoint-n*.json"))
	slices.Sort(names)
	return names
}

// copyRun copies a run directory (to interrupt a copy of a finished run).
func copyRun(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

// Interrupting after an epoch and resuming ends exactly as the uninterrupted run: the checkpoint
// holds the weights, the optimizer moments, the step counter and the RNG state (dropout), and the
// batches come from (seed, epoch). The interruption is simulated by removing the last checkpoint
// of a finished run; the kill -9 test below does it for real.
func TestResumeEqualsUninterrupted(t *testing.T) {
	dir := t.TempDir()
	gareData := filepath.Join(dir, "gare")
	writeToyTextVideo(t, gareData, 48, 8, 16)
	prvrData := writeToyPRVR(t, filepath.Join(dir, "prvr"), 32, 8)
	for _, c := range []struct {
		model string
		args  []string
	}{
		{"gare", []string{"--data", gareData, "--config", writeConfig(t, dir, gareTestConfig), "--epochs", "3"}},
		{"hlformer", []string{"--data-root", prvrData.Root, "--collection", prvrData.Collection, "--visual-feature", prvrData.Feature,
			"--config", writeConfig(t, t.TempDir(), strings.Replace(hlformerTestConfig, `"Dropout": 0, "InputDropout": 0`, `"Dropout": 0.2, "InputDropout": 0.2`, 1)),
			"--epochs", "3"}},
	} {
		t.Run(c.model, func(t *testing.T) {
			if c.model == "hlformer" {
				backend.SkipOnXLA(t, "3 epochs of HLFormer twice (minutes of XLA compiling); resuming is checked on XLA with GARE "+
					"(its ψ dropout draws from the checkpointed RNG state), and for HLFormer on the Go backend")
			}
			full := filepath.Join(dir, c.model+"-full")
			mustTrain(t, append([]string{c.model, "--quiet", "--out", full}, c.args...)...)
			cut := filepath.Join(dir, c.model+"-cut")
			copyRun(t, full, cut)
			cps := checkpoints(cut)
			if len(cps) < 2 {
				t.Fatalf("checkpoints %v: want the last two", cps)
			}
			newest := strings.TrimSuffix(cps[len(cps)-1], ".json")
			for _, suffix := range []string{".json", ".bin"} {
				if err := os.Remove(newest + suffix); err != nil {
					t.Fatal(err)
				}
			}
			// --resume takes its configuration from config.json: the data and config flags may be left out.
			code, _, errOut := call(trainMain, c.model, "--out", cut, "--resume", "--epochs", "3")
			if code != 0 {
				t.Fatalf("resume exit %d: %s", code, errOut)
			}
			sameRun(t, full, cut)
		})
	}
}

// kill -9 during `geoalign train`, then --resume: the final metrics equal an uninterrupted run's.
// The command runs as a separate process (this test binary as geoalign, see TestMain); it is
// killed once just after its second checkpoint appears (mid-epoch), and once more as soon as it
// writes into its staging directory (mid-save, when the timing allows).
func TestKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("trains three runs in subprocesses")
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	writeToyTuples(t, data, 384, 16, 20)
	cfg := writeConfig(t, dir, gramTestConfig)
	args := func(out string) []string {
		return []string{"train", "gram", "--data", data, "--config", cfg, "--epochs", "8", "--quiet", "--out", out}
	}
	full := filepath.Join(dir, "full")
	mustTrain(t, args(full)[1:]...)

	killed := filepath.Join(dir, "killed")
	staging := filepath.Join(killed, train.StagingDir)
	killWhen(t, killed, args(killed), func() bool {
		h, _ := readHistory(killed)
		return len(h) >= 2
	})
	checkOnlyResumable(t, killed, false)
	killWhen(t, killed, append(args(killed), "--resume"), func() bool {
		entries, _ := os.ReadDir(staging)
		return len(entries) > 0
	})
	checkOnlyResumable(t, killed, false)
	if code, _, errOut := call(trainMain, append(args(killed)[1:], "--resume")...); code != 0 {
		t.Fatalf("resume exit %d: %s", code, errOut)
	}
	checkOnlyResumable(t, killed, true)
	sameRun(t, full, killed)
}

// killWhen starts geoalign with args (training into run) and sends it SIGKILL as soon as cond
// holds (polled every millisecond), or lets it finish.
func killWhen(t *testing.T, run string, args []string, cond func() bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "GEOALIGN_TEST_MAIN=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case err := <-done:
			t.Logf("geoalign %s ended before the kill (%v): %s", strings.Join(args[:2], " "), err, stderr.String())
			return
		default:
		}
		if cond() {
			cmd.Process.Signal(syscall.SIGKILL)
			err := <-done
			t.Logf("killed with %d checkpoints (%v)", len(checkpoints(run)), err)
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// checkOnlyResumable checks that a killed run holds nothing but what --resume continues from:
// config.json, complete checkpoints (lib/train's, with best/), the derived history files, and at
// most a staging directory and temporary files of interrupted atomic writes (both cleared on
// resume; finished says none may be left).
func checkOnlyResumable(t *testing.T, run string, finished bool) {
	t.Helper()
	entries, _ := os.ReadDir(run)
	for _, e := range entries {
		switch name := e.Name(); {
		case name == configFile, name == train.HistoryFile, name == train.PlotFile, name == train.BestDir:
		case name == curvesFile && finished:
		case strings.HasPrefix(name, "checkpoint-n") && (strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".bin")):
		case name == train.StagingDir:
			if sub, _ := os.ReadDir(filepath.Join(run, name)); finished && len(sub) > 0 {
				t.Errorf("staging directory left non-empty: %v", sub)
			}
		case name == rundir.LockFile, !finished && rundir.Own(name):
		default:
			t.Errorf("%s: unexpected entry %s", run, name)
		}
	}
	for _, cp := range checkpoints(run) {
		if _, err := os.Stat(strings.TrimSuffix(cp, ".json") + ".bin"); err != nil {
			t.Errorf("checkpoint %s without its data: %v", cp, err)
		}
	}
}

package main

import (
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/rundir"
	"github.com/geoalign/geoalign/lib/train"
)

// snapshot maps every file under dir (but the lock file, whose content is the holder's PID) to
// its content: what "nothing of the run directory changes" compares.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		b, _ := os.ReadFile(p)
		out[rel] = string(b)
		return nil
	})
	return out
}

func sameSnapshot(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for k, v := range before {
		if a, ok := after[k]; !ok || a != v {
			t.Errorf("%s: %s changed or removed", what, k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			t.Errorf("%s: %s appeared", what, k)
		}
	}
}

// smallGRAMRun trains a small GRAM run and returns its directory, data and command line (without --out).
func smallGRAMRun(t *testing.T, epochs int) (run, data string, args []string) {
	t.Helper()
	dir := t.TempDir()
	data = filepath.Join(dir, "data")
	writeToyTuples(t, data, 32, 8, 8)
	// The configuration file sets 30 epochs; --epochs overrides it (issue 31, finding 1).
	cfg := writeConfig(t, dir, strings.Replace(gramTestConfig, `"BatchSize"`, `"Epochs": 30, "BatchSize"`, 1))
	args = []string{"gram", "--data", data, "--config", cfg, "--epochs", strconv.Itoa(epochs), "--quiet"}
	run = filepath.Join(dir, "run")
	mustTrain(t, append(args, "--out", run)...)
	return run, data, args
}

// Finding 1: the command line that started a run, with --resume added, continues it — flags such as
// --epochs are applied before the comparison; a flag that changes the configuration is refused
// naming the field. Finding 7: a finished run holds no staging directory.
func TestResumeSameCommandLine(t *testing.T) {
	run, _, args := smallGRAMRun(t, 2)
	if _, err := os.Stat(filepath.Join(run, train.StagingDir)); !os.IsNotExist(err) {
		t.Errorf("a finished run keeps %s (%v)", train.StagingDir, err)
	}
	// Interrupted after its first epoch: the newest checkpoint removed (the kill -9 test does it for real).
	cps := checkpoints(run)
	for _, suffix := range []string{".json", ".bin"} {
		os.Remove(strings.TrimSuffix(cps[len(cps)-1], ".json") + suffix)
	}
	mine := filepath.Join(run, ".notes.tmpl") // a researcher's file that looks temporary
	os.WriteFile(mine, []byte("mine"), 0o644)
	code, _, errOut := call(trainMain, append(args, "--out", run, "--resume")...)
	if code != 0 {
		t.Fatalf("the same command line with --resume: exit %d: %s", code, errOut)
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "mine" {
		t.Errorf("--resume removed or changed %s: %v", mine, err)
	}
	os.Remove(mine)
	if h := history(t, run); len(h) != 2 {
		t.Errorf("resumed run has %d epochs, want 2", len(h))
	}
	if _, err := os.Stat(filepath.Join(run, train.StagingDir)); !os.IsNotExist(err) {
		t.Errorf("a resumed, finished run keeps %s (%v)", train.StagingDir, err)
	}
	before := snapshot(t, run)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--epochs", "3"}, "Model.Epochs: 2 → 3"},
		{[]string{"--seed", "7"}, " → 7"},
	} {
		a := append(slices.Clone(args), c.args...)
		code, stdout, stderr := call(trainMain, append(a, "--out", run, "--resume")...)
		checkBad(t, code, stdout, stderr, []string{c.want, filepath.Join(run, configFile)})
	}
	sameSnapshot(t, "a refused resume", before, snapshot(t, run))
}

// Finding 7: a run killed before its config.json was complete holds only housekeeping; --resume
// (and a new start) begin it.
func TestResumeBeforeConfig(t *testing.T) {
	dir, data, cfg := toyGRAM(t)
	run := filepath.Join(dir, "run")
	os.MkdirAll(run, 0o755)
	os.WriteFile(filepath.Join(run, rundir.LockFile), []byte("12345\n"), 0o644)
	os.WriteFile(filepath.Join(run, atomicfile.TempPrefix+configFile+".123456"), []byte(`{"model": "gr`), 0o644)
	code, _, errOut := call(trainMain, "gram", "--data", data, "--config", cfg, "--epochs", "1", "--quiet", "--out", run, "--resume")
	if code != 0 {
		t.Fatalf("--resume of a run killed before config.json: exit %d: %s", code, errOut)
	}
	checkOnlyResumable(t, run, true)
}

// Finding 2 and acceptance 2: a second process on a run directory exits 2 naming the first's PID
// and changes nothing — train (with or without --resume) and eval, in process (locks are per open
// file) and from a second process.
func TestRunDirLock(t *testing.T) {
	run, _, args := smallGRAMRun(t, 1)
	lock, err := rundir.Acquire(run)
	if err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, run)
	pid := "process " + strconv.Itoa(os.Getpid())
	for _, c := range []struct {
		name string
		main func([]string, io.Writer, io.Writer) int
		args []string
	}{
		{"train --resume", trainMain, append(slices.Clone(args), "--out", run, "--resume")},
		{"train", trainMain, append(slices.Clone(args), "--out", run)},
		{"eval", evalMain, []string{"--run", run}},
	} {
		code, stdout, stderr := call(c.main, c.args...)
		checkBad(t, code, stdout, stderr, []string{pid, run, "in use"})
	}
	sameSnapshot(t, "a refused command", before, snapshot(t, run))
	lock.Release()

	// Two processes: a training started in a subprocess, the same command line here.
	if testing.Short() {
		return
	}
	other := filepath.Join(t.TempDir(), "run")
	long := append(slices.Clone(args), "--epochs", "200", "--out", other)
	cmd := exec.Command(os.Args[0], append([]string{"train"}, long...)...)
	cmd.Env = append(os.Environ(), "GEOALIGN_TEST_MAIN=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		if len(checkpoints(other)) > 0 {
			break
		}
		if time.Since(start) > 2*time.Minute {
			t.Fatal("the first training wrote no checkpoint")
		}
	}
	for _, extra := range [][]string{nil, {"--resume"}} {
		code, stdout, stderr := call(trainMain, append(slices.Clone(long), extra...)...)
		checkBad(t, code, stdout, stderr, []string{"process " + strconv.Itoa(cmd.Process.Pid), "in use"})
	}
}

// Findings 3 and 4: eval and --resume on a run whose data or config.json changed exit 2 naming the
// file; the same content under a new modification time is no change.
func TestRunDirRecord(t *testing.T) {
	run, data, args := smallGRAMRun(t, 1)
	var spec map[string]any
	b, _ := os.ReadFile(filepath.Join(run, configFile))
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	made, _ := spec["made"].(map[string]any)
	files, _ := made["data_files"].([]any)
	if made["config_sha256"] == "" || made["code"] == "" || made["backend"] == "" || len(files) != 8 { // modalities.txt, ids.txt, train/val/test.txt, text/image/audio.npy
		t.Errorf("config.json's record: %v", made)
	}
	evalOK := func(what string) {
		t.Helper()
		if code, _, errOut := call(evalMain, "--run", run, "--json"); code != 0 {
			t.Fatalf("%s: eval exit %d: %s", what, code, errOut)
		}
	}
	evalOK("unchanged")
	bad := func(want string) {
		t.Helper()
		code, stdout, stderr := call(evalMain, "--run", run, "--json")
		checkBad(t, code, stdout, stderr, []string{want})
		code, stdout, stderr = call(trainMain, append(slices.Clone(args), "--out", run, "--resume")...)
		checkBad(t, code, stdout, stderr, []string{want})
	}

	// config.json edited: Geometry euclidean → hybrid.
	cfgPath := filepath.Join(run, configFile)
	edited := strings.Replace(string(b), `"Geometry": "euclidean"`, `"Geometry": "hybrid"`, 1)
	if edited == string(b) {
		t.Fatalf("no Geometry field in %s", b)
	}
	os.WriteFile(cfgPath, []byte(edited), 0o644)
	bad(cfgPath)
	os.WriteFile(cfgPath, b, 0o644)
	evalOK("config.json restored")

	// The rows of one array reversed (same size, same dtype).
	arr := filepath.Join(data, "image.npy")
	x := rewriteMatrix(t, arr, func(x []float32, cols int) []float32 {
		rev := make([]float32, 0, len(x))
		for r := len(x)/cols - 1; r >= 0; r-- {
			rev = append(rev, x[r*cols:(r+1)*cols]...)
		}
		return rev
	})
	bad(arr)
	rewriteMatrix(t, arr, func([]float32, int) []float32 { return x }) // the original content, a new modification time
	evalOK("data restored")

	// A validation split added later would change the splits.
	val := filepath.Join(data, "val.txt")
	os.WriteFile(val, []byte("sample000\n"), 0o644)
	bad(val)
}

// Finding 7: a killed `eval --scores` leaves a temporary file; the next eval --scores removes it,
// and a user's file that merely looks temporary is kept.
func TestEvalScoresClearsLeftover(t *testing.T) {
	run, _, _ := smallGRAMRun(t, 1)
	out := t.TempDir()
	left := filepath.Join(out, atomicfile.TempPrefix+"s.npy.998877")
	mine := filepath.Join(out, ".s.npy.tmpl")
	os.WriteFile(left, []byte("half a matrix"), 0o644)
	os.WriteFile(mine, []byte("mine"), 0o644)
	if code, _, errOut := call(evalMain, "--run", run, "--scores", filepath.Join(out, "s.npy")); code != 0 {
		t.Fatalf("eval exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("leftover %s not removed (%v)", left, err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("a user's file was removed: %v", err)
	}
}

// Issue 50, acceptance 3: configurations carry enums by name (--print-config, config.json), and a
// run directory written before names — its config.json holds the numbers, hashed as they stood —
// still evaluates and resumes.
func TestConfigEnumsByName(t *testing.T) {
	for _, m := range modelKinds {
		code, out, errOut := call(trainMain, m.name, "--print-config")
		if code != 0 {
			t.Fatalf("%s --print-config: exit %d: %s", m.name, code, errOut)
		}
		for _, want := range map[string][]string{
			"hlformer":  {`"Aggregation": "MAIM"`, `"Encoder": "HLFormer"`, `"Mask": "code"`, `"LorentzLogits": "code"`},
			"gare":      {`"Gap": "video-minus-text"`, `"Query": "gap"`, `"Context": "frames"`, `"Corrected": "text"`, `"Anchor": "video"`, `"Directional": "log-mean-exp"`},
			"gram":      {`"Geometry": "euclidean"`, `"Objective": "volume"`, `"Directions": "both"`},
			"hypergram": {`"Geometry": "hybrid"`},
		}[m.name] {
			if !strings.Contains(out, want) {
				t.Errorf("%s --print-config lacks %s:\n%s", m.name, want, out)
			}
		}
	}

	run, _, args := smallGRAMRun(t, 2)
	cps := checkpoints(run) // interrupted after its first epoch
	for _, suffix := range []string{".json", ".bin"} {
		os.Remove(strings.TrimSuffix(cps[len(cps)-1], ".json") + suffix)
	}
	// Rewrite config.json as an older geoalign wrote it: the enums as numbers, the record's hash
	// over those bytes.
	path := filepath.Join(run, configFile)
	var spec runSpec
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	var cfg struct{ Model map[string]any }
	if err := json.Unmarshal(spec.Config, &cfg); err != nil {
		t.Fatal(err)
	}
	for field, name := range map[string]string{"Geometry": "euclidean", "Objective": "volume", "Directions": "both"} {
		if cfg.Model[field] != name {
			t.Fatalf("config.json's Model.%s = %v, want %q", field, cfg.Model[field], name)
		}
		cfg.Model[field] = 0
	}
	if spec.Config, err = json.Marshal(cfg); err != nil {
		t.Fatal(err)
	}
	if spec.Made.ConfigSHA256, err = rundir.ConfigHash(spec.Config); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.WriteJSON(path, spec); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := call(evalMain, "--run", run, "--json"); code != 0 {
		t.Fatalf("eval of a config.json with enum numbers: exit %d: %s", code, errOut)
	}
	if code, _, errOut := call(trainMain, append(args, "--out", run, "--resume")...); code != 0 {
		t.Fatalf("--resume of a config.json with enum numbers: exit %d: %s", code, errOut)
	}
	if h := history(t, run); len(h) != 2 {
		t.Errorf("resumed run has %d epochs, want 2", len(h))
	}
}

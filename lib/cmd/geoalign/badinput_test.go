package main

import (
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/data/bigfile"
	"github.com/geoalign/geoalign/lib/npy"
	"github.com/geoalign/geoalign/lib/train"
)

// Each bad input of issue 21: exit code 2, one message naming the file, and no RUNDIR at all
// (every check runs before RUNDIR is created).
func TestTrainBadInput(t *testing.T) {
	dir := t.TempDir()
	gramData := filepath.Join(dir, "gram")
	writeToyTuples(t, gramData, 32, 8, 8)
	gareData := filepath.Join(dir, "gare")
	writeToyTextVideo(t, gareData, 32, 8, 8)
	prvrData := writeToyPRVR(t, filepath.Join(dir, "prvr"), 16, 4)
	gramCfg := writeConfig(t, dir, gramTestConfig)

	// broken returns a copy of a data directory with one change.
	broken := func(t *testing.T, src string, change func(dir string)) string {
		t.Helper()
		dst := filepath.Join(t.TempDir(), "data")
		if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
		change(dst)
		return dst
	}
	write := func(path, content string) {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prvrArgs := func(root string, extra ...string) []string {
		return append([]string{"hlformer", "--data-root", root, "--collection", prvrData.Collection, "--visual-feature", prvrData.Feature,
			"--config", writeConfig(t, t.TempDir(), hlformerTestConfig)}, extra...)
	}
	cases := []struct {
		name string
		args func(t *testing.T) []string
		want []string
	}{
		{"gare: missing features", func(t *testing.T) []string {
			return []string{"gare", "--data", broken(t, gareData, func(d string) { os.Remove(filepath.Join(d, "video.npy")) })}
		}, []string{"video.npy", "no such file"}},
		{"gram: missing data directory", func(t *testing.T) []string {
			return []string{"gram", "--data", filepath.Join(dir, "nonexistent"), "--config", gramCfg}
		}, []string{"nonexistent", "no such file"}},
		{"hlformer: missing video features", func(t *testing.T) []string {
			return prvrArgs(broken(t, prvrData.Root, func(d string) {
				os.RemoveAll(filepath.Join(d, prvrData.Collection, "FeatureData"))
			}))
		}, []string{filepath.Join("FeatureData", prvrData.Feature, bigfile.ShapeFileName), "no such file"}},
		{"hlformer: missing query features", func(t *testing.T) []string {
			return prvrArgs(prvrData.Root, "--text-feature", "other.hdf5")
		}, []string{"other.hdf5", "no such file"}},
		{"gare: widths disagree with --config", func(t *testing.T) []string {
			return []string{"gare", "--data", gareData, "--config", writeConfig(t, t.TempDir(), `{"Model": {"TextInputDim": 7}}`)}
		}, []string{"text.npy", "width 5", "Model.TextInputDim = 7"}},
		{"hlformer: widths disagree with --config", func(t *testing.T) []string {
			return append(prvrArgs(prvrData.Root), "--config", writeConfig(t, t.TempDir(), `{"Model": {"VideoDim": 1024}}`))
		}, []string{bigfile.ShapeFileName, "width 6", "Model.VideoDim = 1024"}},
		{"gare: caption of a video absent from the features", func(t *testing.T) []string {
			return []string{"gare", "--data", broken(t, gareData, func(d string) {
				b, _ := os.ReadFile(filepath.Join(d, "captions.txt"))
				write(filepath.Join(d, "captions.txt"), strings.Replace(string(b), "video001#", "video999#", 1))
			})}
		}, []string{"captions.txt", `"video999"`, "video_ids.txt"}},
		{"hlformer: caption of a video absent from the features", func(t *testing.T) []string {
			return prvrArgs(broken(t, prvrData.Root, func(d string) {
				p := filepath.Join(d, prvrData.Collection, "TextData", prvrData.Collection+"train.caption.txt")
				b, _ := os.ReadFile(p)
				write(p, string(b)+"ghost#enc#0 a query about nothing\n")
			}))
		}, []string{`"ghost"`, "video2frames.txt", "toytrain.caption.txt"}},
		{"gram: empty split", func(t *testing.T) []string {
			return []string{"gram", "--data", broken(t, gramData, func(d string) { write(filepath.Join(d, "test.txt"), "\n") }), "--config", gramCfg}
		}, []string{"test.txt", "empty split"}},
		{"hlformer: empty split", func(t *testing.T) []string {
			return prvrArgs(broken(t, prvrData.Root, func(d string) {
				write(filepath.Join(d, prvrData.Collection, "TextData", prvrData.Collection+"train.caption.txt"), "")
			}))
		}, []string{"toytrain.caption.txt", "empty split"}},
		{"gram: NaN feature", func(t *testing.T) []string {
			return []string{"gram", "--data", broken(t, gramData, func(d string) {
				x := make([]float32, 48*3)
				x[3*10+2] = float32(math.NaN())
				npy.WriteFile(filepath.Join(d, "audio.npy"), []int{48, 3}, x)
			}), "--config", gramCfg}
		}, []string{"audio.npy", "NaN at row 10, column 2"}},
		{"unknown config field", func(t *testing.T) []string {
			return []string{"gram", "--data", gramData, "--config", writeConfig(t, t.TempDir(), `{"Model": {"Geometri": 1}}`)}
		}, []string{"config.json", `unknown field "Geometri"`}},
		{"config file missing", func(t *testing.T) []string {
			return []string{"gram", "--data", gramData, "--config", filepath.Join(dir, "nope.json")}
		}, []string{"nope.json", "no such file"}},
		{"fewer samples than a batch", func(t *testing.T) []string {
			return []string{"gram", "--data", gramData, "--config", writeConfig(t, t.TempDir(), `{"Model": {"BatchSize": 64}}`)}
		}, []string{"train.txt", "32 samples", "Model.BatchSize = 64"}},
		{"no --data", func(t *testing.T) []string { return []string{"gare"} }, []string{"--data DIR is required"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			code, stdout, stderr := call(trainMain, append(c.args(t), "--epochs", "1", "--out", out)...)
			checkBad(t, code, stdout, stderr, c.want)
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("RUNDIR %s was created (%v)", out, err)
			}
		})
	}
}

// checkBad asserts exit code 2, nothing on stdout and one line on stderr containing want.
func checkBad(t *testing.T, code int, stdout, stderr string, want []string) {
	t.Helper()
	if code != 2 || stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 {
		t.Errorf("want one line, got %q", stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr %q does not contain %q", stderr, w)
		}
	}
}

// Run directories: never overwritten, resumed only by the same model with the same configuration,
// evaluated only when they are runs.
func TestRunDirRules(t *testing.T) {
	dir, data, cfg := toyGRAM(t)
	runDir := filepath.Join(dir, "run")
	mustTrain(t, "gram", "--data", data, "--config", cfg, "--epochs", "2", "--quiet", "--out", runDir)
	before, _ := os.ReadFile(filepath.Join(runDir, train.HistoryFile))
	notRun := filepath.Join(dir, "notrun")
	os.MkdirAll(notRun, 0o755)
	os.WriteFile(filepath.Join(notRun, "x"), nil, 0o644)
	cases := []struct {
		name string
		main func([]string, io.Writer, io.Writer) int
		args []string
		want []string
	}{
		{"existing RUNDIR without --resume", trainMain, []string{"gram", "--data", data, "--out", runDir}, []string{runDir, "--resume"}},
		{"RUNDIR of another model", trainMain, []string{"gare", "--out", runDir, "--resume"}, []string{"config.json", "is a gram run, not gare"}},
		{"resume with other epochs", trainMain, []string{"gram", "--out", runDir, "--resume", "--epochs", "5"}, []string{"Model.Epochs: 2 → 5", "config.json"}},
		{"resume with another config", trainMain, []string{"gram", "--out", runDir, "--resume", "--config", writeConfig(t, t.TempDir(), `{"Model": {"Hidden": 8}}`)},
			[]string{"changes the configuration", "config.json"}},
		{"resume with other data", trainMain, []string{"gram", "--out", runDir, "--resume", "--data", dir}, []string{"trained on"}},
		{"resume a directory that is no run", trainMain, []string{"gram", "--out", notRun, "--resume"}, []string{filepath.Join(notRun, "config.json"), "not a geoalign run"}},
		{"eval a directory that is no run", evalMain, []string{"--run", notRun}, []string{filepath.Join(notRun, "config.json")}},
		{"eval an unknown split", evalMain, []string{"--run", runDir, "--split", "dev"}, []string{`--split "dev"`}},
		{"eval scores not .npy", evalMain, []string{"--run", runDir, "--scores", filepath.Join(dir, "s.txt")}, []string{"s.txt", ".npy"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := call(c.main, c.args...)
			checkBad(t, code, stdout, stderr, c.want)
		})
	}
	if after, _ := os.ReadFile(filepath.Join(runDir, train.HistoryFile)); string(after) != string(before) {
		t.Error("a rejected command changed the run")
	}
	// The same command line with --resume added is accepted: the run is finished, nothing changes.
	code, _, errOut := call(trainMain, "gram", "--data", data, "--config", cfg, "--epochs", "2", "--out", runDir, "--resume")
	if after, _ := os.ReadFile(filepath.Join(runDir, train.HistoryFile)); code != 0 || string(after) != string(before) {
		t.Errorf("resume of a finished run: exit %d, %s; history changed: %v", code, errOut, string(after) != string(before))
	}
}

// Help is success (0), usage errors are 2 (issue 22's convention; TestExitCodes has the rows every
// command has, these are train's and eval's own).
func TestTrainEvalExitCodes(t *testing.T) {
	for _, c := range []struct {
		main func([]string, io.Writer, io.Writer) int
		args []string
		code int
		want string
	}{
		{trainMain, []string{"--help"}, 0, "models: hlformer, gare, gram, hypergram"},
		{trainMain, []string{"gare", "-h"}, 0, "video_ids.txt"},
		{trainMain, []string{"hlformer", "-h"}, 0, "roberta_NAME_query_feat.hdf5"},
		{trainMain, []string{"hypergram", "--help"}, 0, "--print-config"},
		{trainMain, []string{"gare", "--bogus"}, 2, "-bogus"},
		{trainMain, []string{"gare", "extra"}, 2, `unexpected argument "extra"`},
		{trainMain, []string{"gare", "--data", "x"}, 2, "--out RUNDIR is required"},
		{evalMain, []string{"--bogus"}, 2, "-bogus"},
	} {
		code, _, stderr := call(c.main, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d (want %d), stderr %q does not contain %q", c.args, code, c.code, firstLine(stderr), c.want)
		}
	}
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// --print-config prints the official code's values, and its output is a valid --config.
func TestPrintConfig(t *testing.T) {
	for _, c := range []struct {
		model string
		want  map[string]float64 // dotted path → official value (docs/official-code.md)
	}{
		{"hlformer", map[string]float64{"Model.Dim": 384, "Model.Heads": 4, "Model.LorentzDim": 127, "Model.BranchTemperature": 0.6,
			"Model.Dropout": 0.25, "Training.LearningRate": 2e-4, "Training.BatchVideos": 128, "Training.Epochs": 100, "Training.Patience": 10,
			"Loss.ClipNCE": 0.02, "Loss.FrameNCE": 0.04, "Model.VideoDim": 0}},
		{"gare", map[string]float64{"Model.Dim": 512, "Model.TemporalLayers": 4, "Model.PoolTemperature": 3, "Model.PsiDropout": 0.3,
			"Model.LearningRate": 1e-4, "Model.WeightDecay": 0.2, "Model.Batch": 128, "Model.Epochs": 5, "Model.TextInputDim": 0}},
		{"gram", map[string]float64{"Model.LabelSmoothing": 0.1, "Model.DAMWeight": 0.1, "Model.TemperatureInit": 0.07,
			"Model.WeightDecay": 0.01, "Model.Warmup": 0.1}},
		{"hypergram", map[string]float64{"Model.AlphaInit": 0.5}},
	} {
		code, out, errOut := call(trainMain, c.model, "--print-config")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.model, code, errOut)
		}
		var m map[string]map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("%s: %v\n%s", c.model, err, out)
		}
		// Enums by name (issue 50); TestConfigEnumsByName checks every one.
		if geometry := map[string]string{"gram": "euclidean", "hypergram": "hybrid"}[c.model]; geometry != "" && m["Model"]["Geometry"] != geometry {
			t.Errorf("%s: Model.Geometry = %v, want %q", c.model, m["Model"]["Geometry"], geometry)
		}
		for path, want := range c.want {
			sec, field, _ := strings.Cut(path, ".")
			if got, ok := m[sec][field].(float64); !ok || got != want {
				t.Errorf("%s: %s = %v, want %v", c.model, path, m[sec][field], want)
			}
		}
		// Fed back as --config it is accepted and changes nothing.
		p := writeConfig(t, t.TempDir(), out)
		code, again, errOut := call(trainMain, c.model, "--print-config", "--config", p)
		if code != 0 || again != out {
			t.Errorf("%s: --print-config --config <its output>: exit %d, %s", c.model, code, errOut)
		}
	}
}

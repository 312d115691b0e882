package main

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/train"
)

// TestMain lets a test run the command as a separate process (the kill -9 test): with
// GEOALIGN_TEST_MAIN=1 the test binary is geoalign itself.
func TestMain(m *testing.M) {
	if os.Getenv("GEOALIGN_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// call runs a command in process and returns its exit code and outputs.
func call(main func([]string, io.Writer, io.Writer) int, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := main(args, &out, &errb)
	return code, out.String(), errb.String()
}

// mustTrain runs `geoalign train args...` in process and returns its stderr; a nonzero exit fails
// the test.
func mustTrain(t *testing.T, args ...string) string {
	t.Helper()
	code, _, errOut := call(trainMain, args...)
	if code != 0 {
		t.Fatalf("train exit %d: %s", code, errOut)
	}
	return errOut
}

// toyGRAM writes toy tuples (32 train, 8 val, 8 test) and the GRAM test configuration under a
// temporary directory dir: the data directory and the --config file of a small GRAM run.
func toyGRAM(t *testing.T) (dir, data, cfg string) {
	t.Helper()
	dir = t.TempDir()
	data = filepath.Join(dir, "data")
	writeToyTuples(t, data, 32, 8, 8)
	return dir, data, writeConfig(t, dir, gramTestConfig)
}

// writeConfig writes a --config file.
func writeConfig(t *testing.T, dir, json string) string {
	t.Helper()
	return writeFile(t, dir, "config.json", json)
}

// writeFile writes content to dir/name and returns that path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// randomLevel is the text→video SumR of a random ranking of n items for q queries, in closed
// form: each query's ground truth is at a uniform rank, so E[R@K] = 100·min(K, n)/n; and an upper
// bound on its standard deviation, Σ_K 100·√(p_K(1 − p_K)/q) (queries independent).
func randomLevel(ks []int, n, q int) (mean, sd float64) {
	for _, k := range ks {
		p := float64(min(k, n)) / float64(n)
		mean += 100 * p
		sd += 100 * math.Sqrt(p*(1-p)/float64(q))
	}
	return mean, sd
}

// evalJSON runs geoalign eval --json on a run and parses its output.
func evalJSON(t *testing.T, runDir string, extra ...string) (retrieval.Report, string) {
	t.Helper()
	code, out, errOut := call(evalMain, append([]string{"--run", runDir, "--json"}, extra...)...)
	if code != 0 {
		t.Fatalf("eval exit %d: %s", code, errOut)
	}
	var rep retrieval.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("eval output %q: %v", out, err)
	}
	return rep, out
}

// checkAboveRandom asserts a text→video SumR above the random-ranking level by 3 standard
// deviations (of an upper bound on them: a chance of at most 0.14 % that a model ranking at random
// passes, under the normal approximation).
func checkAboveRandom(t *testing.T, rep retrieval.Report, ks []int, items, queries int) {
	t.Helper()
	mean, sd := randomLevel(ks, items, queries)
	if got := rep.T2V.SumR; !(got > mean+3*sd) {
		t.Errorf("test SumR %.1f, random ranking %.1f ± %.1f: not learned", got, mean, sd)
	} else {
		t.Logf("test SumR %.1f (random ranking %.1f ± %.1f)", got, mean, sd)
	}
}

const gramTestConfig = `{"Model": {"BatchSize": 16, "Hidden": 32, "ContraDim": 16, "MatchHidden": 16, "LearningRate": 0.01}}`

func TestTrainEvalGRAM(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	writeToyTuples(t, data, 128, 16, 20)
	runDir := filepath.Join(dir, "run")
	t.Log(mustTrain(t, "gram", "--data", data, "--config", writeConfig(t, dir, gramTestConfig), "--epochs", "3", "--out", runDir))
	rep, _ := evalJSON(t, runDir)
	checkAboveRandom(t, rep, retrieval.TextVideoKs, 20, 20)
	checkBestVal(t, runDir)
	for _, f := range []string{configFile, train.HistoryFile, train.PlotFile, curvesFile, train.BestDir} {
		if _, err := os.Stat(filepath.Join(runDir, f)); err != nil {
			t.Error(err)
		}
	}
}

const gareTestConfig = `{"Model": {"Dim": 16, "TemporalLayers": 1, "TemporalHeads": 2, "Batch": 16, "LearningRate": 0.003},
 "Training": {"Patience": 0}}`

func TestTrainEvalGARE(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	writeToyTextVideo(t, data, 96, 0, 24) // no val.txt: validation carved from train
	runDir := filepath.Join(dir, "run")
	t.Log(mustTrain(t, "gare", "--data", data, "--config", writeConfig(t, dir, gareTestConfig), "--epochs", "5", "--out", runDir))
	rep, _ := evalJSON(t, runDir)
	checkAboveRandom(t, rep, retrieval.TextVideoKs, 24, 24+8) // every third video has two captions
	checkBestVal(t, runDir)
}

// A tiny HLFormer (d = 16, 2 heads, L^7, one Euclidean and one Lorentz branch of each width 0, 4).
const hlformerTestConfig = `{"Model": {"Dim": 16, "Heads": 2, "LorentzDim": 7, "EuclideanWidths": [0, 4], "LorentzWidths": [0, 4],
  "FrameLen": 16, "QueryLen": 4, "Dropout": 0, "InputDropout": 0},
 "Training": {"BatchVideos": 4, "QueryBucket": 0, "LearningRate": 0.003, "HardNegativeStart": 100, "Patience": 0}}`

func TestTrainEvalHLFormer(t *testing.T) {
	dir := t.TempDir()
	c := writeToyPRVR(t, filepath.Join(dir, "data"), 128, 16)
	runDir := filepath.Join(dir, "run")
	errOut := mustTrain(t, "hlformer", "--data-root", c.Root, "--collection", c.Collection, "--visual-feature", c.Feature,
		"--config", writeConfig(t, dir, hlformerTestConfig), "--epochs", "5", "--out", runDir)
	t.Log(errOut)
	if !strings.Contains(errOut, "deviation from the official code") || !strings.Contains(errOut, "holds the test captions") {
		t.Errorf("the carved validation split is not reported: %s", errOut)
	}
	rep, out := evalJSON(t, runDir)
	checkAboveRandom(t, rep, retrieval.PRVRKs, c.TestVideos, c.TestQueries)
	checkBestVal(t, runDir)

	// --scores: geoalign metrics computes the same metrics from the files eval writes.
	scores := filepath.Join(dir, "scores.npy")
	if _, again := evalJSON(t, runDir, "--scores", scores); again != out {
		t.Errorf("eval --scores printed %s, eval %s", again, out)
	}
	code, mout, merr := call(metricsMain, "--scores", scores, "--query-video", filepath.Join(dir, "scores.query_video.npy"), "--ks", "1,5,10,100", "--json")
	if code != 0 || mout != out {
		t.Errorf("geoalign metrics on the written scores: exit %d, %s%s; eval printed %s", code, mout, merr, out)
	}
}

// checkBestVal checks that eval --split val loads the best epoch: it prints the validation
// metrics history.json recorded for that epoch.
func checkBestVal(t *testing.T, runDir string) {
	t.Helper()
	best, ok := bestRecord(history(t, runDir))
	if !ok {
		t.Fatal("no best record")
	}
	rep, _ := evalJSON(t, runDir, "--split", "val")
	if rep.T2V.SumR != best.Val["t2v_sumr"] || rep.T2V.R(1) != best.Val["t2v_r1"] {
		t.Errorf("eval --split val: %v, history's best epoch %d: %v", rep.T2V, best.Epoch, best.Val)
	}
}

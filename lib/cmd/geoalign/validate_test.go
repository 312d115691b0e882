package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/data/featdir"
	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/npy"
)

// Issue 31, findings 5, 6 and 8: every configuration and input is checked before anything is
// created — exit 2, a message naming the field or file, and no RUNDIR.
func TestTrainRejectsBeforeCreating(t *testing.T) {
	dir := t.TempDir()
	tuples := filepath.Join(dir, "tuples")
	writeToyTuples(t, tuples, 32, 8, 8)
	textVideo := filepath.Join(dir, "textvideo")
	writeToyTextVideo(t, textVideo, 48, 8, 16)
	toy := writeToyPRVR(t, filepath.Join(dir, "prvr"), 32, 8)
	prvrArgs := func(root string) []string {
		return []string{"hlformer", "--data-root", root, "--collection", toy.Collection, "--visual-feature", toy.Feature}
	}
	layout := prvr.Layout{Root: toy.Root, Collection: toy.Collection, VisualFeature: toy.Feature}

	// A collection whose test captions name a video the features do not have.
	unknown := filepath.Join(dir, "prvr-unknown")
	os.CopyFS(unknown, os.DirFS(toy.Root))
	ul := layout
	ul.Root = unknown
	for _, split := range []string{"val", "test"} {
		f, _ := os.OpenFile(ul.CaptionFile(split), os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString("nosuchvideo#enc#0 a query about nothing\n")
		f.Close()
	}
	// A collection whose test split is its training split.
	same := filepath.Join(dir, "prvr-same")
	os.CopyFS(same, os.DirFS(toy.Root))
	sl := layout
	sl.Root = same
	train, _ := os.ReadFile(sl.CaptionFile("train"))
	os.WriteFile(sl.CaptionFile("test"), train, 0o644)
	os.WriteFile(sl.CaptionFile("val"), train, 0o644)

	// Token ids saved in place of features: an int32 array.
	intFeats := filepath.Join(dir, "tuples-int")
	os.CopyFS(intFeats, os.DirFS(tuples))
	ids := make([]int32, 48*5)
	for i := range ids {
		ids[i] = int32(i % 1000)
	}
	if err := npy.WriteFile(filepath.Join(intFeats, "image.npy"), []int{48, 5}, ids); err != nil {
		t.Fatal(err)
	}

	cfg := func(json string) string { return writeConfig(t, t.TempDir(), json) }
	gareCfg := func(model string) string { // gareTestConfig (batches that fit the toy data) with model's fields
		return cfg(strings.Replace(gareTestConfig, `"Model": {`, `"Model": {`+model+`, `, 1))
	}
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"GARE Beta2 1.5", []string{"gare", "--data", textVideo, "--config", gareCfg(`"Beta2": 1.5`)}, []string{"Beta2 = 1.5", "[0, 1)"}},
		{"GARE WeightDecay −1", []string{"gare", "--data", textVideo, "--config", gareCfg(`"WeightDecay": -1`)}, []string{"WeightDecay = -1"}},
		{"GARE Warmup 2", []string{"gare", "--data", textVideo, "--config", gareCfg(`"Warmup": 2`)}, []string{"Warmup = 2"}},
		{"GARE negative loss weight", []string{"gare", "--data", textVideo, "--config", gareCfg(`"Loss": {"LambdaDir": -0.01}`)}, []string{"Loss.LambdaDir = -0.01"}},
		{"GARE Model.ValFraction (ignored)", []string{"gare", "--data", textVideo, "--config", gareCfg(`"ValFraction": 0.3`)},
			[]string{"Model.ValFraction = 0.3", "Training.ValFraction"}},
		{"GARE Model.Patience (ignored)", []string{"gare", "--data", textVideo, "--config", gareCfg(`"Patience": 3`)},
			[]string{"Model.Patience = 3", "Training.Patience"}},
		{"HyperGRAM Geometry 0", []string{"hypergram", "--data", tuples, "--config", cfg(`{"Model": {"Geometry": "euclidean"}}`)}, []string{`Geometry = "euclidean"`, "HyperGRAM"}},
		{"HyperGRAM Geometry 0 (an older config.json's number)", []string{"hypergram", "--data", tuples, "--config", cfg(`{"Model": {"Geometry": 0}}`)}, []string{`Geometry = "euclidean"`, "HyperGRAM"}},
		{"HLFormer unknown Aggregation", append(prvrArgs(toy.Root), "--config", cfg(`{"Model": {"Aggregation": "max"}}`)), []string{"hlformer.Aggregation", `"max"`, "MAIM, MP, CL"}},
		{"GRAM WeightDecay −1", []string{"gram", "--data", tuples, "--config", cfg(`{"Model": {"WeightDecay": -1}}`)}, []string{"WeightDecay = -1"}},
		{"HLFormer ClipLen 8", append(prvrArgs(toy.Root), "--config", cfg(`{"Model": {"ClipLen": 8}}`)), []string{"ClipLen = 8", "32"}},
		{"HLFormer score weights", append(prvrArgs(toy.Root), "--config", cfg(`{"Model": {"ClipScoreWeight": -1}}`)), []string{"ClipScoreWeight = -1"}},
		{"HLFormer HardPoolSize 0", append(prvrArgs(toy.Root), "--config", cfg(`{"Loss": {"HardPoolSize": 0}}`)), []string{"HardPoolSize = 0"}},
		{"HLFormer test caption of an unknown video", prvrArgs(unknown), []string{"nosuchvideo"}},
		{"HLFormer test = train", prvrArgs(same), []string{ul.CaptionFile("test")[len(unknown):], "also in", "must not share videos"}},
		{"int32 features", []string{"gram", "--data", intFeats}, []string{filepath.Join(intFeats, "image.npy"), "dtype <i4", "float32 or float64"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			code, stdout, stderr := call(trainMain, append(c.args, "--epochs", "1", "--quiet", "--out", out)...)
			checkBad(t, code, stdout, stderr, c.want)
			t.Log(strings.TrimSpace(stderr))
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("a rejected configuration created %s (%v)", out, err)
			}
		})
	}
}

// Finding 8: a UTF-8 byte order mark at the start of ids.txt (and of a split file) is not part of
// the first id: the directory trains.
func TestTrainIDsWithBOM(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	writeToyTuples(t, data, 32, 8, 8)
	for _, name := range []string{featdir.IDsFile, featdir.TrainFile} {
		p := filepath.Join(data, name)
		b, _ := os.ReadFile(p)
		os.WriteFile(p, append([]byte("\xef\xbb\xbf"), b...), 0o644)
	}
	code, _, errOut := call(trainMain, "gram", "--data", data, "--config", writeConfig(t, dir, gramTestConfig), "--epochs", "1", "--quiet",
		"--out", filepath.Join(dir, "run"))
	if code != 0 || strings.Contains(errOut, "is not in") {
		t.Fatalf("ids.txt with a BOM: exit %d: %s", code, errOut)
	}
}

// A run made before Training.DropPartialBatch existed dropped its partial batches: resumed, it
// keeps doing so; a run that stores the field keeps its value; other models are untouched.
func TestLegacyDefaults(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want bool
		note bool
	}{
		{`{"Training": {"Epochs": 3}}`, true, true},
		{`{"Training": {"Epochs": 3, "DropPartialBatch": false}}`, false, false},
		{`{"Training": {"DropPartialBatch": true}}`, true, false},
	} {
		cfg := hlformerDefaults()
		if err := decodeConfig([]byte(c.raw), cfg, "config.json"); err != nil {
			t.Fatal(err)
		}
		note := legacyDefaults([]byte(c.raw), cfg)
		if cfg.Training.DropPartialBatch != c.want || (note != "") != c.note {
			t.Errorf("%s: DropPartialBatch %v, note %q; want %v, a note: %v", c.raw, cfg.Training.DropPartialBatch, note, c.want, c.note)
		}
	}
	g := gramKind.defaults()
	if note := legacyDefaults([]byte(`{"Model": {}}`), g); note != "" {
		t.Errorf("gram: note %q", note)
	}
}

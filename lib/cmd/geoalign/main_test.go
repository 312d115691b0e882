package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/data/bigfile"
	"github.com/geoalign/geoalign/lib/data/captions"
	"github.com/geoalign/geoalign/lib/data/h5"
	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/data/tracks"
	"github.com/geoalign/geoalign/lib/npy"
)

// writeCollection writes a small collection in the official MS-SL layout under l: videos v0…v3
// with 2 frames of 3 features each, one caption per video in every split, one token per caption.
func writeCollection(t *testing.T, l prvr.Layout) {
	t.Helper()
	var ids []string
	var rows []float32
	v2f := bigfile.Video2Frames{}
	var caps []captions.Caption
	for v := 0; v < 4; v++ {
		vid := fmt.Sprintf("v%d", v)
		for k := 0; k < 2; k++ {
			ids = append(ids, fmt.Sprintf("%s_%d", vid, k))
			rows = append(rows, float32(v+1), float32(k), 1)
		}
		v2f[vid] = ids[len(ids)-2:]
		caps = append(caps, captions.Caption{ID: captions.EncID(vid, 0), Text: "a person " + vid})
	}
	if err := bigfile.Write(l.FeatureDir(), ids, 3, rows); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(l.FeatureDir(), bigfile.Video2FramesFileName))
	if err != nil {
		t.Fatal(err)
	}
	bigfile.WriteVideo2Frames(f, v2f)
	f.Close()
	os.MkdirAll(filepath.Dir(l.CaptionFile("train")), 0o755)
	for _, split := range []string{"train", "val", "test"} {
		var b bytes.Buffer
		captions.Write(&b, caps)
		if err := os.WriteFile(l.CaptionFile(split), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err := h5.Create(l.TextFeatureFile())
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range caps {
		w.WriteFloat32(c.ID, []int{1, 2}, []float32{float32(i), 1})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// truncatedCache is a data cache with both Charades collections whose feature.bin files have
// lost their last 4 bytes; it returns the cache and the STA collection's feature.bin.
func truncatedCache(t *testing.T) (cache, featureBin string) {
	cache = t.TempDir()
	for _, c := range []string{tracks.CharadesSTACollection, tracks.CharadesDescCollection} {
		l := tracks.CharadesLayout(cache, c)
		writeCollection(t, l)
		bin := filepath.Join(l.FeatureDir(), bigfile.FeatureFileName)
		st, err := os.Stat(bin)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(bin, st.Size()-4); err != nil {
			t.Fatal(err)
		}
		if c == tracks.CharadesSTACollection {
			featureBin = bin
		}
	}
	return cache, featureBin
}

// TestExitCodes runs every command in-process: help is 0, bad usage and bad input 2 (with a
// message naming the culprit), a failure while running 1 — and nothing is written on bad input.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	aFile := filepath.Join(dir, "a-file")
	os.WriteFile(aFile, []byte("x"), 0o644)
	scores := filepath.Join(dir, "s.npy")
	if err := npy.WriteFile(scores, []int{2, 2}, []float32{1, 0, 0, 1}); err != nil {
		t.Fatal(err)
	}
	cache, featureBin := truncatedCache(t)
	descBin := filepath.Join(tracks.CharadesLayout(cache, tracks.CharadesDescCollection).FeatureDir(), bigfile.FeatureFileName)
	tiny := filepath.Join("..", "..", "data", "wordnet", "testdata", "tiny")
	gramData := filepath.Join(dir, "gram")
	writeToyTuples(t, gramData, 32, 8, 8)
	gramCfg := writeConfig(t, dir, gramTestConfig)
	wordnetTiny := []string{"wordnet", "--wordnet-dir", tiny, "--filter", filepath.Join(tiny, "mammals_filter.txt"),
		"--dim", "2", "--seeds", "1", "--epochs", "1", "--checkpoints", "", "--disk=false", "--stability=false", "--quiet"}

	cases := []struct {
		args     []string
		code     int
		mentions string // in stderr
	}{
		{nil, exitUsage, "usage: geoalign"},
		{[]string{"-h"}, exitOK, "usage: geoalign"},
		{[]string{"help"}, exitOK, "exit codes"},
		{[]string{"bogus"}, exitUsage, `unknown command "bogus"`},

		{[]string{"version", "-h"}, exitOK, "-json"},
		{[]string{"version", "--bogus"}, exitUsage, "bogus"},
		{[]string{"version", "extra"}, exitUsage, `unexpected argument "extra"`},
		{[]string{"version"}, exitOK, ""},

		{[]string{"metrics", "-h"}, exitOK, "usage: geoalign metrics"},
		{[]string{"metrics"}, exitUsage, "--scores is required"},
		{[]string{"metrics", "--scores", filepath.Join(dir, "none.npy")}, exitUsage, "none.npy"},
		{[]string{"metrics", "--scores", scores, "--ks", "0"}, exitUsage, "--ks"},
		{[]string{"metrics", "--scores", scores}, exitOK, ""},

		{[]string{"data"}, exitUsage, "usage: geoalign data"},
		{[]string{"data", "-h"}, exitOK, "usage: geoalign data"},
		{[]string{"data", "bogus"}, exitUsage, `unknown subcommand "bogus"`},
		{[]string{"data", "build", "-h"}, exitOK, "-only"},
		{[]string{"data", "build", "--only", "bogus"}, exitUsage, `unknown track "bogus"`},
		{[]string{"data", "load", "-h"}, exitOK, "-split"},
		{[]string{"data", "load", "--cache", filepath.Join(dir, "nonexistent")}, exitUsage, "nonexistent"},
		{[]string{"data", "load", "--cache", cache, "--split", "test"}, exitUsage, featureBin},
		{[]string{"data", "baseline", "--cache", cache}, exitUsage, featureBin},

		{[]string{"reproduce", "-h"}, exitOK, "-paper"},
		{[]string{"reproduce", "--paper", "bogus", "--out", out}, exitUsage, `unknown paper "bogus"`},
		{[]string{"reproduce", "--paper", "grid", "--out", out}, exitUsage, "no Table 1"},
		{[]string{"reproduce", "--seeds", "x", "--out", out}, exitUsage, `bad seed "x"`},
		{[]string{"reproduce", "--paper", "hlformer", "--cache", "/nonexistent", "--out", out}, exitUsage, "/nonexistent"},
		{[]string{"reproduce", "--paper", "gare", "--cache", "/nonexistent", "--out", out}, exitUsage, "/nonexistent"},
		{[]string{"reproduce", "--paper", "hlformer", "--cache", cache, "--out", out}, exitUsage, featureBin},
		{[]string{"reproduce", "--paper", "gare", "--cache", cache, "--out", out}, exitUsage, descBin},
		{[]string{"reproduce", "--paper", "hlformer", "--data", dir, "--out", out}, exitUsage, "--data DIR runs one paper's protocol"},
		{[]string{"reproduce", "--paper", "hlformer", "--data", dir, "--data-root", dir, "--collection", "c", "--visual-feature", "f", "--out", out}, exitUsage, "two data sources"},

		{[]string{"figures", "-h"}, exitOK, "-report-only"},
		{[]string{"figures", "--paper", "bogus", "--out", out}, exitUsage, `unknown paper "bogus"`},
		{[]string{"figures", "--cache", "/nonexistent", "--out", out}, exitUsage, "/nonexistent"},
		{[]string{"figures", "--paper", "gram", "--data", "synthetic", "--out", out}, exitUsage, "need the real tracks"},
		{[]string{"figures", "--report-only", "--out", aFile}, exitFailure, "REPORT.md"},
		{[]string{"figures", "--paper", "gare", "--cache", cache, "--sections", "table1,table2", "--out", out}, exitUsage, `unknown section "table2"`},
		{[]string{"figures", "--paper", "gram", "--cache", cache, "--sections", "table1", "--out", out}, exitUsage, "gram: (no sections"},

		{[]string{"train"}, exitUsage, "usage: geoalign train"},
		{[]string{"train", "-h"}, exitOK, "xla:cuda"},
		{[]string{"train", "gram", "-h"}, exitOK, "modalities.txt"},
		{[]string{"train", "bogus"}, exitUsage, `unknown model "bogus"`},
		{[]string{"train", "gram", "--data", filepath.Join(dir, "nodata"), "--out", out}, exitUsage, "nodata"},
		{[]string{"train", "gram", "--data", gramData, "--config", gramCfg, "--epochs", "1", "--quiet", "--out", filepath.Join(aFile, "run")}, exitUsage, "a-file"},
		{[]string{"train", "gram", "--data", gramData, "--config", writeConfig(t, t.TempDir(), `{"Model": {"BatchSize": 16, "LearningRate": 1e30}}`),
			"--epochs", "2", "--quiet", "--out", filepath.Join(dir, "nan-run")}, exitFailure, "NaN"}, // the loop's NaN guard (on the loss or the validation scores)

		{[]string{"eval"}, exitUsage, "--run RUNDIR is required"},
		{[]string{"eval", "-h"}, exitOK, "--scores"},
		{[]string{"eval", "--run", out}, exitUsage, "config.json"},

		{[]string{"sweep"}, exitUsage, "usage: geoalign sweep"},
		{[]string{"sweep", "-h"}, exitOK, "--grid"},
		{[]string{"sweep", "gram", "-h"}, exitOK, "modalities.txt"},
		{[]string{"sweep", "bogus"}, exitUsage, `unknown model "bogus"`},
		{[]string{"sweep", "gram", "--data", gramData, "--grid", "Model.Epochs=1"}, exitUsage, "--out DIR"},

		{[]string{"encode"}, exitUsage, "usage: geoalign encode text"},
		{[]string{"encode", "-h"}, exitOK, "usage: geoalign encode text"},
		{[]string{"encode", "bogus"}, exitUsage, `unknown subcommand "bogus"`},
		{[]string{"encode", "text", "-h"}, exitOK, "-tokens"},
		{[]string{"encode", "text", "--model", "bogus", aFile, filepath.Join(out, "x.npy")}, exitUsage, `unknown --model "bogus"`},
		{[]string{"encode", "text", "--model", "minilm", filepath.Join(dir, "none.txt"), filepath.Join(dir, "x.npy")}, exitUsage, "none.txt"},

		{[]string{"wordnet", "-h"}, exitOK, "usage: geoalign wordnet"},
		{[]string{"wordnet", "--model", "bogus"}, exitUsage, "--model"},
		{[]string{"wordnet", "--preset", "bogus"}, exitUsage, "--preset"},
		{[]string{"wordnet", "--wordnet-dir", filepath.Join(dir, "nowordnet")}, exitUsage, "nowordnet"},
		{append(wordnetTiny, "--out", filepath.Join(aFile, "wordnet")), exitFailure, "a-file"},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		code := run(c.args, &stdout, &stderr)
		if len(c.args) > 0 {
			covered[c.args[0]] = true
		}
		if code != c.code || !strings.Contains(stderr.String(), c.mentions) {
			t.Errorf("geoalign %s: exit %d, want %d with %q in stderr:\n%s", strings.Join(c.args, " "), code, c.code, c.mentions, stderr.String())
		}
	}
	for name := range commands {
		if !covered[name] {
			t.Errorf("command %q has no row in the table", name)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("bad input wrote %s (%v)", out, err)
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data/featdir"
	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/models"
	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/geoalign/geoalign/lib/models/hlformer"
	"github.com/geoalign/geoalign/lib/runner"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/gomlx/ml/model"
)

// `geoalign train <model>` trains the model the library trains: the same configuration and seed
// given to the CLI (as --config JSON and flags) and to the model package's own API (as Go values,
// the way the studies call it) give bit-identical weights (the final checkpoint with its optimizer
// moments and random state, and the best validation's model) and history records. Each model trains
// two epochs on the toy data of toydata_test.go.
func TestCLITrainsWhatTheLibraryTrains(t *testing.T) {
	backend.SkipOnXLA(t, "trains every model twice (command line and library) to compare their plumbing bit for bit, which is "+
		"backend-independent and runs on the Go backend in every go test; every model trains on XLA in TestTrainEval*")
	dir := t.TempDir()
	be := backend.MustNew()

	t.Run("gram", func(t *testing.T) {
		data := filepath.Join(dir, "tuples")
		writeToyTuples(t, data, 64, 16, 16)
		for _, c := range []struct {
			model string
			cfg   gram.Config
		}{{"gram", gram.DefaultConfig()}, {"hypergram", gram.HyperGRAMConfig()}} {
			t.Run(c.model, func(t *testing.T) {
				cli := cliRun(t, c.model, "--data", data, "--config", writeConfig(t, t.TempDir(), gramTestConfig), "--seed", "3")
				cfg := c.cfg // gramTestConfig as Go values
				cfg.BatchSize, cfg.Hidden, cfg.ContraDim, cfg.MatchHidden, cfg.LearningRate = 16, 32, 16, 16, 0.01
				cfg.Epochs, cfg.Seed, cfg.Quiet = 2, 3, true
				cfg.CheckpointDir = filepath.Join(t.TempDir(), "lib")
				d, err := featdir.LoadTuples(data, cfg.ValFraction)
				if err != nil {
					t.Fatal(err)
				}
				ds := &gram.Dataset{Name: data, Modalities: d.Modalities}
				for _, s := range []struct {
					dst  **gram.Split
					rows []int
				}{{&ds.Train, d.Splits.Train}, {&ds.Val, d.Splits.Val}, {&ds.Test, d.Splits.Test}} {
					if *s.dst, err = gram.NewSplit(d.Rows(s.rows), d.Dims, nil); err != nil {
						t.Fatal(err)
					}
				}
				tr, err := gram.NewTrainer(be, ds, cfg)
				if err != nil {
					t.Fatal(err)
				}
				if err := tr.Train(); err != nil {
					t.Fatal(err)
				}
				sameRunDir(t, cli, cfg.CheckpointDir)
			})
		}
	})

	t.Run("gare", func(t *testing.T) {
		data := filepath.Join(dir, "textvideo")
		writeToyTextVideo(t, data, 48, 0, 16) // no val.txt: the validation videos are carved
		cli := cliRun(t, "gare", "--data", data, "--config", writeConfig(t, t.TempDir(), gareTestConfig), "--seed", "4")
		cfg := gare.DefaultConfig() // gareTestConfig as Go values, the widths of the data
		cfg.Dim, cfg.TemporalLayers, cfg.TemporalHeads, cfg.Batch, cfg.LearningRate = 16, 1, 2, 16, 0.003
		cfg.TextInputDim, cfg.VideoInputDim, cfg.Frames, cfg.Words = 5, 6, 4, 0
		cfg.Epochs, cfg.Patience = 2, 0
		d, err := featdir.LoadTextVideo(data, 0.1)
		if err != nil {
			t.Fatal(err)
		}
		m, err := gare.New(be, cfg, 4)
		if err != nil {
			t.Fatal(err)
		}
		libDir := filepath.Join(t.TempDir(), "lib")
		tr, err := m.NewTrainer(gare.PairedFromDir(d, "train", d.Splits.Train),
			gare.TrainOptions{Seed: 4, Val: gare.RetrievalFromDir(d, "val", d.Splits.Val), Dir: libDir, Quiet: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.Train(); err != nil {
			t.Fatal(err)
		}
		sameRunDir(t, cli, libDir)
	})

	t.Run("hlformer", func(t *testing.T) {
		c := writeToyPRVR(t, filepath.Join(dir, "prvr"), 40, 8) // val = test captions: validation carved from train
		// With dropout, so that the store's random stream matters.
		cliCfg := `{"Model": {"Dim": 16, "Heads": 2, "LorentzDim": 7, "EuclideanWidths": [0, 4], "LorentzWidths": [0, 4],
  "FrameLen": 16, "QueryLen": 4, "Dropout": 0.2, "InputDropout": 0.2},
 "Training": {"BatchVideos": 4, "QueryBucket": 0, "LearningRate": 0.003, "HardNegativeStart": 1, "Patience": 0}}`
		cli := cliRun(t, "hlformer", "--data-root", c.Root, "--collection", c.Collection, "--visual-feature", c.Feature,
			"--config", writeConfig(t, t.TempDir(), cliCfg), "--seed", "5")
		mc := hlformer.PaperConfig(6, 5)
		mc.Dim, mc.Heads, mc.LorentzDim, mc.EuclideanWidths, mc.LorentzWidths = 16, 2, 7, []float64{0, 4}, []float64{0, 4}
		mc.FrameLen, mc.QueryLen, mc.Dropout, mc.InputDropout = 16, 4, 0.2, 0.2
		tc := hlformer.CharadesTraining()
		tc.BatchVideos, tc.QueryBucket, tc.LearningRate, tc.HardNegativeStart, tc.Patience = 4, 0, 0.003, 1, 0
		tc.Epochs, tc.Seed = 2, 5
		tc.CheckpointDir = filepath.Join(t.TempDir(), "lib")
		all, err := prvr.Load(prvr.Layout{Root: c.Root, Collection: c.Collection, VisualFeature: c.Feature}, "train")
		if err != nil {
			t.Fatal(err)
		}
		trainSplit, valSplit, err := prvr.CarveValidation(all, prvr.ValidationFraction)
		if err != nil {
			t.Fatal(err)
		}
		m, err := hlformer.New(mc)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := hlformer.Train(be, m, hlformer.CharadesLoss(), tc, trainSplit, valSplit); err != nil {
			t.Fatal(err)
		}
		sameRunDir(t, cli, tc.CheckpointDir)
	})
}

// cliRun runs `geoalign train <args> --epochs 2 --quiet --out RUNDIR` in process and returns RUNDIR.
func cliRun(t *testing.T, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "cli")
	if code, _, errOut := call(trainMain, append(args, "--epochs", "2", "--quiet", "--out", out)...); code != 0 {
		t.Fatalf("geoalign train %s: exit %d: %s", args[0], code, errOut)
	}
	return out
}

// sameRunDir fails unless two run directories hold the same history records (wall times aside) and,
// bit for bit, the same variables in their newest checkpoint and in their best one.
func sameRunDir(t *testing.T, cli, lib string) {
	t.Helper()
	hc, hl := records(t, cli), records(t, lib)
	if len(hc) != 2 || !slices.Equal(hc, hl) {
		t.Errorf("history records differ:\nCLI     %q\nlibrary %q", hc, hl)
	}
	for _, sub := range []string{"", train.BestDir} {
		sc, err := train.LoadStore(filepath.Join(cli, sub))
		if err != nil {
			t.Fatal(err)
		}
		sl, err := train.LoadStore(filepath.Join(lib, sub))
		if err != nil {
			t.Fatal(err)
		}
		vc, vl := variables(sc), variables(sl)
		if len(vc) == 0 || len(vc) != len(vl) {
			t.Fatalf("%s: %d variables (CLI) vs %d (library)", filepath.Join(cli, sub), len(vc), len(vl))
		}
		var differ []string
		for path, x := range vc {
			if !bytes.Equal(x, vl[path]) {
				differ = append(differ, path)
			}
		}
		if len(differ) > 0 {
			slices.Sort(differ)
			t.Errorf("checkpoint %q: %d of %d variables differ between the CLI's run and the library's, e.g. %s",
				sub, len(differ), len(vc), differ[0])
		}
	}
}

// records reads a run directory's history.json as JSON records without their wall times ("seconds",
// also in a model's extra values) and without the degenerate-run "warning" that `geoalign train` adds
// to the last record after training (degenerateWarning: a note about the run, not a trained value).
func records(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, train.HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	var rs []map[string]any
	if err := json.Unmarshal(b, &rs); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rs {
		delete(r, "seconds")
		delete(r, "xla") // what XLA compiled: the process's, not the run's
		delete(r, "warning")
		if extra, ok := r["extra"].(map[string]any); ok {
			delete(extra, "seconds")
		}
		line, _ := json.Marshal(r) // map keys sorted
		out = append(out, string(line))
	}
	return out
}

// variables is every variable of a store (weights, optimizer moments and counters, random state)
// as bytes.
func variables(s *model.Store) map[string][]byte {
	out := map[string][]byte{}
	for v := range s.IterVariables() {
		v.MustValue().ConstBytes(func(b []byte) { out[v.Path()] = slices.Clone(b) })
	}
	return out
}

// A study that trains through lib/runner with the Spec `geoalign train` writes (model name, the
// configuration JSON with the widths filled from the data, the data source, the run's notes) makes
// the run directory `geoalign train` makes: the same config.json (record included, times and
// paths aside), and bit-identical weights and records.
func TestRunnerTrainsWhatTheCLITrains(t *testing.T) {
	backend.SkipOnXLA(t, "compares plumbing bit for bit, backend-independent; runs on the Go backend in every go test")
	_, data, cfgFile := toyGRAM(t)
	cli := cliRun(t, "gram", "--data", data, "--config", cfgFile, "--seed", "3")
	cfg := gramKind.defaults()
	b, err := os.ReadFile(cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := decodeConfig(b, cfg, cfgFile); err != nil {
		t.Fatal(err)
	}
	*cfg.run().Epochs, *cfg.run().Seed = 2, 3
	src := runner.Source{Dir: data}
	run, err := cfg.open(backend.MustNew(), src, true)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(t.TempDir(), "lib")
	if _, err := runner.Train(lib, runner.Spec{Model: "gram", Data: src, Config: raw, Notes: run.Notes()}, run, models.Output{Quiet: true}); err != nil {
		t.Fatal(err)
	}
	sameRunDir(t, cli, lib)
	a, errA := runner.ReadSpec(cli)
	l, errL := runner.ReadSpec(lib)
	if errA != nil || errL != nil {
		t.Fatal(errA, errL)
	}
	if !bytes.Equal(a.Config, l.Config) || a.Data != l.Data || !slices.Equal(a.Notes, l.Notes) ||
		a.Made.ConfigSHA256 != l.Made.ConfigSHA256 || !slices.Equal(a.Made.Data, l.Made.Data) {
		t.Errorf("config.json differs:\nCLI     %+v\nlibrary %+v", a, l)
	}
}

package runner

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data/synth"
	"github.com/geoalign/geoalign/lib/models"
	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/geoalign/geoalign/lib/rundir"
)

// A run directory is only resumed by the run it holds: another configuration, model or data is an
// error naming config.json and the field, and leaves the directory as it was; a directory of other
// files is not made a run.
func TestTrainRefusesAnotherRun(t *testing.T) {
	d, err := gram.SyntheticTriModal(synth.TriModalConfig{Seed: 1, Depth: 2, Branching: 3, LatentDim: 8, LevelDecay: 0.6,
		Dims: [3]int{6, 7, 8}, N: 100, Noise: [3]float64{0.1, 0.1, 0.1}}, 20)
	if err != nil {
		t.Fatal(err)
	}
	if d.Train, d.Val, err = gram.CarveValidation(d.Train, 0.1); err != nil {
		t.Fatal(err)
	}
	cfg := gram.DefaultConfig()
	cfg.Epochs, cfg.BatchSize, cfg.Hidden, cfg.ContraDim, cfg.MatchHidden = 1, 16, 16, 8, 8
	spec := func(c gram.Config, model string, src Source) Spec {
		raw, err := json.Marshal(struct{ Model gram.Config }{c})
		if err != nil {
			t.Fatal(err)
		}
		return Spec{Model: model, Data: src, Config: raw}
	}
	newRun := func(c gram.Config) models.Run {
		r, err := gram.NewRun(backend.MustNew(), c, d, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := Train(dir, spec(cfg, "gram", Source{}), newRun(cfg), models.Output{Quiet: true}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, ConfigFile))
	other := cfg
	other.LearningRate *= 2
	for _, c := range []struct {
		spec Spec
		want string
	}{
		{spec(other, "gram", Source{}), "config: the run has another configuration"},
		{spec(cfg, "hypergram", Source{}), "model: "},
		{spec(cfg, "gram", Source{Dir: "/elsewhere"}), "data: "},
		{func() Spec {
			s := spec(cfg, "gram", Source{})
			s.From = &From{Dir: "/stage1", ConfigSHA256: "ab"}
			return s
		}(), "from: "},
	} {
		_, err := Train(dir, c.spec, newRun(cfg), models.Output{Quiet: true})
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, ConfigFile)+": "+c.want) {
			t.Errorf("%s: %v, want an error naming %s and %q", c.spec.Model, err, ConfigFile, c.want)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(dir, ConfigFile)); string(after) != string(before) {
		t.Error("a refused run changed config.json")
	}
	// While this process holds the run, a second Train on it is refused, naming the lock.
	held, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var busy *rundir.BusyError
	if _, err := Train(dir, spec(cfg, "gram", Source{}), newRun(cfg), models.Output{Quiet: true}); !errors.As(err, &busy) {
		t.Errorf("Train on a locked run: %v, want a *rundir.BusyError", err)
	}
	held.Close()
	// A warm-started run names its source in config.json: the source's directory and configuration hash.
	from, err := FromDir(dir)
	stored, _ := ReadSpec(dir)
	if err != nil || from.Dir != dir || from.ConfigSHA256 != stored.Made.ConfigSHA256 {
		t.Fatalf("FromDir: %+v, %v", from, err)
	}
	src, warm := newRun(cfg), newRun(cfg)
	if err := LoadBest(dir, src); err != nil {
		t.Fatal(err)
	}
	if err := warm.(models.WarmStarter).WarmStart(src); err != nil {
		t.Fatal(err)
	}
	ws := spec(cfg, "gram", Source{})
	ws.From = from
	warmDir := filepath.Join(t.TempDir(), "warm")
	if _, err := Train(warmDir, ws, warm, models.Output{Quiet: true}); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadSpec(warmDir); err != nil || got.From == nil || *got.From != *from {
		t.Errorf("the warm run's config.json names %+v, want %+v", got.From, from)
	}
	mine := t.TempDir()
	os.WriteFile(filepath.Join(mine, "notes.txt"), []byte("a researcher's file"), 0o644)
	if _, err := Train(mine, spec(cfg, "gram", Source{}), newRun(cfg), models.Output{Quiet: true}); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("Train into a directory of other files: %v, want ErrNotEmpty", err)
	}
	if _, err := os.Stat(filepath.Join(mine, rundir.LockFile)); !errors.Is(err, os.ErrNotExist) {
		t.Error("a lock file was left in a directory of other files")
	}
}

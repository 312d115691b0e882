package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/progress"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/runcache"
	"github.com/geoalign/geoalign/lib/runner"
)

func init() {
	register("sweep", "train a grid of configurations × seeds as geoalign train runs and tabulate them (geoalign sweep -h)", sweepMain)
}

// sweepUsage is `geoalign sweep -h`. The sweeps behind the studies' budgets, as sweep commands:
// docs/tuning.md.
const sweepUsage = `usage: geoalign sweep <model> <the data flags of geoalign train <model>>
       --grid 'Model.LearningRate=1e-4,3e-4;Model.Epochs=4,8' [--config FILE.json] [--seeds 0,1,2]
       [--warm-start RUNDIR] [--runs DIR] --out DIR

Trains every setting of the grid (axes separated by ';', each a field path of the JSON that
geoalign train <model> --print-config prints and its values: JSON, or bare strings) over the base
configuration (defaults, then --config) with every seed, each through geoalign train into its own
run directory under --runs (keyed by model, backend, data, configuration and --warm-start: a
finished run is reused, an interrupted one resumed; geoalign eval --run opens any of them). Then it writes to --out
the table sweep.{md,csv,json} — per setting the seeds' best validation epochs, the validation SumR
there and the test SumR of that checkpoint, mean ± sd over seeds (the model is selected on
validation only) — and curves-<row>.png, the training loss and validation SumR per epoch of each
setting. --warm-start RUNDIR starts every point from one run directory of its own (geoalign train
--warm-start): GARE's stage 1 (a geoalign train gare run of the baseline), or GRAM's cosine run.`

// axis is one axis of a --grid: a field path of the configuration's JSON and its values.
type axis struct {
	path   string
	values []string
}

func sweepMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(stderr, sweepUsage)
		if len(args) == 0 || (args[0] != "-h" && args[0] != "--help" && args[0] != "-help") {
			return exitUsage
		}
		return exitOK
	}
	fail := failWith(stderr, "sweep")
	kind, ok := lookupModel(args[0])
	if !ok {
		return fail(exitUsage, "unknown model %q (one of %s)", args[0], modelNames())
	}
	fs := flag.NewFlagSet("sweep "+kind.name, flag.ContinueOnError)
	var f trainFlags
	f.dataFlags(fs, kind)
	grid := fs.String("grid", "", "`AXES`: 'Field.Path=v1,v2;Other.Field=w1,w2' over --print-config's JSON")
	seeds := fs.String("seeds", "", "comma-separated `SEEDS` of every setting (default: the configuration's seed)")
	runs := fs.String("runs", runcache.Root(runcache.InCheckout("build", "runs")), "run cache `DIR` (env "+runcache.CacheEnv+"); runs go to DIR/sweep")
	out := fs.String("out", "", "`DIR` for the table and the curves")
	fs.BoolVar(&f.quiet, "quiet", false, "no per-epoch lines")
	f.runFlags(fs)
	fs.Usage = func() { fmt.Fprintf(stderr, "%s\n\n%s\n\nFlags:\n", sweepUsage, kind.layout); fs.PrintDefaults() }
	if code, ok := parseFlags(fs, args[1:], stderr); !ok {
		return code
	}
	src, err := f.source(kind)
	switch {
	case err != nil:
		return fail(exitUsage, "%v", err)
	case src == (runner.Source{}):
		return fail(exitUsage, "the data flags are required (geoalign sweep %s -h)", kind.name)
	case *out == "" || *runs == "":
		return fail(exitUsage, "--out DIR and --runs DIR are required")
	}
	base := kind.defaults()
	if f.config != "" {
		if err := overlayConfigFile(base, f.config); err != nil {
			return fail(exitUsage, "%v", err)
		}
	}
	axes, err := parseGrid(*grid, kind, base)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	seedList := []int64{*base.run().Seed}
	if *seeds != "" {
		if seedList, err = parseSeeds(*seeds); err != nil {
			return fail(exitUsage, "%v", err)
		}
	}
	var from *runner.From
	if f.warm != "" {
		if from, err = runner.FromDir(f.warm); err != nil {
			return fail(exitUsage, "--warm-start: %v", err)
		}
	}
	if code, ok := checkBackend(stderr, fs.Name()); !ok {
		return code
	}
	settings := product(axes)
	cfgs := make([][]modelConfig, len(settings)) // every point checked before the first trains
	for i, s := range settings {
		for _, seed := range seedList {
			cfg, err := configure(kind, base, s, seed)
			if err == nil {
				err = validateKind(kind, cfg)
			}
			if err != nil {
				return fail(exitUsage, "setting %s: %v", label(s), err)
			}
			cfgs[i] = append(cfgs[i], cfg)
		}
	}
	dirs, trained := make([][]string, len(settings)), 0
	bar := progress.New("geoalign sweep "+kind.name, len(settings)*len(seedList))
	for i, s := range settings {
		for j, seed := range seedList {
			dir, fresh, err := sweepRun(kind, src, cfgs[i][j], from, *runs, f, stderr)
			if err != nil {
				return fail(exitFailure, "setting %s, seed %d: %v", label(s), seed, err)
			}
			if dir == "" {
				return fail(exitUsage, "setting %s, seed %d: geoalign train stopped (above)", label(s), seed)
			}
			dirs[i] = append(dirs[i], dir)
			if fresh {
				trained++
			}
			bar.Add(1, label(s))
		}
	}
	bar.Done()
	if err := renderSweep(*out, kind, src, settings, seedList, dirs, stderr); err != nil {
		return fail(exitFailure, "%v", err)
	}
	fmt.Fprintf(stderr, "geoalign sweep: %d runs under %s (%d trained or resumed, the others reused); table %s\n",
		len(settings)*len(seedList), filepath.Join(*runs, "sweep"), trained, filepath.Join(*out, "sweep.md"))
	return exitOK
}

// parseGrid parses --grid and checks every value of every axis against base: a path that
// --print-config does not print, or a value its field cannot hold, is an error naming it.
func parseGrid(grid string, kind modelKind, base modelConfig) ([]axis, error) {
	var axes []axis
	for _, a := range strings.Split(grid, ";") {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		path, vals, ok := strings.Cut(a, "=")
		if !ok || path == "" || vals == "" {
			return nil, fmt.Errorf("--grid: %q is not Field.Path=v1,v2,…", a)
		}
		ax := axis{path: strings.TrimSpace(path)}
		for _, v := range strings.Split(vals, ",") {
			ax.values = append(ax.values, strings.TrimSpace(v))
			if _, err := configure(kind, base, [][2]string{{ax.path, ax.values[len(ax.values)-1]}}, *base.run().Seed); err != nil {
				return nil, err
			}
		}
		axes = append(axes, ax)
	}
	if len(axes) == 0 {
		return nil, fmt.Errorf("--grid is required: 'Field.Path=v1,v2;…' (fields as geoalign train %s --print-config prints them)", kind.name)
	}
	return axes, nil
}

// product lists the settings of a grid, each a list of (field path, value), the last axis fastest.
func product(axes []axis) [][][2]string {
	out := [][][2]string{nil}
	for _, a := range axes {
		var next [][][2]string
		for _, s := range out {
			for _, v := range a.values {
				next = append(next, append(append([][2]string{}, s...), [2]string{a.path, v}))
			}
		}
		out = next
	}
	return out
}

// configure is base with the setting's values set through its JSON (so that a field takes what its
// JSON decoding accepts: a number, or a name where the field's type reads names) and the seed.
func configure(kind modelKind, base modelConfig, setting [][2]string, seed int64) (modelConfig, error) {
	raw, err := json.Marshal(base)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var root map[string]any
	if err := dec.Decode(&root); err != nil {
		return nil, err
	}
	for _, fv := range setting {
		m, parts := root, strings.Split(fv[0], ".")
		for i, p := range parts {
			x, ok := m[p]
			if !ok {
				return nil, fmt.Errorf("--grid: field %s: no such field in the configuration (geoalign train %s --print-config prints them)", fv[0], kind.name)
			}
			if i == len(parts)-1 {
				break
			}
			if m, ok = x.(map[string]any); !ok {
				return nil, fmt.Errorf("--grid: field %s: %s is not an object", fv[0], strings.Join(parts[:i+1], "."))
			}
		}
		v := json.RawMessage(fv[1])
		if !json.Valid(v) {
			v, _ = json.Marshal(fv[1]) // a bare string (e.g. an enum's name)
		}
		m[parts[len(parts)-1]] = v
		if raw, err = json.Marshal(root); err != nil {
			return nil, err
		}
		if err := decodeConfig(raw, kind.defaults(), "--grid field "+fv[0]+"="+fv[1]); err != nil {
			return nil, err
		}
	}
	cfg := kind.defaults()
	if err := decodeConfig(raw, cfg, "--grid"); err != nil {
		return nil, err
	}
	*cfg.run().Seed = seed
	return cfg, nil
}

// sweepRun trains cfg on src through `geoalign train` into its run directory under runs (named by
// the model, the backend, the data and the configuration): a run that finished (curves.png written)
// is reused as it is (trained = false), one that was interrupted resumed. dir is "" when train
// refused.
func sweepRun(kind modelKind, src runner.Source, cfg modelConfig, from *runner.From, runs string, f trainFlags, stderr io.Writer) (dir string, trained bool, err error) {
	raw, err := runcache.Canonical(struct {
		Model, Backend string
		Data           runner.Source
		Config         modelConfig
		From           *runner.From `json:",omitempty"` // --warm-start
	}{kind.name, backend.MustNew().Name(), src, cfg, from})
	if err != nil {
		return "", false, err
	}
	sum := sha256.Sum256(raw)
	dir = filepath.Join(runs, "sweep", kind.name+"-"+hex.EncodeToString(sum[:8]))
	if _, err := os.Stat(filepath.Join(dir, runner.CurvesFile)); err == nil {
		return dir, false, nil
	}
	tmp, err := os.CreateTemp("", "geoalign-sweep-*.json")
	if err != nil {
		return "", false, err
	}
	defer os.Remove(tmp.Name())
	b, err := json.Marshal(cfg)
	if err == nil {
		_, err = tmp.Write(b)
	}
	if err := errors.Join(err, tmp.Close()); err != nil {
		return "", false, err
	}
	args := append(append([]string{kind.name}, sourceArgs(src)...), "--config", tmp.Name(), "--out", dir, "--devices", strconv.Itoa(f.devices))
	if _, err := os.Stat(filepath.Join(dir, runner.ConfigFile)); err == nil {
		args = append(args, "--resume")
	}
	if f.quiet {
		args = append(args, "--quiet")
	}
	if from != nil {
		args = append(args, "--warm-start", from.Dir)
	}
	if code := trainMain(args, io.Discard, stderr); code != exitOK {
		if code == exitUsage {
			return "", false, nil
		}
		return "", false, fmt.Errorf("geoalign train %s exited %d", strings.Join(args, " "), code)
	}
	return dir, true, nil
}

// renderSweep writes the table and the curves of the sweep: per setting, the seeds' best
// validation epochs, the validation SumR at them and the test SumR of their checkpoints.
func renderSweep(out string, kind modelKind, src runner.Source, settings [][][2]string, seeds []int64, dirs [][]string, stderr io.Writer) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	t := report.NewTable(fmt.Sprintf("geoalign sweep %s: %d settings × %d seeds", kind.name, len(settings), len(seeds)), report.Provenance{
		Data: src.String(), Kind: data.Kind("user-supplied"), Seeds: seeds, Commit: reproduce.GitCommit(),
		Notes: []string{"Each run: geoalign train into the run directory listed; best epoch = the epoch of the best validation " + valMetric +
			" (model selection on the validation split only); test = geoalign eval --run of that checkpoint on the test split."},
	}, "setting", "seeds", "best epoch per seed", "val "+valMetric, "test "+valMetric, "curves", "runs")
	for i, s := range settings {
		var hs [][]runner.Epoch
		var best []string
		var val, test []float64
		for _, dir := range dirs[i] {
			h, err := runner.ReadHistory(dir)
			if err != nil {
				return err
			}
			b, ok := runner.Best(h)
			if !ok {
				return fmt.Errorf("%s: no validation record marked best", dir)
			}
			var buf bytes.Buffer
			if code := evalMain([]string{"--run", dir, "--json"}, &buf, stderr); code != exitOK {
				return fmt.Errorf("geoalign eval --run %s exited %d", dir, code)
			}
			var rep retrieval.Report
			if err := json.Unmarshal(buf.Bytes(), &rep); err != nil {
				return fmt.Errorf("geoalign eval --run %s: %w", dir, err)
			}
			hs, best = append(hs, h), append(best, strconv.Itoa(b.Epoch))
			val, test = append(val, b.Val[valMetric]), append(test, rep.T2V.SumR)
		}
		curves := fmt.Sprintf("curves-%d.png", i+1)
		if err := runner.WriteCurves(filepath.Join(out, curves), label(s), hs...); err != nil {
			return err
		}
		t.AddRow(label(s), len(seeds), strings.Join(best, ", "), report.Summarize(val).String(), report.Summarize(test).String(),
			curves, strings.Join(dirs[i], " "))
	}
	return t.Save(filepath.Join(out, "sweep"))
}

// label names a setting: "Field=v, Other=w".
func label(setting [][2]string) string {
	parts := make([]string, len(setting))
	for i, fv := range setting {
		parts[i] = fv[0] + "=" + fv[1]
	}
	return strings.Join(parts, ", ")
}

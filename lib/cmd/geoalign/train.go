package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/models"
	"github.com/geoalign/geoalign/lib/rundir"
	"github.com/geoalign/geoalign/lib/runner"
)

func init() {
	register("train", "train hlformer, gare, gram or hypergram on your own features (geoalign train -h)", trainMain)
}

// gpuHelp is the part of `geoalign train -h` about devices; README "Use your own features" says
// the same.
const gpuHelp = `Devices: the backend is chosen by GOMLX_BACKEND, never by the code:
  GOMLX_BACKEND=go                 pure-Go CPU backend (build with GOEXPERIMENT=simd)
  GOMLX_BACKEND=xla:cuda           NVIDIA GPU through XLA/PJRT (plugin pjrt_c_api_cuda_plugin.so found in
                                   PJRT_PLUGIN_LIBRARY_PATH, ~/.local/lib/go-xla, /usr/local/lib/go-xla or
                                   the system library paths)
  GOMLX_BACKEND=xla:/abs/path/to/plugin.so   an explicit PJRT plugin, e.g. the one a JAX install ships:
                                   xla:$VENV/lib/python3.X/site-packages/jax_plugins/xla_cuda12/xla_cuda_plugin.so
                                   (it finds pip's nvidia-* CUDA libraries in site-packages/nvidia; if XLA does
                                   not: XLA_FLAGS=--xla_gpu_cuda_data_dir=$VENV/.../site-packages/nvidia)
  options after a comma: xla:cuda,preallocate=false,memory_fraction=0.5,visible_devices=1
  GOMLX_NO_AUTO_INSTALL=1          never download a PJRT plugin (else GoMLX may fetch one)
  XLA's CPU plugin (make setup): GOMLX_BACKEND=xla:$PWD/build/pjrt/pjrt_c_api_cpu_plugin.so
--devices N trains data-parallel on N devices (XLA only): the single-graph training step is
partitioned by XLA over the batch axis, variables replicated, gradients all-reduced by XLA
(docs/xla.md §3); the numbers are those of one device up to the order of sums.`

func trainUsage(w io.Writer) {
	fmt.Fprintf(w, `usage: geoalign train <model> [flags]     models: %s
       geoalign train <model> -h           data format and flags of one model
       geoalign train <model> --print-config   the default configuration (the official code's values) as JSON

Trains a model on features you bring into a run directory (--out RUNDIR: config.json, GoMLX
checkpoints with the best validation epoch in best/, history.json, training_plot_points.json for
gomlx_checkpoints -metrics -plot RUNDIR, curves.png), validating after every epoch on a validation
split (never the test split), keeping the best epoch, stopping early, checkpointing atomically;
--resume continues a killed run to the numbers an uninterrupted one ends with. Then:
geoalign eval --run RUNDIR.

`, modelNames())
	for _, k := range modelKinds {
		fmt.Fprintf(w, "  %-10s %s\n", k.name, k.summary)
	}
	fmt.Fprintf(w, "\n%s\n", gpuHelp)
}

// trainFlags are `geoalign train <model>`'s flags.
type trainFlags struct {
	data, root, collection, visual, text string
	out, config, warm                    string
	printConfig, resume, quiet           bool
	notes                                []string // what resuming had to say (printed unless quiet)
	epochs, devices                      int
	seed                                 int64
	set                                  map[string]bool
}

func trainMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" || args[0] == "help" {
		trainUsage(stderr)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	kind, ok := lookupModel(args[0])
	if !ok {
		fmt.Fprintf(stderr, "geoalign train: unknown model %q (one of %s; geoalign train -h)\n", args[0], modelNames())
		return exitUsage
	}
	name := "geoalign train " + kind.name
	fail := failWith(stderr, "train "+kind.name) // shadows main.go's fail: the code is chosen here
	fs := flag.NewFlagSet("train "+kind.name, flag.ContinueOnError)
	var f trainFlags
	f.dataFlags(fs, kind)
	fs.StringVar(&f.out, "out", "", "run directory `RUNDIR` to create (or to continue with --resume)")
	fs.BoolVar(&f.printConfig, "print-config", false, "print the default configuration (the official code's values) as JSON and exit")
	fs.IntVar(&f.epochs, "epochs", 0, "number of epochs (overrides the configuration)")
	fs.Int64Var(&f.seed, "seed", 0, "random seed: initialisation, batches, dropout (overrides the configuration)")
	fs.BoolVar(&f.resume, "resume", false, "continue RUNDIR from its last complete checkpoint (without it, an existing non-empty RUNDIR is an error)")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress bar and no per-epoch lines")
	f.runFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s --out RUNDIR [flags]\n\n%s\n\n%s\n\nFlags:\n", name, kind.summary, kind.layout)
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "\n%s\n", gpuHelp)
	}
	if code, ok := parseFlags(fs, args[1:], stderr); !ok {
		return code
	}
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })

	cfg := kind.defaults()
	if f.printConfig {
		if f.config != "" {
			if err := overlayConfigFile(cfg, f.config); err != nil {
				return fail(exitUsage, "%v", err)
			}
		}
		if err := printConfig(stdout, cfg); err != nil {
			return fail(exitFailure, "%v", err)
		}
		return exitOK
	}
	if f.out == "" {
		return fail(exitUsage, "--out RUNDIR is required")
	}
	if f.devices < 1 {
		return fail(exitUsage, "--devices %d: want ≥ 1", f.devices)
	}
	if have := backend.MustNew().NumDevices(); f.devices > have {
		return fail(exitUsage, "--devices %d: backend %s has %d device(s) (several devices need XLA: GOMLX_BACKEND=xla:…, docs/xla.md §3)",
			f.devices, backend.MustNew().Name(), have)
	}
	src, err := f.source(kind)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	// An existing run directory is locked before anything is read from it: a second process on
	// the same RUNDIR stops here, naming the first, and changes nothing.
	d, err := runner.Open(f.out)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	defer d.Close()
	empty, err := rundir.IsEmpty(f.out)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	fresh := !f.resume
	if f.resume && empty { // killed before its config.json was complete: nothing to continue
		fmt.Fprintf(stderr, "%s: %s holds no %s (a run stopped before writing it): starting the run\n", name, f.out, runner.ConfigFile)
		fresh = true
	}
	if fresh {
		if !empty {
			return fail(exitUsage, "%s exists and is not empty: continue it with --resume, or choose another --out", f.out)
		}
		if src == (runner.Source{}) {
			if kind.prvr {
				return fail(exitUsage, "--data-root, --collection and --visual-feature are required")
			}
			return fail(exitUsage, "--data DIR is required")
		}
		if f.config != "" {
			if err := overlayConfigFile(cfg, f.config); err != nil {
				return fail(exitUsage, "%v", err)
			}
		}
		f.apply(cfg)
	} else {
		spec, err := f.resumeSpec(kind, cfg, src)
		if err != nil {
			return fail(exitUsage, "%v", err)
		}
		src = spec.Data
		if err := f.resumeWarm(spec); err != nil {
			return fail(exitUsage, "%v", err)
		}
		notes, err := spec.Check(f.out)
		if err != nil {
			return fail(exitUsage, "%v", err)
		}
		for _, n := range append(f.notes, notes...) {
			fmt.Fprintln(stderr, "note:", n)
		}
	}
	rf := cfg.run()
	if *rf.Epochs < 1 {
		return fail(exitUsage, "epochs = %d: need at least 1", *rf.Epochs)
	}
	if err := validateKind(kind, cfg); err != nil {
		return fail(exitUsage, "%v", err)
	}

	if code, ok := checkBackend(stderr, fs.Name()); !ok {
		return code
	}
	run, err := cfg.open(backend.MustNew(), src, true)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	if !f.quiet {
		for _, n := range run.Notes() {
			fmt.Fprintln(stderr, "note:", n)
		}
	}
	var from *runner.From
	if f.warm != "" {
		if from, err = warmStart(run, f.warm); err != nil {
			return fail(exitUsage, "%v", err)
		}
	}
	out := models.Output{Label: fmt.Sprintf("%s on %s", kind.name, src), Quiet: f.quiet || !isTerminal(stderr), Devices: f.devices}
	if !f.quiet {
		out.Log = stderr
	}
	raw, err := json.Marshal(cfg) // the configuration with the widths read from the data
	if err != nil {
		return fail(exitFailure, "%v", err)
	}
	res, err := d.Train(runner.Spec{Model: kind.name, Data: src, Config: raw, Notes: run.Notes(), From: from}, run, out)
	var busy *rundir.BusyError
	switch {
	case errors.As(err, &busy) || errors.Is(err, runner.ErrNotEmpty):
		return fail(exitUsage, "%v", err)
	case err != nil:
		return fail(exitFailure, "%v", err)
	}
	// A run that never beat random ranking on validation ends with a warning (exit 0), which its
	// config.json notes and history.json carry.
	if res.Warning != "" {
		fmt.Fprintf(stderr, "%s: warning: %s\n", name, res.Warning)
	}
	if res.Best != nil && !f.quiet {
		fmt.Fprintf(stderr, "%s: %d epochs; best validation %s %.2f at epoch %d\nevaluate it: geoalign eval --run %s --json\n",
			name, res.Records[len(res.Records)-1].Epoch, valMetric, res.Best.Val[valMetric], res.Best.Epoch, f.out)
	}
	return exitOK
}

// dataFlags defines on fs the data flags of kind and --config: those `geoalign train` and
// `geoalign sweep` share.
func (f *trainFlags) dataFlags(fs *flag.FlagSet, kind modelKind) {
	if kind.prvr {
		fs.StringVar(&f.root, "data-root", "", "`DIR` holding the collection (the official data_root)")
		fs.StringVar(&f.collection, "collection", "", "collection `NAME` (e.g. charades, tvr, activitynet)")
		fs.StringVar(&f.visual, "visual-feature", "", "video feature `NAME` under DIR/NAME/FeatureData (e.g. i3d_rgb_lgi)")
		fs.StringVar(&f.text, "text-feature", "", "query-feature HDF5 `FILE` under DIR/NAME/TextData (default roberta_<collection>_query_feat.hdf5)")
	} else {
		fs.StringVar(&f.data, "data", "", "feature `DIR` (format above)")
	}
	fs.StringVar(&f.config, "config", "", "JSON `FILE` overriding any field of --print-config's output (unknown fields are an error)")
}

// runFlags defines on fs the flags `geoalign train` and `geoalign sweep` share besides the data's.
func (f *trainFlags) runFlags(fs *flag.FlagSet) {
	fs.IntVar(&f.devices, "devices", 1, "train data-parallel on `N` devices of the backend (XLA: GOMLX_BACKEND=xla:…; the Go backend has 1)")
	fs.StringVar(&f.warm, "warm-start", "", "start from the best checkpoint of the run directory `RUNDIR` (gram, hypergram: its encoders and contra "+
		"heads, GRAM's cosine-then-volume recipe; gare: its encoders, stage 1 of the two-stage protocol); config.json names it")
}

// warmStart starts run from the best checkpoint of the run directory dir (models.WarmStarter) and
// names dir for config.json (runner.Spec.From).
func warmStart(run models.Run, dir string) (*runner.From, error) {
	ws, ok := run.(models.WarmStarter)
	if !ok {
		return nil, fmt.Errorf("--warm-start: this model has no warm start (gram, hypergram and gare have)")
	}
	spec, err := runner.ReadSpec(dir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, runner.ConfigFile)
	kind, ok := lookupModel(spec.Model)
	if !ok {
		return nil, fmt.Errorf("%s: unknown model %q", path, spec.Model)
	}
	cfg := kind.defaults()
	if err := decodeConfig(spec.Config, cfg, path); err != nil {
		return nil, err
	}
	if _, err := spec.Check(dir); err != nil {
		return nil, err
	}
	src, err := cfg.open(backend.MustNew(), spec.Data, false)
	if err == nil {
		err = runner.LoadBest(dir, src)
	}
	if err == nil {
		err = ws.WarmStart(src)
	}
	if err != nil {
		return nil, fmt.Errorf("--warm-start %s: %w", dir, err)
	}
	return runner.FromDir(dir)
}

// resumeWarm sets --warm-start to the source the resumed run started from (a run killed before its
// first checkpoint starts from it again); a --warm-start naming another source is an error.
func (f *trainFlags) resumeWarm(spec *runner.Spec) error {
	path := filepath.Join(f.out, runner.ConfigFile)
	if spec.From == nil {
		if f.warm != "" {
			return fmt.Errorf("--warm-start %s: %s did not start warm; give the command line that started it, with --resume added", f.warm, path)
		}
		return nil
	}
	if f.warm != "" {
		if abs, err := filepath.Abs(f.warm); err != nil || abs != spec.From.Dir {
			return fmt.Errorf("--warm-start %s: %s started from %s", f.warm, path, spec.From.Dir)
		}
	}
	f.warm = spec.From.Dir
	return nil
}

// sourceArgs are the data flags naming s (the inverse of trainFlags.source).
func sourceArgs(s runner.Source) []string {
	if s.Dir != "" {
		return []string{"--data", s.Dir}
	}
	a := []string{"--data-root", s.Root, "--collection", s.Collection, "--visual-feature", s.VisualFeature}
	if s.TextFeature != "" {
		a = append(a, "--text-feature", s.TextFeature)
	}
	return a
}

// source is the data named by the flags (absolute paths), or the zero value when none is given.
func (f *trainFlags) source(kind modelKind) (runner.Source, error) {
	var s runner.Source
	abs := func(p string) (string, error) {
		if p == "" {
			return "", nil
		}
		return filepath.Abs(p)
	}
	var err error
	if kind.prvr {
		if s.Root, err = abs(f.root); err != nil {
			return s, err
		}
		s.Collection, s.VisualFeature, s.TextFeature = f.collection, f.visual, f.text
		if s != (runner.Source{}) && (s.Root == "" || s.Collection == "" || s.VisualFeature == "") {
			return s, fmt.Errorf("--data-root, --collection and --visual-feature go together")
		}
		return s, nil
	}
	s.Dir, err = abs(f.data)
	return s, err
}

// apply sets the fields the flags override.
func (f *trainFlags) apply(cfg modelConfig) {
	rf := cfg.run()
	if f.set["epochs"] {
		*rf.Epochs = f.epochs
	}
	if f.set["seed"] {
		*rf.Seed = f.seed
	}
}

// resumeSpec loads RUNDIR/config.json into cfg for --resume and returns it. The command line
// may be the one that started the run, or a part of it: the stored configuration with --config
// and the flags applied over it must be the stored configuration (a resumed run keeps its
// configuration, so that it ends as the uninterrupted run would have); the error names every
// field that differs. Data flags, when given, must name the run's data.
func (f *trainFlags) resumeSpec(kind modelKind, cfg modelConfig, src runner.Source) (*runner.Spec, error) {
	spec, err := runner.ReadSpec(f.out)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(f.out, runner.ConfigFile)
	if spec.Model != kind.name {
		return nil, fmt.Errorf("%s: %s is a %s run, not %s", path, f.out, spec.Model, kind.name)
	}
	if err := decodeConfig(spec.Config, cfg, path); err != nil {
		return nil, err
	}
	again := kind.defaults()
	if err := decodeConfig(spec.Config, again, path); err != nil {
		return nil, err
	}
	if note := legacyDefaults(spec.Config, cfg); note != "" {
		legacyDefaults(spec.Config, again)
		f.notes = append(f.notes, note)
	}
	if f.config != "" {
		if err := overlayConfigFile(again, f.config); err != nil {
			return nil, err
		}
	}
	f.apply(again)
	diffs, err := configDiff(kind.defaults(), cfg, again)
	if err != nil {
		return nil, err
	}
	if len(diffs) > 0 {
		return nil, fmt.Errorf("the command line changes the configuration in %s (%s): a resumed run keeps its configuration; "+
			"give the command line that started it, with --resume added", path, strings.Join(diffs, "; "))
	}
	if src != (runner.Source{}) && src != spec.Data {
		return nil, fmt.Errorf("the data flags name %s, but %s was trained on %s", src, path, spec.Data)
	}
	return spec, nil
}

// overlayConfigFile decodes the JSON file path over cfg.
func overlayConfigFile(cfg modelConfig, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return decodeConfig(b, cfg, path)
}

// isTerminal reports whether w is a character device (a terminal): the progress bar redraws its
// line with '\r', which only a terminal shows as intended.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

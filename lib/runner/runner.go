// Package runner trains a models.Run into a run directory: the one place where `geoalign train`,
// `geoalign sweep` and the studies make the directory that `geoalign eval --run` opens (the
// README's "Use your own features"):
//
//	config.json                        Spec: model, data, the whole configuration, the record of
//	                                   what made the run (lib/rundir.Record); written first
//	.geoalign-lock                     the lock of the process using the run (its PID; lib/rundir)
//	checkpoint-*.{json,bin}, best/     GoMLX checkpoints (the latest, and the best validation epoch)
//	history.json                       per-epoch loss and validation metrics (train.HistoryFile)
//	training_plot_points.json          the same for `gomlx_checkpoints -metrics -plot RUNDIR`
//	curves.png                         training loss and validation SumR per epoch (the loss alone
//	                                   for a run without validation), when training ends
//
// A run is fresh (an absent or empty directory: config.json is written first, with the record) or
// resumed (a directory holding config.json: the loop continues from its last checkpoint to the
// numbers an uninterrupted run ends with; a finished run returns its result). A run whose
// validation never beat a random ranking ends with a warning, which config.json's notes and
// history.json's last record carry.
package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/models"
	"github.com/geoalign/geoalign/lib/rundir"
	"github.com/geoalign/geoalign/lib/train"
)

const (
	// ConfigFile is the run directory's Spec (JSON), the first file a run holds.
	ConfigFile = "config.json"
	// CurvesFile is the learning curves (PNG), written when training ends: a run directory that
	// holds it has finished.
	CurvesFile = "curves.png"
)

// ErrNotEmpty reports a directory that holds other files than a run's: it is not made a run.
var ErrNotEmpty = errors.New("not empty")

// Result is what Train returns: the loop's result (1-based records, the best one) and the
// degenerate-run warning ("" when the run beat a random ranking on validation).
type Result struct {
	*train.Result
	Warning string
}

// Train trains run (built from spec.Config on spec.Data) into the run directory dir, fresh or
// resumed, and writes its curves: what `geoalign train <spec.Model> --out dir` does. A resumed
// run must be the run of spec: the same model, data, warm start's source (Spec.From, for a run the
// caller warm-started with models.WarmStarter) and configuration (sha256 of its canonical JSON),
// and its record must check (Spec.Check); otherwise the error names the file and field.
// out.Dir is set to dir; an empty out.Label becomes "<model> on <data>". Two processes never train
// one directory: the second gets a *rundir.BusyError naming the first.
func Train(dir string, spec Spec, run models.Run, out models.Output) (*Result, error) {
	d, err := Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	if _, err := os.Stat(filepath.Join(dir, ConfigFile)); err == nil {
		stored, err := ReadSpec(dir)
		if err != nil {
			return nil, err
		}
		if err := sameRun(dir, stored, &spec); err != nil {
			return nil, err
		}
		notes, err := stored.Check(dir)
		if err != nil {
			return nil, err
		}
		if out.Log != nil {
			for _, n := range notes {
				fmt.Fprintln(out.Log, "note:", n)
			}
		}
	}
	return d.Train(spec, run, out)
}

// LoadBest copies the checkpoint of the best validation of the run in dir into run's store: the
// model `geoalign eval --run dir` evaluates, e.g. as a warm start's source (models.WarmStarter,
// Spec.From = FromDir(dir)). run must be built from dir's configuration.
func LoadBest(dir string, run models.Run) error {
	best, err := train.LoadStore(filepath.Join(dir, train.BestDir))
	if err != nil {
		return fmt.Errorf("%w (has the run %s finished an epoch?)", err, dir)
	}
	return train.CopyVariables(run.Store(), best)
}

// sameRun checks that the run stored in dir is the run of spec.
func sameRun(dir string, stored, spec *Spec) error {
	path := filepath.Join(dir, ConfigFile)
	if stored.Model != spec.Model {
		return fmt.Errorf("%s: model: %s is a %s run, not %s", path, dir, stored.Model, spec.Model)
	}
	if stored.Data != spec.Data {
		return fmt.Errorf("%s: data: the run was trained on %s, not %s", path, stored.Data, spec.Data)
	}
	if (stored.From == nil) != (spec.From == nil) || (stored.From != nil && *stored.From != *spec.From) {
		return fmt.Errorf("%s: from: the run started from %s, not %s", path, fromString(stored.From), fromString(spec.From))
	}
	a, err := rundir.ConfigHash(stored.Config)
	if err != nil {
		return fmt.Errorf("%s: config: %w", path, err)
	}
	if b, err := rundir.ConfigHash(spec.Config); err != nil || a != b {
		return fmt.Errorf("%s: config: the run has another configuration (sha256 %.12s…) than the one given (%.12s…): a resumed run keeps its configuration", path, a, b)
	}
	return nil
}

func fromString(f *From) string {
	if f == nil {
		return "its own initialisation"
	}
	return fmt.Sprintf("the run %s (config sha256 %.12s…)", f.Dir, f.ConfigSHA256)
}

// Dir is a run directory this process uses: locked when it is one (Open).
type Dir struct {
	path string
	lock *rundir.Lock
}

// Open takes the lock of dir when dir exists and is a run directory (it holds config.json, or
// nothing but housekeeping: a lock file is never left in a directory of other files) before
// anything is read from it; a second process on it gets a *rundir.BusyError naming the first. A
// directory that does not exist yet is locked when Train creates it. Close the Dir when done.
func Open(dir string) (*Dir, error) {
	d := &Dir{path: dir}
	if isRunDir(dir) {
		var err error
		if d.lock, err = rundir.Acquire(dir); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// Close releases the lock.
func (d *Dir) Close() {
	if d.lock != nil {
		d.lock.Release()
		d.lock = nil
	}
}

// Train trains run into d: fresh when d is empty (config.json, spec with its record, is written
// first), resumed when it holds a run (the caller has checked that it is spec's run: Train, or
// `geoalign train --resume`). Then it writes curves.png and records the degenerate-run warning (a
// run without validation, whose metric is its own — lib/hierarchy's reconstruction — has none).
// A failure to create the run is a *rundir.BusyError or wraps ErrNotEmpty when another process
// made the directory meanwhile.
func (d *Dir) Train(spec Spec, run models.Run, out models.Output) (*Result, error) {
	empty, err := rundir.IsEmpty(d.path)
	switch {
	case err != nil:
		return nil, err
	case empty:
		if err := d.create(spec); err != nil {
			return nil, err
		}
	default:
		if _, err := os.Stat(filepath.Join(d.path, ConfigFile)); err != nil {
			return nil, fmt.Errorf("%s: %w and holds no %s: not a run directory", d.path, ErrNotEmpty, ConfigFile)
		}
		if err := rundir.Clean(d.path, train.BestDir); err != nil {
			return nil, err
		}
	}
	out.Dir = d.path
	if out.Label == "" {
		out.Label = fmt.Sprintf("%s on %s", spec.Model, spec.Data)
	}
	res, err := run.Train(out)
	if err != nil {
		return nil, err
	}
	h, err := ReadHistory(d.path)
	if err != nil {
		return nil, err
	}
	if err := WriteCurves(filepath.Join(d.path, CurvesFile), out.Label, h); err != nil {
		return nil, err
	}
	if !validated(h) { // a run whose metric is its own selects nothing (lib/hierarchy): no bar to check
		return &Result{Result: res}, nil
	}
	val, err := run.Evaluate("val", false)
	if err != nil {
		return nil, err
	}
	w := degenerateWarning(h, val)
	if w != "" {
		if err := recordWarning(d.path, w); err != nil {
			return nil, err
		}
	}
	return &Result{Result: res, Warning: w}, nil
}

// create makes d (locked: its lock, or one taken here when d did not exist) and writes its
// config.json — spec with the record of what made the run (rundir.Record) — the first thing a run
// holds: from then on a resume can continue it.
func (d *Dir) create(spec Spec) error {
	rec, err := spec.record()
	if err != nil {
		return err
	}
	if d.lock == nil {
		if err := os.MkdirAll(d.path, 0o755); err != nil {
			return err
		}
		if d.lock, err = rundir.Acquire(d.path); err != nil {
			return err
		}
		if empty, err := rundir.IsEmpty(d.path); err != nil || !empty {
			d.Close()
			if err == nil {
				err = fmt.Errorf("%s: %w: another process created it meanwhile; choose another --out", d.path, ErrNotEmpty)
			}
			return err
		}
	}
	if err := rundir.Clean(d.path); err != nil {
		return err
	}
	spec.Made = rec
	return atomicfile.WriteJSON(filepath.Join(d.path, ConfigFile), spec)
}

// isRunDir reports whether dir exists and holds a config.json or nothing but housekeeping.
func isRunDir(dir string) bool {
	if _, err := os.Stat(dir); err != nil {
		return false
	}
	if _, err := os.Stat(filepath.Join(dir, ConfigFile)); err == nil {
		return true
	}
	empty, err := rundir.IsEmpty(dir)
	return err == nil && empty
}

package main

// This file is `geoalign train`'s training loop until lib/train holds the engine's one loop
// (early stopping on validation, NaN guard, atomic checkpoints with fallback, resume): it is the
// only file that changes when `train` moves onto it. The models supply a trainable (train_*.go);
// the loop supplies epochs, validation after each, early stopping, checkpoints and resume.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/geoalign/geoalign/lib/progress"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/checkpoint"
)

// trainable is one model on one data set, as the loop sees it.
type trainable interface {
	// Store holds everything a checkpoint must hold: weights, optimizer moments, step counter and
	// the RNG state (dropout, negative sampling), so that a resumed run continues bit for bit.
	Store() *model.Store
	// StepsPerEpoch is the number of optimizer steps of one epoch.
	StepsPerEpoch() int
	// TrainEpoch runs epoch e (0-based) on batches drawn from (seed, e) only, calling onStep with
	// each step's loss, and returns the epoch's mean loss.
	TrainEpoch(e int, onStep func(loss float64)) (float64, error)
	// Validate evaluates the validation split with the current weights.
	Validate() (retrieval.Report, error)
}

// loopOptions control runLoop.
type loopOptions struct {
	Dir      string    // RUNDIR
	Epochs   int       // epochs of the whole run
	Patience int       // stop after this many epochs without a better validation SumR (0: never)
	Bar      bool      // a progress bar with ETA per epoch (on a terminal)
	Log      io.Writer // one line per epoch (nil: quiet)
}

// epochRecord is one epoch of history.json.
type epochRecord struct {
	Epoch   int              `json:"epoch"` // 1-based
	Loss    float64          `json:"loss"`  // mean training loss
	Val     retrieval.Report `json:"val"`   // validation metrics after the epoch
	Seconds float64          `json:"seconds"`
}

// runState is a checkpoint's state.json: where the run stands after its last finished epoch.
type runState struct {
	Epochs    int           `json:"epochs"`     // epochs finished
	BestEpoch int           `json:"best_epoch"` // 1-based epoch of the best validation SumR (0: none yet)
	BestSumR  float64       `json:"best_val_sumr"`
	BadEpochs int           `json:"bad_epochs"` // epochs since the best one
	Finished  bool          `json:"finished"`
	Stopped   string        `json:"stopped,omitempty"`
	History   []epochRecord `json:"history"`
}

// Names inside RUNDIR.
const (
	checkpointsDir = "checkpoints"
	stagingDir     = ".staging"
	stateFile      = "state.json"
	historyFile    = "history.json"
	curvesFile     = "curves.png"
	epochPrefix    = "epoch-"
)

func epochDir(run string, e int) string {
	return filepath.Join(run, checkpointsDir, fmt.Sprintf("%s%04d", epochPrefix, e))
}

// selectionMetric is what early stopping and "best" compare: text→video SumR on validation
// (HLFormer's rule; GARE and GRAM select by text→video recall too).
func selectionMetric(r retrieval.Report) float64 { return r.T2V.SumR }

// runLoop trains tr from the state st (restored by restoreLatest, or the zero state) until
// Epochs, early stopping or a NaN loss. After every epoch it writes a checkpoint of the store
// and the state atomically (a directory renamed into place), then history.json and the curves.
func runLoop(tr trainable, st *runState, o loopOptions) error {
	saver, err := newSaver(tr.Store(), o.Dir)
	if err != nil {
		return err
	}
	start, first := time.Now(), st.Epochs
	for e := st.Epochs; e < o.Epochs && !st.Finished; e++ {
		t0 := time.Now()
		var bar *progress.Bar
		if o.Bar {
			bar = progress.New(fmt.Sprintf("epoch %d/%d", e+1, o.Epochs), tr.StepsPerEpoch())
		}
		var sum float64
		var n int
		loss, err := tr.TrainEpoch(e, func(l float64) {
			sum, n = sum+l, n+1
			if bar != nil {
				bar.Add(1, fmt.Sprintf("loss %.4f", sum/float64(n)))
			}
		})
		if bar != nil {
			bar.Done()
		}
		if err != nil {
			return fmt.Errorf("epoch %d: %w", e+1, err)
		}
		if math.IsNaN(loss) || math.IsInf(loss, 0) {
			return fmt.Errorf("epoch %d: training loss is %v; the last good checkpoint (epoch %d) is kept", e+1, loss, st.Epochs)
		}
		val, err := tr.Validate()
		if err != nil {
			return fmt.Errorf("epoch %d: validation: %w", e+1, err)
		}
		rec := epochRecord{Epoch: e + 1, Loss: loss, Val: val, Seconds: time.Since(t0).Seconds()}
		st.Epochs, st.History = e+1, append(st.History, rec)
		if m := selectionMetric(val); st.BestEpoch == 0 || m > st.BestSumR {
			st.BestEpoch, st.BestSumR, st.BadEpochs = e+1, m, 0
		} else {
			st.BadEpochs++
		}
		switch {
		case o.Patience > 0 && st.BadEpochs >= o.Patience:
			st.Finished, st.Stopped = true, fmt.Sprintf("early stop after epoch %d: no better validation SumR for %d epochs", e+1, st.BadEpochs)
		case st.Epochs == o.Epochs:
			st.Finished, st.Stopped = true, fmt.Sprintf("completed %d epochs", o.Epochs)
		}
		if err := saver.save(st); err != nil {
			return err
		}
		if o.Log != nil {
			best := ""
			if st.BestEpoch == e+1 {
				best = "  (best)"
			}
			eta := ""
			if left := o.Epochs - st.Epochs; left > 0 && !st.Finished {
				per := time.Since(start) / time.Duration(st.Epochs-first)
				eta = fmt.Sprintf("  eta %s", (per * time.Duration(left)).Round(time.Second))
			}
			fmt.Fprintf(o.Log, "epoch %d/%d  loss %.4f  val %s%s  %.1f s%s\n", e+1, o.Epochs, loss, shortMetrics(val.T2V), best, rec.Seconds, eta)
		}
	}
	return nil
}

// shortMetrics is R@K and SumR on one line.
func shortMetrics(m retrieval.Metrics) string {
	var b strings.Builder
	for i, k := range m.Ks {
		fmt.Fprintf(&b, "R@%d %.1f ", k, m.Recall[i])
	}
	fmt.Fprintf(&b, "SumR %.1f", m.SumR)
	return b.String()
}

// saver writes checkpoints: GoMLX's checkpoint.Handler saves the store into RUNDIR/checkpoints/
// .staging, state.json is added, and the directory is renamed to epoch-NNNN — so a checkpoint
// directory exists complete or not at all, whatever instant the process is killed at. The last
// two and the best one are kept (the previous one is the fallback should the latest be damaged
// later); history.json and curves.png follow.
type saver struct {
	run, staging string
	handler      *checkpoint.Handler
}

func newSaver(store *model.Store, run string) (*saver, error) {
	s := &saver{run: run, staging: filepath.Join(run, checkpointsDir, stagingDir)}
	// A staging directory left by a killed run holds an incomplete checkpoint (the handler would
	// load it), and a killed atomic write leaves its temporary file: both go first.
	if err := os.RemoveAll(s.staging); err != nil {
		return nil, err
	}
	temps, _ := filepath.Glob(filepath.Join(run, ".*.tmp"))
	for _, tmp := range temps {
		if err := os.Remove(tmp); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(s.staging, 0o755); err != nil {
		return nil, err
	}
	var err error
	if s.handler, err = checkpoint.Build(store).Dir(s.staging).Keep(1).Done(); err != nil {
		return nil, fmt.Errorf("checkpoints in %s: %w", s.staging, err)
	}
	return s, nil
}

func (s *saver) save(st *runState) error {
	if err := s.handler.Save(); err != nil {
		return fmt.Errorf("saving the checkpoint of epoch %d: %w", st.Epochs, err)
	}
	b, err := json.MarshalIndent(st, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(s.staging, stateFile), b, 0o644); err != nil {
		return err
	}
	syncDir(s.staging)
	dst := epochDir(s.run, st.Epochs)
	if err := os.Rename(s.staging, dst); err != nil {
		return fmt.Errorf("committing the checkpoint of epoch %d: %w", st.Epochs, err)
	}
	syncDir(filepath.Dir(dst))
	if err := os.Mkdir(s.staging, 0o755); err != nil {
		return err
	}
	for _, e := range listEpochs(s.run) {
		if e < st.Epochs-1 && e != st.BestEpoch {
			if err := os.RemoveAll(epochDir(s.run, e)); err != nil {
				return err
			}
		}
	}
	if err := writeJSONAtomic(filepath.Join(s.run, historyFile), st.History); err != nil {
		return err
	}
	return writeCurves(filepath.Join(s.run, curvesFile), st.History)
}

// listEpochs returns the epochs of the complete checkpoints in RUNDIR, in increasing order.
func listEpochs(run string) []int {
	entries, _ := os.ReadDir(filepath.Join(run, checkpointsDir))
	var out []int
	for _, en := range entries {
		if !en.IsDir() || !strings.HasPrefix(en.Name(), epochPrefix) {
			continue
		}
		if e, err := strconv.Atoi(strings.TrimPrefix(en.Name(), epochPrefix)); err == nil && en.Name() == filepath.Base(epochDir(run, e)) {
			out = append(out, e)
		}
	}
	slices.Sort(out)
	return out
}

// readState reads the state.json of epoch e's checkpoint.
func readState(run string, e int) (*runState, error) {
	path := filepath.Join(epochDir(run, e), stateFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var st runState
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if st.Epochs != e || len(st.History) != e {
		return nil, fmt.Errorf("%s: records %d epochs (%d in its history) in the checkpoint of epoch %d", path, st.Epochs, len(st.History), e)
	}
	return &st, nil
}

// loadCheckpoint loads epoch e's checkpoint into store: variables the store already has (the RNG
// state, a model's eagerly created weights) are overwritten, and every other variable of the
// checkpoint is created. GoMLX's Immediate() option is not used: in v0.28.16 it leaves variables
// that already exist at their current values (it looks them up by their checkpoint key instead of
// their path), which would silently keep a fresh RNG state on resume.
func loadCheckpoint(store *model.Store, run string, e int) error {
	h, err := checkpoint.Load(store).Dir(epochDir(run, e)).Done()
	if err != nil {
		return fmt.Errorf("loading %s: %w", epochDir(run, e), err)
	}
	var pending []string // the variables the handler holds until first use
	for key := range h.LoadedVariables() {
		pending = append(pending, strings.TrimPrefix(key, checkpointVarPrefix))
	}
	for _, path := range pending {
		if store.GetVariable(path) == nil {
			return fmt.Errorf("loading %s: variable %s did not load", epochDir(run, e), path)
		}
	}
	return nil
}

// checkpointVarPrefix prefixes variable paths in a GoMLX checkpoint's keys.
const checkpointVarPrefix = "var:"

// restoreLatest loads the newest checkpoint of RUNDIR that loads, falling back to older ones
// (a checkpoint directory is complete by construction, but its files can still be damaged
// afterwards); with no checkpoint it returns the zero state. Warnings go to log.
func restoreLatest(store *model.Store, run string, log io.Writer) (*runState, error) {
	epochs := listEpochs(run)
	var errs []error
	for i := len(epochs) - 1; i >= 0; i-- {
		e := epochs[i]
		st, err := readState(run, e)
		if err == nil {
			err = loadCheckpoint(store, run, e)
		}
		if err == nil {
			return st, nil
		}
		errs = append(errs, err)
		if log != nil {
			fmt.Fprintf(log, "warning: checkpoint of epoch %d is unusable (%v); trying an older one\n", e, err)
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("no usable checkpoint in %s: %w", filepath.Join(run, checkpointsDir), errors.Join(errs...))
	}
	return &runState{}, nil
}

// restoreBest loads the checkpoint of the best validation epoch into store (for `geoalign eval`).
func restoreBest(store *model.Store, run string) (*runState, error) {
	epochs := listEpochs(run)
	if len(epochs) == 0 {
		return nil, fmt.Errorf("%s: no checkpoint yet (the run has not finished an epoch)", filepath.Join(run, checkpointsDir))
	}
	st, err := readState(run, epochs[len(epochs)-1])
	if err != nil {
		return nil, err
	}
	return st, loadCheckpoint(store, run, st.BestEpoch)
}

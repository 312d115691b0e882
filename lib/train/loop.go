package train

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/backend/xlacache"
	"github.com/geoalign/geoalign/lib/progress"
	"github.com/gomlx/gomlx/ml/model"
)

// Task is what a model supplies to a Loop: its store, how an epoch is cut into batches, its
// training step and its validation. B is the batch type (row indices, a plan of videos and
// queries, …).
type Task[B any] struct {
	// Store holds the in-graph state a checkpoint keeps: weights, optimizer moments and counters,
	// the store's random state (dropout, in-graph samplers). The loop adds its own state as a
	// parameter (LoopStateParam).
	Store *model.Store
	// Plan returns the batches of epoch (0-based), in training order. rng is the loop's data-order
	// generator: seeded from Config.Seed, its state at the start of every epoch is part of the
	// checkpoint, so a plan drawn from it (or any pure function of epoch) is the same after a
	// resume. Shuffled is the usual plan.
	Plan func(epoch int, rng *rand.Rand) ([]B, error)
	// Step trains on one batch and returns the loss, then the values named by Terms[1:].
	Step func(batch B) ([]float64, error)
	// Terms names Step's values; Terms[0] is the loss. nil means {"loss"}.
	Terms []string
	// Validate evaluates the model on a validation split — never the test split — and returns its
	// metrics by name; Config.Metric names the one that selects the best checkpoint and stops
	// training early. nil: no validation, no early stopping, the final weights are the result.
	Validate func() (map[string]float64, error)
	// Annotate, when set, returns model-specific values stored with every record (as JSON, which
	// must be an object): τ and α, a test-split curve that nothing selects on, … An error stops
	// the loop. It is called after Validate, before the record's checkpoint.
	Annotate func(r *Record) (any, error)
	// Host, when set, is host-side state the loop does not see (the random generator of a sampler
	// that runs on the host, …): it is marshalled into every checkpoint and restored on resume, so
	// that resuming is exact. Host weights must live in Store variables (copied in by
	// MarshalBinary if need be).
	Host interface {
		encoding.BinaryMarshaler
		encoding.BinaryUnmarshaler
	}
}

// Config is the loop's own configuration (the model's is the model's).
type Config struct {
	// Epochs to train (a resumed run continues up to it; raising it continues a finished run
	// unless it stopped early).
	Epochs int
	// Steps, when > 0, ends training after that many steps instead (the last epoch may be partial).
	Steps int
	// Seed seeds the data order (Task.Plan's rng).
	Seed int64
	// EvalEvery is the number of steps between records (validation, history, checkpoint); 0 means
	// at the end of every epoch. Training always ends with a record.
	EvalEvery int
	// Metric is the key of Task.Validate's metrics that selects the best checkpoint; Minimize means
	// lower is better (a loss), else higher is (a recall).
	Metric   string
	Minimize bool
	// Patience stops training after that many validations without a strictly better Metric (0: never).
	Patience int
	// Dir is the run directory: checkpoints (GoMLX format), BestDir, HistoryFile and PlotFile.
	// A Loop on a directory that holds a checkpoint resumes from it. "" keeps everything in memory
	// (no resume).
	Dir string
	// Keep is the number of checkpoints kept in Dir besides the best (0: 2).
	Keep int
	// CheckpointEvery adds checkpoints every that many steps between records (0: only at records).
	CheckpointEvery int
	// Label names the progress bar (e.g. "GRAM on FSDD, seed 1"); Quiet turns it off.
	Label string
	Quiet bool
	// Log, when set, receives one line per record and the notes of opening Dir (which go to
	// stderr without a Log unless Quiet).
	Log io.Writer
}

// Record is the loop's account of one stretch of training, taken every Config.EvalEvery steps (by
// default at the end of every epoch): the learning curve.
type Record struct {
	Epoch int `json:"epoch"` // 1-based epoch the record was taken in
	Step  int `json:"step"`  // steps taken when it was taken
	// Loss and Terms are the means over the steps since the previous record.
	Loss  float64            `json:"loss"`
	Terms map[string]float64 `json:"terms,omitempty"`
	// Val holds the validation metrics (nil without Task.Validate); Best marks a record whose
	// Config.Metric was the best so far.
	Val  map[string]float64 `json:"val,omitempty"`
	Best bool               `json:"best,omitempty"`
	// Seconds is the wall time since the previous record (training and validation).
	Seconds float64 `json:"seconds"`
	// Extra is what Task.Annotate returned.
	Extra json.RawMessage `json:"extra,omitempty"`
	// XLA counts the programs XLA compiled, and those it loaded instead (lib/backend/xlacache),
	// since the previous record (the first: since NewLoop); nil when there were none (the Go
	// backend). The counters are the process's: runs trained side by side share them.
	XLA *xlacache.Stats `json:"xla,omitempty"`
}

// Result summarises a finished (or paused) run.
type Result struct {
	Records []Record
	Steps   int     // steps taken, over every resume
	Best    *Record // the record of the best validation (nil without Task.Validate)
	Stopped string  // why training ended ("" when paused by RunEpochs before the end)
	// ResumedAt is the step a checkpoint resumed from (0 for a fresh run).
	ResumedAt int
	// Notes lists what opening Dir repaired (see OpenCheckpoints).
	Notes []string
}

const (
	// HistoryFile in Dir holds the records as a JSON array, one flat object per record: epoch, step,
	// loss, each term, val, best, seconds, xla (Record.XLA) and Annotate's fields. It is rewritten
	// (atomically) after every checkpoint from the records the checkpoint holds, so it never runs
	// ahead of the checkpoint.
	HistoryFile = "history.json"
	// PlotFile in Dir holds the records as GoMLX plot points (ui/plot.Point, one JSON object per
	// line), so that `gomlx_checkpoints -metrics -plot DIR` shows the learning curves.
	PlotFile = "training_plot_points.json"
	// LoopStateParam is the store parameter (scope "/train_loop") holding the loop's state as JSON:
	// position, data-order generator, running sums, best validation, patience, records, host state.
	LoopStateParam = "/train_loop/state"
)

// state is everything the loop needs to continue exactly where a checkpoint was taken.
type state struct {
	Step  int    `json:"step"`  // steps taken
	Epoch int    `json:"epoch"` // current epoch (0-based)
	Batch int    `json:"batch"` // batches of Epoch already trained
	RNG   []byte `json:"rng"`   // data-order generator at the start of Epoch
	// Sums of Step's values since the last record, over SumSteps steps and SumSeconds seconds.
	Sums       []float64 `json:"sums"`
	SumSteps   int       `json:"sum_steps"`
	SumSeconds float64   `json:"sum_seconds"`
	Best       float64   `json:"best"`
	BestRecord int       `json:"best_record"` // index in Records, −1 before the first validation
	Bad        int       `json:"bad"`         // validations since the best
	Records    []Record  `json:"records"`
	Stopped    string    `json:"stopped,omitempty"`
	Early      bool      `json:"early,omitempty"` // Stopped by Patience
	Host       []byte    `json:"host,omitempty"`
	// Seed, Metric, Minimize and EvalEvery must not change over a run's resumes.
	Seed      int64  `json:"seed"`
	Metric    string `json:"metric"`
	Minimize  bool   `json:"minimize"`
	EvalEvery int    `json:"eval_every"`
}

// Loop trains a Task. NewLoop restores it from Config.Dir; Run trains to the end.
type Loop[B any] struct {
	task  Task[B]
	cfg   Config
	st    state
	pcg   *rand.PCG
	ckpt  *Checkpoints
	best  *model.Store // the best weights when there is no Dir
	notes []string

	plan      []B    // batches of st.Epoch (nil until built)
	nextRNG   []byte // generator state after drawing plan: the next epoch's st.RNG
	resumedAt int
	since     time.Time      // start of the current stretch (for SumSeconds)
	xla       xlacache.Stats // the compile counters at the start of the current stretch
	bar       *progress.Bar
}

// NewLoop validates the configuration and, when Config.Dir holds a checkpoint, restores the store,
// the loop's position and the host state from it.
func NewLoop[B any](task Task[B], cfg Config) (*Loop[B], error) {
	switch {
	case task.Store == nil || task.Plan == nil || task.Step == nil:
		return nil, errors.New("train: a Task needs a Store, a Plan and a Step")
	case cfg.Epochs <= 0 && cfg.Steps <= 0:
		return nil, fmt.Errorf("train: Config needs Epochs > 0 or Steps > 0 (got %d and %d)", cfg.Epochs, cfg.Steps)
	case cfg.EvalEvery < 0 || cfg.CheckpointEvery < 0 || cfg.Patience < 0 || cfg.Keep < 0:
		return nil, fmt.Errorf("train: negative EvalEvery %d, CheckpointEvery %d, Patience %d or Keep %d",
			cfg.EvalEvery, cfg.CheckpointEvery, cfg.Patience, cfg.Keep)
	case task.Validate != nil && cfg.Metric == "":
		return nil, errors.New("train: Config.Metric must name the validation metric that selects the best model")
	}
	if task.Terms == nil {
		task.Terms = []string{"loss"}
	}
	if cfg.Keep == 0 {
		cfg.Keep = 2
	}
	l := &Loop[B]{task: task, cfg: cfg, xla: xlacache.Read()}
	l.st = state{BestRecord: -1, Sums: make([]float64, len(task.Terms)),
		Seed: cfg.Seed, Metric: cfg.Metric, Minimize: cfg.Minimize, EvalEvery: cfg.EvalEvery}
	l.pcg = rand.NewPCG(uint64(cfg.Seed), dataOrderStream)
	var err error
	if l.st.RNG, err = l.pcg.MarshalBinary(); err != nil {
		return nil, err
	}
	if cfg.Dir != "" {
		var loaded bool
		if l.ckpt, loaded, err = OpenCheckpoints(task.Store, cfg.Dir); err != nil {
			return nil, err
		}
		l.notes = l.ckpt.Notes
		if loaded {
			if err := l.restore(); err != nil {
				return nil, err
			}
			// A kill between a checkpoint and the history files leaves them one record behind.
			if err := writeHistory(cfg.Dir, l.st.Records, task.Terms); err != nil {
				return nil, err
			}
		}
	}
	if w := l.cfg.Log; w != nil || !l.cfg.Quiet { // repairs are never silent
		if w == nil {
			w = os.Stderr
		}
		for _, n := range l.notes {
			fmt.Fprintf(w, "%s\n", n)
		}
	}
	return l, nil
}

// dataOrderStream is the second word of the data-order PCG (the first is Config.Seed).
const dataOrderStream = 0x6461746120_6f72 // "data or"

// restore reads the loop's state from the store a checkpoint was loaded into.
func (l *Loop[B]) restore() error {
	raw := model.GetParamOr(l.task.Store.Scope("/train_loop"), "state", "")
	if raw == "" {
		return fmt.Errorf("train: the checkpoint in %s has no loop state (%s): not written by train.Loop", l.cfg.Dir, LoopStateParam)
	}
	var st state
	if err := json.Unmarshal([]byte(raw), &st); err != nil {
		return fmt.Errorf("train: the loop state of the checkpoint in %s: %w", l.cfg.Dir, err)
	}
	if st.Seed != l.cfg.Seed || st.Metric != l.cfg.Metric || st.Minimize != l.cfg.Minimize || st.EvalEvery != l.cfg.EvalEvery {
		return fmt.Errorf("train: the checkpoint in %s was trained with seed %d, metric %q (minimize %v), EvalEvery %d; this run has %d, %q (%v), %d",
			l.cfg.Dir, st.Seed, st.Metric, st.Minimize, st.EvalEvery, l.cfg.Seed, l.cfg.Metric, l.cfg.Minimize, l.cfg.EvalEvery)
	}
	if len(st.Sums) != len(l.task.Terms) {
		return fmt.Errorf("train: the checkpoint in %s has %d loss terms, the task %d (%v)", l.cfg.Dir, len(st.Sums), len(l.task.Terms), l.task.Terms)
	}
	if l.task.Host != nil {
		if err := l.task.Host.UnmarshalBinary(st.Host); err != nil {
			return fmt.Errorf("train: the host state of the checkpoint in %s: %w", l.cfg.Dir, err)
		}
	}
	l.st, l.resumedAt = st, st.Step
	if l.st.Stopped != "" && !l.st.Early && !l.ended() { // a completed run given more epochs or steps
		l.st.Stopped = ""
	}
	return nil
}

// Step is the number of steps taken; Epoch the number of epochs completed.
func (l *Loop[B]) Step() int  { return l.st.Step }
func (l *Loop[B]) Epoch() int { return l.st.Epoch }

// Records are the records so far.
func (l *Loop[B]) Records() []Record { return l.st.Records }

// Done reports whether training has ended (completed or stopped early).
func (l *Loop[B]) Done() bool { return l.st.Stopped != "" }

// Run trains to the end and returns the result. With a validation, the store then holds the
// weights of the best validation (the same ones as Dir's BestDir), else the final weights.
func (l *Loop[B]) Run() (*Result, error) { return l.RunEpochs(-1) }

// RunEpochs trains at most n more epochs (n < 0: no limit) and returns the result so far; the loop
// continues with the next call (time-boxed training). When the run ends, the store holds the best
// weights as with Run.
func (l *Loop[B]) RunEpochs(n int) (*Result, error) {
	if !l.cfg.Quiet && l.st.Stopped == "" {
		l.bar = progress.New(l.cfg.Label, l.totalSteps())
		l.bar.Add(l.st.Step, "")
		defer l.bar.Done()
	}
	l.since = time.Now()
	for epochs := 0; l.st.Stopped == "" && epochs != n; {
		if l.ended() {
			if err := l.finish(); err != nil {
				return nil, err
			}
			break
		}
		epochDone, err := l.advance()
		if err != nil {
			return nil, err
		}
		if epochDone {
			epochs++
		}
	}
	if l.st.Stopped != "" {
		if err := l.restoreBest(); err != nil {
			return nil, err
		}
		if l.ckpt != nil { // the run has ended: no empty staging directory is left behind
			if err := l.ckpt.Close(); err != nil {
				return nil, err
			}
		}
	}
	return l.result(), nil
}

// ended reports whether the configured length is reached.
func (l *Loop[B]) ended() bool {
	if l.cfg.Steps > 0 {
		return l.st.Step >= l.cfg.Steps
	}
	return l.st.Epoch >= l.cfg.Epochs
}

// totalSteps estimates the run's length for the progress bar.
func (l *Loop[B]) totalSteps() int {
	if l.cfg.Steps > 0 {
		return l.cfg.Steps
	}
	if err := l.buildPlan(); err != nil || len(l.plan) == 0 {
		return 0
	}
	return l.st.Step - l.st.Batch + (l.cfg.Epochs-l.st.Epoch)*len(l.plan)
}

// buildPlan draws the current epoch's batches from the generator state at its start.
func (l *Loop[B]) buildPlan() error {
	if l.plan != nil {
		return nil
	}
	if err := l.pcg.UnmarshalBinary(l.st.RNG); err != nil {
		return fmt.Errorf("train: data-order state: %w", err)
	}
	plan, err := l.task.Plan(l.st.Epoch, rand.New(l.pcg))
	if err != nil {
		return fmt.Errorf("train: plan of epoch %d: %w", l.st.Epoch+1, err)
	}
	if len(plan) == 0 {
		return fmt.Errorf("train: epoch %d has no batch", l.st.Epoch+1)
	}
	if l.st.Batch > len(plan) {
		return fmt.Errorf("train: the checkpoint is at batch %d of epoch %d, which has %d", l.st.Batch, l.st.Epoch+1, len(plan))
	}
	if l.nextRNG, err = l.pcg.MarshalBinary(); err != nil {
		return err
	}
	l.plan = plan
	return nil
}

// advance takes one step, or closes the epoch when its batches are done (epochDone).
func (l *Loop[B]) advance() (epochDone bool, err error) {
	if err := l.buildPlan(); err != nil {
		return false, err
	}
	if l.st.Batch == len(l.plan) {
		l.st.Epoch++
		l.st.Batch, l.st.RNG, l.plan = 0, l.nextRNG, nil
		if l.cfg.EvalEvery == 0 {
			return true, l.record()
		}
		return true, nil
	}
	values, err := l.task.Step(l.plan[l.st.Batch])
	if err != nil {
		return false, fmt.Errorf("train: step %d (epoch %d, batch %d of %d): %w", l.st.Step+1, l.st.Epoch+1, l.st.Batch+1, len(l.plan), err)
	}
	if len(values) != len(l.task.Terms) {
		return false, fmt.Errorf("train: Step returned %d values, Terms names %d (%v)", len(values), len(l.task.Terms), l.task.Terms)
	}
	if bad := nonFinite(values); bad >= 0 {
		return false, &NonFiniteError{Step: l.st.Step + 1, Epoch: l.st.Epoch + 1, Batch: l.st.Batch + 1, Batches: len(l.plan),
			Index: bad, Terms: l.task.Terms, Values: values}
	}
	for i, v := range values {
		l.st.Sums[i] += v
	}
	l.st.SumSteps++
	l.st.Batch++
	l.st.Step++
	if l.bar != nil {
		l.bar.Add(1, fmt.Sprintf("epoch %d loss %.4g%s", l.st.Epoch+1, values[0], l.bestDetail()))
	}
	switch {
	case l.cfg.EvalEvery > 0 && l.st.Step%l.cfg.EvalEvery == 0:
		return false, l.record()
	case l.cfg.CheckpointEvery > 0 && l.st.Step%l.cfg.CheckpointEvery == 0 && !(l.cfg.EvalEvery == 0 && l.st.Batch == len(l.plan)):
		return false, l.save() // (unless the epoch's record, with its checkpoint, comes next)
	}
	return false, nil
}

func (l *Loop[B]) bestDetail() string {
	if l.st.BestRecord < 0 {
		return ""
	}
	return fmt.Sprintf(", best val %s %.4g", l.cfg.Metric, l.st.Best)
}

func nonFinite(values []float64) int {
	for i, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return i
		}
	}
	return -1
}

// NonFiniteError stops training when a step returns a NaN or infinite value: no checkpoint is
// written for that step, so the last one holds the state before it.
type NonFiniteError struct {
	Step, Epoch, Batch, Batches int // 1-based position of the step
	Index                       int // the first non-finite value: Terms[Index]
	Terms                       []string
	Values                      []float64
}

func (e *NonFiniteError) Error() string {
	var parts []string
	for i, v := range e.Values {
		parts = append(parts, fmt.Sprintf("%s %v", e.Terms[i], v))
	}
	return fmt.Sprintf("train: %s is %v at step %d (epoch %d, batch %d of %d): %s",
		e.Terms[e.Index], e.Values[e.Index], e.Step, e.Epoch, e.Batch, e.Batches, strings.Join(parts, ", "))
}

// record closes a stretch: means of the step values, validation, early-stopping bookkeeping,
// Annotate, then a checkpoint.
func (l *Loop[B]) record() error {
	r := Record{Epoch: l.st.Epoch, Step: l.st.Step} // at the end of an epoch: the one just completed
	if l.st.Batch > 0 {
		r.Epoch = l.st.Epoch + 1 // inside the current one
	}
	if l.st.SumSteps > 0 {
		r.Loss = l.st.Sums[0] / float64(l.st.SumSteps)
		if len(l.task.Terms) > 1 {
			r.Terms = make(map[string]float64, len(l.task.Terms)-1)
			for i, name := range l.task.Terms[1:] {
				r.Terms[name] = l.st.Sums[i+1] / float64(l.st.SumSteps)
			}
		}
	}
	improved := false
	if l.task.Validate != nil {
		val, err := l.task.Validate()
		if err != nil {
			return fmt.Errorf("train: validation at step %d: %w", l.st.Step, err)
		}
		m, ok := val[l.cfg.Metric]
		if !ok {
			return fmt.Errorf("train: validation returned no %q (it has %v)", l.cfg.Metric, keys(val))
		}
		if math.IsNaN(m) || math.IsInf(m, 0) {
			return fmt.Errorf("train: validation %s is %v at step %d (epoch %d)", l.cfg.Metric, m, l.st.Step, r.Epoch)
		}
		r.Val = val
		improved = l.st.BestRecord < 0 || (l.cfg.Minimize && m < l.st.Best) || (!l.cfg.Minimize && m > l.st.Best)
		if improved {
			l.st.Best, l.st.BestRecord, l.st.Bad = m, len(l.st.Records), 0
			r.Best = true
		} else {
			l.st.Bad++
		}
	}
	r.Seconds = l.st.SumSeconds + time.Since(l.since).Seconds()
	if l.task.Annotate != nil {
		extra, err := l.task.Annotate(&r)
		if err != nil {
			return err
		}
		if r.Extra, err = json.Marshal(extra); err != nil {
			return fmt.Errorf("train: encoding Annotate's values: %w", err)
		}
	}
	if now := xlacache.Read(); now != l.xla {
		d := now.Sub(l.xla)
		r.XLA, l.xla = &d, now
	}
	l.st.Records = append(l.st.Records, r)
	for i := range l.st.Sums {
		l.st.Sums[i] = 0
	}
	l.st.SumSteps, l.st.SumSeconds, l.since = 0, 0, time.Now()
	if l.cfg.Patience > 0 && l.st.Bad >= l.cfg.Patience {
		l.st.Early = true
		l.st.Stopped = fmt.Sprintf("early stop at step %d (epoch %d): no better validation %s for %d validations (best %.6g at step %d)",
			l.st.Step, r.Epoch, l.cfg.Metric, l.st.Bad, l.st.Best, l.st.Records[l.st.BestRecord].Step)
	} else if l.ended() {
		l.st.Stopped = l.completed()
	}
	l.logRecord(r)
	if improved {
		if err := l.saveBest(); err != nil {
			return err
		}
	}
	return l.save()
}

func (l *Loop[B]) completed() string {
	if l.cfg.Steps > 0 {
		return fmt.Sprintf("completed %d steps", l.st.Step)
	}
	return fmt.Sprintf("completed %d epochs", l.st.Epoch)
}

// finish ends a run whose length is reached: a last record if steps were taken since the previous
// one (EvalEvery not dividing the length), else the Stopped mark alone.
func (l *Loop[B]) finish() error {
	if l.st.SumSteps > 0 || len(l.st.Records) == 0 {
		return l.record()
	}
	l.st.Stopped = l.completed()
	return l.save()
}

func keys(m map[string]float64) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// saveBest keeps the current weights as the best: BestDir of Dir (written before the checkpoint
// that records it, so that a checkpoint never names a best that is not on disk), or a copy in memory.
func (l *Loop[B]) saveBest() error {
	if l.ckpt == nil {
		var err error
		l.best, err = l.task.Store.Clone()
		return err
	}
	if err := l.setStateParam(); err != nil {
		return err
	}
	return l.ckpt.Save(filepath.Join(l.cfg.Dir, BestDir), l.st.Step, 1)
}

// save writes a checkpoint (with the loop's state) and the history files derived from it.
func (l *Loop[B]) save() error {
	if l.ckpt == nil {
		return nil
	}
	if err := l.setStateParam(); err != nil {
		return err
	}
	if err := l.ckpt.Save(l.cfg.Dir, l.st.Step, l.cfg.Keep); err != nil {
		return err
	}
	crashPoint("saved")
	if err := writeHistory(l.cfg.Dir, l.st.Records, l.task.Terms); err != nil {
		return err
	}
	crashPoint("history")
	return nil
}

// setStateParam stores the loop's state (and the host state) in the store's parameters, where
// the next checkpoint picks it up.
func (l *Loop[B]) setStateParam() error {
	if l.task.Host != nil {
		var err error
		if l.st.Host, err = l.task.Host.MarshalBinary(); err != nil {
			return fmt.Errorf("train: host state: %w", err)
		}
	}
	l.st.SumSeconds += time.Since(l.since).Seconds()
	l.since = time.Now()
	b, err := json.Marshal(&l.st)
	if err != nil {
		return fmt.Errorf("train: encoding the loop state: %w", err)
	}
	l.task.Store.SetParam(LoopStateParam, string(b))
	return nil
}

// restoreBest puts the best validation's weights back into the store.
func (l *Loop[B]) restoreBest() error {
	if l.task.Validate == nil || l.st.BestRecord < 0 {
		return nil
	}
	best := l.best
	if l.ckpt != nil {
		dir := filepath.Join(l.cfg.Dir, BestDir)
		var err error
		if best, err = LoadStore(dir); err != nil {
			return err
		}
		var st state
		raw := model.GetParamOr[string](best.Scope("/train_loop"), "state", "")
		if err := json.Unmarshal([]byte(raw), &st); err != nil || st.Step != l.st.Records[l.st.BestRecord].Step {
			return fmt.Errorf("train: the best checkpoint in %s is not from step %d, the run's best validation", dir, l.st.Records[l.st.BestRecord].Step)
		}
	}
	if best == nil {
		return errors.New("train: the best weights were not kept")
	}
	return CopyVariables(l.task.Store, best)
}

func (l *Loop[B]) result() *Result {
	r := &Result{Records: l.st.Records, Steps: l.st.Step, Stopped: l.st.Stopped, ResumedAt: l.resumedAt, Notes: l.notes}
	if l.st.BestRecord >= 0 {
		r.Best = &l.st.Records[l.st.BestRecord]
	}
	return r
}

func (l *Loop[B]) logf(format string, args ...any) {
	if l.cfg.Log != nil {
		fmt.Fprintf(l.cfg.Log, format+"\n", args...)
	}
}

func (l *Loop[B]) logRecord(r Record) {
	if l.cfg.Log == nil {
		return
	}
	line := fmt.Sprintf("epoch %d step %d: loss %.6g", r.Epoch, r.Step, r.Loss)
	if r.Val != nil {
		line += fmt.Sprintf(", val %s %.6g", l.cfg.Metric, r.Val[l.cfg.Metric])
		if r.Best {
			line += " (best)"
		}
	}
	if r.XLA != nil {
		line += "; XLA programs: " + r.XLA.String()
	}
	l.logf("%s (%.1fs)", line, r.Seconds)
	if l.st.Stopped != "" {
		l.logf("%s", l.st.Stopped)
	}
}

// writeHistory writes HistoryFile and PlotFile of dir from the records.
func writeHistory(dir string, records []Record, terms []string) error {
	flat := make([]map[string]any, len(records))
	var points strings.Builder
	point := func(name, short, kind string, step int, v float64) {
		b, _ := json.Marshal(plotPoint{MetricName: name, Short: short, MetricType: kind, Step: float64(step), Value: v})
		points.Write(b)
		points.WriteByte('\n')
	}
	for i, r := range records {
		f := map[string]any{}
		if len(r.Extra) > 0 && string(r.Extra) != "null" {
			if err := json.Unmarshal(r.Extra, &f); err != nil {
				return fmt.Errorf("train: Annotate's values must encode as a JSON object: %w", err)
			}
		}
		f["epoch"], f["step"], f["loss"], f["seconds"] = r.Epoch, r.Step, r.Loss, r.Seconds
		point("Train: "+terms[0], "T/"+terms[0], "loss", r.Step, r.Loss)
		for name, v := range r.Terms {
			f[name] = v
			point("Train: "+name, "T/"+name, "loss", r.Step, v)
		}
		if r.XLA != nil {
			f["xla"] = r.XLA
		}
		if r.Val != nil {
			f["val"], f["best"] = r.Val, r.Best
			for name, v := range r.Val {
				point("Validation: "+name, "V/"+name, "validation", r.Step, v)
			}
		}
		flat[i] = f
	}
	if err := atomicfile.WriteJSON(filepath.Join(dir, HistoryFile), flat); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, PlotFile), []byte(points.String()), 0o644)
}

// plotPoint is GoMLX's ui/plot.Point (the format of PlotFile), not imported to keep GoMLX's
// terminal-UI dependencies out of every model; TestPlotFileReadsAsGoMLXPoints checks the format.
type plotPoint struct {
	MetricName, Short, MetricType string
	Step, Value                   float64
}

// Shuffled is the usual Plan: every epoch a permutation of n examples drawn from the loop's
// generator, cut into batches of size (the last partial batch is dropped, so that every step has
// the same shapes).
func Shuffled(n, size int) func(epoch int, rng *rand.Rand) ([][]int, error) {
	return func(_ int, rng *rand.Rand) ([][]int, error) {
		if size <= 0 || n < size {
			return nil, fmt.Errorf("train: %d examples make no batch of %d", n, size)
		}
		perm := rng.Perm(n)
		batches := make([][]int, n/size)
		for b := range batches {
			batches[b] = perm[b*size : (b+1)*size]
		}
		return batches, nil
	}
}

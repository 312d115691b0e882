package hlformer

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/seedrand"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// CodeNoDecay is the code's weight-decay grouping (src/Opts/builder.py: a parameter is exempt when
// its name contains "bias", "LayerNorm.bias" or "LayerNorm.weight") on our variable paths: biases,
// every LayerNorm offset, the Lorentz attention's logit bias (the code's
// LorentzMultiHeadedAttention.bias, onmt/hyper_nets.py), and the gains of the LayerNorms the code names LayerNorm (LinearLayer's and
// the position embedding's, our …/norm/layer_normalization/gain). The Transformer blocks' LayerNorms are norm1/norm2
// in the code (model_components.py), so their gains are decayed.
func CodeNoDecay(path string) bool {
	return strings.HasSuffix(path, "/biases") || strings.HasSuffix(path, "/offset") || strings.HasSuffix(path, "/logit_bias") ||
		strings.HasSuffix(path, "/norm/layer_normalization/gain")
}

// TrainConfig is the training schedule (docs/official-code.md §3.5, Charades: lr 2e-4, 100 epochs, batch 128 videos,
// hard negatives from epoch 20, early stop after 10 epochs without a better val SumR).
type TrainConfig struct {
	Epochs      int
	BatchVideos int
	QueryBucket int // queries per batch rounded down to a multiple of this (see Batching); 0: off
	// PartialBatch trains the last, smaller batch of every epoch, as the code's DataLoader does
	// (drop_last=False; one more compiled shape). false drops it (Batching.DropPartial: every step
	// the same number of videos).
	PartialBatch bool
	LearningRate float64 // BertAdam lr (warmup_linear over 1 % of Epochs·batches, docs/official-code.md §3.5)
	// Schedule replaces BertAdam's warmup_linear (1 % warm-up, linear decay to 0 at Epochs) when set,
	// e.g. train.WarmupConstant; nil keeps the code's.
	Schedule train.Schedule
	// ExemptNormGains exempts every LayerNorm gain from weight decay (train.DefaultNoDecay, what the
	// code's no_decay list intends). false (the code): CodeNoDecay, which decays the Transformer
	// blocks' norm1/norm2 gains.
	ExemptNormGains bool
	// HardNegativeStart is the first epoch (0-based) with hard triplet negatives: the code's 20 of 100,
	// to be scaled with Epochs (ScaledHardNegativeStart).
	HardNegativeStart int
	// Patience stops training after this many epochs without a new best validation SumR (10 in the code;
	// 0: never stop early).
	Patience int
	// MaxBatches caps the batches per epoch (0: all), for CI-sized runs.
	MaxBatches int
	// Seed seeds the store (initialisation, dropout, triplet negatives) and lib/train's data order.
	Seed  int64
	DType dtypes.DType // float32 by default
	// VideoChunk is the number of videos the training step encodes at once (NewStep): 0 means
	// DefaultChunk of the backend (DefaultVideoChunk on a CPU, the single graph on a GPU),
	// SingleGraphStep the whole batch in one executable.
	VideoChunk int
	// Devices > 1 trains data-parallel on that many devices (the single-graph step, distributed by
	// train.Step.Distribute; VideoChunk is then ignored). 0 or 1: one device.
	Devices int
	// CheckpointDir, if set, is the run directory of lib/train's loop: an atomic checkpoint after every
	// epoch, the best validation's model in train.BestDir (train.LoadStore(filepath.Join(dir,
	// train.BestDir))), history.json; a Trainer on a directory that holds a checkpoint resumes from
	// it, and a finished run is not trained further.
	CheckpointDir string
	// Log receives one line per epoch (nil: silent). Progress shows the loop's progress bar, named
	// Label ("": "HLFormer on <split>, seed <seed>").
	Log      io.Writer
	Progress bool
	Label    string
}

// CharadesTraining is the official Charades-STA schedule (docs/official-code.md §3.5): 100 epochs of 128-video batches,
// lr 2e-4, hard negatives from epoch 20, patience 10, seed 0.
func CharadesTraining() TrainConfig {
	return TrainConfig{Epochs: 100, BatchVideos: 128, QueryBucket: 32, PartialBatch: true, LearningRate: 2e-4,
		HardNegativeStart: 20, Patience: 10, DType: dtypes.Float32}
}

// Batching is how the configuration cuts an epoch into batches.
func (tc TrainConfig) Batching() Batching {
	return Batching{Videos: tc.BatchVideos, QueryBucket: tc.QueryBucket, DropPartial: !tc.PartialBatch}
}

// ScaledHardNegativeStart maps the code's hard-negative start (epoch 20 of 100) and patience (10 of 100)
// to a schedule of epochs epochs: round(0.2·epochs) and max(2, round(0.1·epochs)).
func ScaledHardNegativeStart(epochs int) (start, patience int) {
	return int(math.Round(0.2 * float64(epochs))), max(2, int(math.Round(0.1*float64(epochs))))
}

// NewStore returns a store seeded for reproducible initialisation (lib/seedrand: the same weights on
// every backend and step layout), dropout and negative sampling.
func NewStore(seed int64) (*model.Store, error) { return seedrand.NewStore(seed) }

// StepTerms names a training step's values for lib/train's loop: the loss, then LossTermNames[1:].
var StepTerms = append([]string{"loss"}, LossTermNames[1:]...)

// TrainBatch is one training step: a batch of the training split and the hard-negative switch of its
// epoch.
type TrainBatch struct {
	Plan BatchPlan
	Hard bool
}

// NewTask is HLFormer's training task for lib/train's loop, without its validation: every epoch the
// batches of tc.Batching over trainSplit (tc.BatchVideos videos, queries rounded to tc.QueryBucket, the
// last partial batch with tc.PartialBatch, at most tc.MaxBatches), shuffled by the loop's data-order generator, with hard negatives from epoch
// tc.HardNegativeStart; one step per batch (BatchInputs in tc.DType) returning StepTerms. store is the
// store step trains.
func NewTask(step Step, store *model.Store, c Config, tc TrainConfig, trainSplit *prvr.Split) train.Task[TrainBatch] {
	dtype := tc.DType
	if dtype == dtypes.InvalidDType {
		dtype = dtypes.Float32
	}
	return train.Task[TrainBatch]{
		Store: store,
		Plan: func(epoch int, rng *rand.Rand) ([]TrainBatch, error) {
			plans := tc.Batching().Plan(trainSplit, rng)
			if tc.MaxBatches > 0 && len(plans) > tc.MaxBatches {
				plans = plans[:tc.MaxBatches]
			}
			out := make([]TrainBatch, len(plans))
			for i, p := range plans {
				out[i] = TrainBatch{Plan: p, Hard: epoch >= tc.HardNegativeStart}
			}
			return out, nil
		},
		Step: func(b TrainBatch) ([]float64, error) {
			inputs := BatchInputs(trainSplit, b.Plan, c, dtype)
			args := make([]any, 0, len(inputs)+1)
			for _, t := range inputs {
				args = append(args, t)
			}
			outs, err := step.Run(append(args, b.Hard)...)
			train.FinalizeAll(inputs)
			if err != nil {
				return nil, err
			}
			defer train.FinalizeAll(outs)
			values := make([]float64, len(outs))
			for i, o := range outs {
				values[i] = scalarValue(o)
			}
			return values, nil
		},
		Terms: StepTerms,
	}
}

// Trainer trains an HLFormer model on lib/train's loop with the code's recipe: BertAdam (no bias
// correction, per-tensor clipping at 1, warmup_linear 1 % or TrainConfig.Schedule) over the batches of
// NewTask; after every epoch the validation split is evaluated (retrieval.Values; text→video SumR =
// R@1 + R@5 + R@10 + R@100, retrieval.ValMetric, selects, as the code's best-model rule), the
// model of the best one is kept (and restored at the end), TrainConfig.Patience epochs without a better
// one stop early; the NaN guard; with TrainConfig.CheckpointDir, atomic checkpoints and exact resume.
// The test split is never seen. Create it with NewTrainer.
type Trainer struct {
	Model *Model
	// Store holds the model's variables: after Train, those of the best validation.
	Store *model.Store
	// TrainSplit is what the model trains on and ValSplit what selects it.
	TrainSplit, ValSplit *prvr.Split
	Config               TrainConfig

	step     Step
	eval     *Evaluator // the validation evaluator, compiled once
	loop     *train.Loop[TrainBatch]
	stepTime time.Duration // wall time of the steps this process took after its first (which compiles)
	steps    int           // steps this process took
}

// NewTrainer validates the splits and the schedule, builds a store seeded with tc.Seed, the compiled
// training step and the loop, which loads the newest checkpoint of tc.CheckpointDir if there is one.
func NewTrainer(backend compute.Backend, m *Model, lc LossConfig, tc TrainConfig, trainSplit, valSplit *prvr.Split) (*Trainer, error) {
	c := m.Config
	if err := CheckSplit(trainSplit, c); err != nil {
		return nil, err
	}
	if err := CheckSplit(valSplit, c); err != nil {
		return nil, err
	}
	if tc.DType == dtypes.InvalidDType {
		tc.DType = dtypes.Float32
	}
	if tc.Epochs <= 0 || tc.BatchVideos <= 1 {
		return nil, fmt.Errorf("hlformer: TrainConfig needs Epochs > 0 and BatchVideos > 1, got %d and %d", tc.Epochs, tc.BatchVideos)
	}
	batches := BatchesPerEpoch(trainSplit, tc)
	if batches == 0 {
		return nil, fmt.Errorf("hlformer: split %q has fewer than %d videos with queries: no full batch (TrainConfig.PartialBatch trains a smaller one)",
			trainSplit.Name, tc.BatchVideos)
	}
	store, err := NewStore(tc.Seed)
	if err != nil {
		return nil, err
	}
	opt := Optimizer(tc, tc.Epochs*batches)
	chunk := tc.VideoChunk
	if chunk == 0 {
		chunk = DefaultChunk(backend)
	}
	if tc.Devices > 1 { // XLA partitions the single graph; the chunked step's blocks are host loops
		chunk = SingleGraphStep
	}
	t := &Trainer{Model: m, Store: store, TrainSplit: trainSplit, ValSplit: valSplit, Config: tc}
	if t.step, err = NewStep(backend, m, store, opt, lc, chunk); err != nil {
		return nil, err
	}
	if tc.Devices > 1 {
		if err := t.step.(*train.Step).Distribute(tc.Devices); err != nil {
			return nil, fmt.Errorf("hlformer: %w", err)
		}
	}
	if t.eval, err = NewEvaluator(backend, m, store, tc.DType); err != nil {
		return nil, err
	}
	task := NewTask(t.step, store, c, tc, trainSplit)
	task.Step = t.timed(task.Step)
	task.Validate = t.validate
	label := tc.Label
	if label == "" {
		label = fmt.Sprintf("HLFormer on %s, seed %d", trainSplit.Name, tc.Seed)
	}
	t.loop, err = train.NewLoop(task, train.Config{
		Epochs: tc.Epochs, Seed: tc.Seed, Metric: retrieval.ValMetric, Patience: tc.Patience, Dir: tc.CheckpointDir,
		Label: label, Quiet: !tc.Progress, Log: tc.Log,
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// Optimizer is the code's optimizer over totalSteps steps of tc, the one NewTrainer trains with:
// BertAdam (lr tc.LearningRate, no bias correction, per-tensor clipping at 1, weight decay 0.01)
// with the code's weight-decay grouping CodeNoDecay (train.DefaultNoDecay with tc.ExemptNormGains)
// and warmup_linear over 1 % of the steps (tc.Schedule when set).
func Optimizer(tc TrainConfig, totalSteps int) *train.Adam {
	opt := train.BertAdam(tc.LearningRate, totalSteps)
	if tc.Schedule != nil {
		opt.Schedule = tc.Schedule
	}
	if !tc.ExemptNormGains {
		opt.NoDecay = CodeNoDecay
	}
	return opt
}

// BatchesPerEpoch is the number of batches of an epoch of tc on trainSplit: the full batches of
// PlanEpoch (a number that does not depend on the shuffle), at most tc.MaxBatches.
func BatchesPerEpoch(trainSplit *prvr.Split, tc TrainConfig) int {
	batches := len(tc.Batching().Plan(trainSplit, rand.New(rand.NewPCG(0, 0)))) // the count does not depend on the shuffle
	if tc.MaxBatches > 0 {
		batches = min(batches, tc.MaxBatches)
	}
	return batches
}

// timed wraps a step to measure its wall time (the first step of the process compiles: not counted).
func (t *Trainer) timed(step func(TrainBatch) ([]float64, error)) func(TrainBatch) ([]float64, error) {
	return func(b TrainBatch) ([]float64, error) {
		start := time.Now()
		values, err := step(b)
		if t.steps > 0 {
			t.stepTime += time.Since(start)
		}
		t.steps++
		return values, err
	}
}

// validate is the loop's Validate: the model's text→video metrics on the validation split
// (retrieval.Values).
func (t *Trainer) validate() (map[string]float64, error) {
	res, _, err := t.eval.EvaluateStream(t.ValSplit)
	if err != nil {
		return nil, fmt.Errorf("hlformer: validation on %q: %w", t.ValSplit.Name, err)
	}
	return retrieval.Values(res.Report), nil
}

// valMetrics reads a record's validation metrics back (retrieval.FromValues), with the number of
// queries of the validation split.
func (t *Trainer) valMetrics(v map[string]float64) retrieval.Metrics {
	m := retrieval.FromValues(v, retrieval.T2V)
	m.Queries = t.ValSplit.NumQueries()
	return m
}

// EpochStats is one epoch of training (one record of the loop).
type EpochStats struct {
	Epoch    int       // 0-based
	Loss     []float64 // means over the epoch's batches, by StepTerms (LossTermNames)
	Val      retrieval.Metrics
	Best     bool // the best validation so far
	Hard     bool
	Duration time.Duration // training and validation
}

// Result of a training run.
type Result struct {
	Best      retrieval.Metrics // validation metrics of the best epoch
	BestEpoch int               // 0-based; −1 before the first epoch
	History   []EpochStats      // every epoch trained, over every resume
	Store     *model.Store      // the trainer's store: the variables of the best epoch once the run ended
	Steps     int               // optimizer steps over every resume
	Elapsed   time.Duration     // training and validation wall time over every resume
	StepTime  time.Duration     // mean wall time of a training step in this process (compile excluded; 0 without steps)
	Stopped   string            // why training ended ("" when paused by RunEpochs)
	Loop      *train.Result     // the loop's own account (records as in history.json, notes of opening the directory)
}

// Train runs to the end (Epochs or an early stop); the store then holds the weights of the best
// validation.
func (t *Trainer) Train() (*Result, error) { return t.RunEpochs(-1) }

// RunEpochs trains at most n more epochs (n < 0: to the end) and returns the result so far; the next
// call continues, as does a new Trainer on the same CheckpointDir (time-boxed training).
func (t *Trainer) RunEpochs(n int) (*Result, error) {
	lr, err := t.loop.RunEpochs(n)
	if err != nil {
		return nil, err
	}
	res := &Result{BestEpoch: -1, Store: t.Store, Steps: lr.Steps, Stopped: lr.Stopped, Loop: lr}
	for _, r := range lr.Records {
		terms := make([]float64, len(StepTerms))
		terms[0] = r.Loss
		for i, name := range StepTerms[1:] {
			terms[i+1] = r.Terms[name]
		}
		d := time.Duration(r.Seconds * float64(time.Second))
		res.History = append(res.History, EpochStats{Epoch: r.Epoch - 1, Loss: terms, Val: t.valMetrics(r.Val), Best: r.Best,
			Hard: r.Epoch-1 >= t.Config.HardNegativeStart, Duration: d})
		res.Elapsed += d
	}
	if lr.Best != nil {
		res.Best, res.BestEpoch = t.valMetrics(lr.Best.Val), lr.Best.Epoch-1
	}
	if t.steps > 1 {
		res.StepTime = t.stepTime / time.Duration(t.steps-1)
	}
	return res, nil
}

// Train trains m on trainSplit (NewTrainer, then Trainer.Train): the best validation SumR on valSplit
// selects the epoch whose weights Result.Store holds.
func Train(backend compute.Backend, m *Model, lc LossConfig, tc TrainConfig, trainSplit, valSplit *prvr.Split) (*Result, error) {
	t, err := NewTrainer(backend, m, lc, tc, trainSplit, valSplit)
	if err != nil {
		return nil, err
	}
	return t.Train()
}

func scalarValue(t *tensors.Tensor) float64 {
	switch v := t.Value().(type) {
	case float32:
		return float64(v)
	case float64:
		return v
	}
	return math.NaN()
}

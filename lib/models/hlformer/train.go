package hlformer

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/progress"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/checkpoint"
)

// TrainConfig is the training schedule (spec §3.5, Charades: lr 2e-4, 100 epochs, batch 128 videos,
// hard negatives from epoch 20, early stop after 10 epochs without a better val SumR).
type TrainConfig struct {
	Epochs       int
	BatchVideos  int
	QueryBucket  int     // queries per batch rounded down to a multiple of this (see PlanEpoch); 0: off
	LearningRate float64 // BertAdam lr (warmup_linear over 1 % of Epochs·batches, spec §3.5)
	// Schedule replaces BertAdam's warmup_linear (1 % warm-up, linear decay to 0 at Epochs) when set,
	// e.g. train.WarmupConstant; nil keeps the code's.
	Schedule train.Schedule
	// HardNegativeStart is the first epoch (0-based) with hard triplet negatives: the code's 20 of 100,
	// to be scaled with Epochs (ScaledHardNegativeStart).
	HardNegativeStart int
	// Patience stops training after this many epochs without a new best validation SumR (10 in the code;
	// 0: never stop early).
	Patience int
	// MaxBatches caps the batches per epoch (0: all), for CI-sized runs.
	MaxBatches int
	// EpochsPerCall stops this call after that many epochs (0: no limit) without ending the run: with a
	// CheckpointDir, the next call resumes (time-boxed training).
	EpochsPerCall int
	Seed          int64
	DType         dtypes.DType // float32 by default
	// VideoChunk is the number of videos the training step encodes at once (NewStep): 0 means
	// DefaultVideoChunk, SingleGraphStep the whole batch in one executable.
	VideoChunk int
	// CheckpointDir, if set, receives a checkpoint after every epoch (and the best model in best/); a
	// run started on a directory that holds one resumes from it.
	CheckpointDir string
	// Log receives one line per epoch (nil: silent). Progress shows a bar per epoch.
	Log      io.Writer
	Progress bool
}

// CharadesTraining is the official Charades-STA schedule (spec §3.5): 100 epochs of 128-video batches,
// lr 2e-4, hard negatives from epoch 20, patience 10, seed 0.
func CharadesTraining() TrainConfig {
	return TrainConfig{Epochs: 100, BatchVideos: 128, QueryBucket: 32, LearningRate: 2e-4,
		HardNegativeStart: 20, Patience: 10, DType: dtypes.Float32}
}

// ScaledHardNegativeStart maps the code's hard-negative start (epoch 20 of 100) and patience (10 of 100)
// to a schedule of epochs epochs: round(0.2·epochs) and max(2, round(0.1·epochs)).
func ScaledHardNegativeStart(epochs int) (start, patience int) {
	return int(math.Round(0.2 * float64(epochs))), max(2, int(math.Round(0.1*float64(epochs))))
}

// EpochStats is one epoch of training.
type EpochStats struct {
	Epoch    int
	Loss     []float64 // mean over batches of LossTermNames
	Val      retrieval.Metrics
	Hard     bool
	Duration time.Duration
}

// Result of a training run.
type Result struct {
	Best       retrieval.Metrics // validation metrics of the best epoch
	BestEpoch  int
	History    []EpochStats
	Store      *model.Store // the variables of the best epoch
	Steps      int          // optimizer steps taken in this call
	TotalSteps int          // optimizer steps over every resume (with a CheckpointDir; else Steps)
	Elapsed    time.Duration
	StepTime   time.Duration // mean wall time of a training step (compile excluded)
	Stopped    string        // why training ended
	Embeddings *Embeddings   // validation embeddings of the best epoch
}

// progress parameters kept in the store (and hence in checkpoints) for resuming.
const (
	paramScope     = "/hlformer_train"
	paramEpoch     = "next_epoch"
	paramBest      = "best_sumr"
	paramBestEpoch = "best_epoch"
	paramBad       = "bad_epochs"
	paramFinished  = "finished"      // 1 once training ended (completed or stopped early)
	paramSeconds   = "train_seconds" // wall time spent training and evaluating, over all resumes
	paramSteps     = "steps"         // optimizer steps over all resumes
	paramStepNanos = "step_nanos"    // mean step wall time (compile excluded), over all resumes
)

// NewStore returns a store seeded for reproducible initialisation, dropout and negative sampling.
func NewStore(seed int64) (*model.Store, error) {
	store := model.NewStore()
	return store, store.SetRNGStateFromSeed(seed)
}

// Train trains m on trainSplit with the objective lc and schedule tc, evaluating on valSplit after
// every epoch (PRVR metrics through lib/retrieval) and keeping the variables of the best validation
// SumR (early stopping as the code). It uses lib/train's BertAdam (no bias correction, per-tensor
// clipping at 1, warmup_linear 1 %).
func Train(backend compute.Backend, m *Model, lc LossConfig, tc TrainConfig, trainSplit, valSplit *prvr.Split) (*Result, error) {
	start := time.Now()
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
	plan0 := PlanEpoch(trainSplit, tc.BatchVideos, tc.QueryBucket, rand.New(rand.NewPCG(uint64(tc.Seed), 0)))
	batches := len(plan0)
	if batches == 0 {
		return nil, fmt.Errorf("hlformer: split %q has fewer than %d videos with queries: no full batch", trainSplit.Name, tc.BatchVideos)
	}
	if tc.MaxBatches > 0 {
		batches = min(batches, tc.MaxBatches)
	}

	store, err := NewStore(tc.Seed)
	if err != nil {
		return nil, err
	}
	var ckpt *checkpoint.Handler
	if tc.CheckpointDir != "" {
		if ckpt, err = checkpointer(store, tc.CheckpointDir, 1); err != nil {
			return nil, err
		}
	}
	opt := train.BertAdam(tc.LearningRate, tc.Epochs*batches)
	if tc.Schedule != nil {
		opt.Schedule = tc.Schedule
	}
	chunk := tc.VideoChunk
	if chunk == 0 {
		chunk = DefaultVideoChunk
	}
	step, err := NewStep(backend, m, store, opt, lc, chunk)
	if err != nil {
		return nil, err
	}
	eval, err := NewEvaluator(backend, m, store, tc.DType)
	if err != nil {
		return nil, err
	}

	res := &Result{BestEpoch: -1}
	param := func(key string, def float64) float64 {
		return model.GetParamOr(store.Scope(paramScope), key, def)
	}
	setParam := func(key string, v float64) { store.Scope(paramScope).SetParam(key, v) }
	firstEpoch := int(param(paramEpoch, 0))
	if param(paramFinished, 0) == 1 {
		firstEpoch = tc.Epochs // a finished run is only re-evaluated, never trained further
	}
	priorSeconds, priorSteps, priorStepNanos := param(paramSeconds, 0), int(param(paramSteps, 0)), param(paramStepNanos, 0)
	bestSumR := param(paramBest, math.Inf(-1))
	res.BestEpoch = int(param(paramBestEpoch, -1))
	bad := int(param(paramBad, 0))
	bestDir := ""
	if tc.CheckpointDir != "" {
		bestDir = filepath.Join(tc.CheckpointDir, "best")
		if (firstEpoch > 0 || param(paramFinished, 0) == 1) && res.BestEpoch >= 0 {
			if res.Store, err = loadStore(bestDir); err != nil {
				return nil, fmt.Errorf("hlformer: resuming from %s: %w", tc.CheckpointDir, err)
			}
		}
	}
	if firstEpoch > 0 && tc.Log != nil {
		fmt.Fprintf(tc.Log, "resuming at epoch %d (best SumR %.2f at epoch %d)\n", firstEpoch, bestSumR, res.BestEpoch)
	}

	var stepTime time.Duration
	var timedSteps int
	for epoch := firstEpoch; epoch < tc.Epochs; epoch++ {
		t0 := time.Now()
		plans := PlanEpoch(trainSplit, tc.BatchVideos, tc.QueryBucket, rand.New(rand.NewPCG(uint64(tc.Seed), uint64(epoch))))
		plans = plans[:batches]
		hard := epoch >= tc.HardNegativeStart
		var bar *progress.Bar
		if tc.Progress {
			bar = progress.New(fmt.Sprintf("epoch %d/%d", epoch+1, tc.Epochs), len(plans))
		}
		sums := make([]float64, len(LossTermNames))
		for bi, p := range plans {
			inputs := BatchInputs(trainSplit, p, c, tc.DType)
			args := make([]any, 0, 7)
			for _, t := range inputs {
				args = append(args, t)
			}
			args = append(args, hard)
			ts := time.Now()
			outs, err := step.Run(args...)
			if err != nil {
				return nil, fmt.Errorf("hlformer: epoch %d batch %d: %w", epoch, bi, err)
			}
			if bi > 0 || epoch > firstEpoch { // the first step compiles
				stepTime += time.Since(ts)
				timedSteps++
			}
			for _, t := range inputs {
				t.FinalizeAll()
			}
			for i, o := range outs {
				sums[i] += scalarValue(o)
				o.FinalizeAll()
			}
			if math.IsNaN(sums[0]) || math.IsInf(sums[0], 0) {
				return nil, fmt.Errorf("hlformer: epoch %d batch %d: loss is %g", epoch, bi, sums[0])
			}
			res.Steps++
			if bar != nil {
				bar.Add(1, fmt.Sprintf("loss %.4f", sums[0]/float64(bi+1)))
			}
		}
		if bar != nil {
			bar.Done()
		}
		for i := range sums {
			sums[i] /= float64(len(plans))
		}
		val, em, err := eval.Evaluate(valSplit)
		if err != nil {
			return nil, err
		}
		st := EpochStats{Epoch: epoch, Loss: sums, Val: val.T2V, Hard: hard, Duration: time.Since(t0)}
		res.History = append(res.History, st)
		if tc.Log != nil {
			fmt.Fprintf(tc.Log, "epoch %d  loss %.4f  hard %v  val %s  (%s)\n", epoch, sums[0], hard, val.T2V, st.Duration.Round(time.Millisecond))
		}
		if val.T2V.SumR > bestSumR {
			bestSumR, res.BestEpoch, bad = val.T2V.SumR, epoch, 0
			res.Best, res.Embeddings = val.T2V, em
			if res.Store, err = store.Clone(); err != nil {
				return nil, err
			}
			if bestDir != "" {
				if err := saveStore(res.Store, bestDir); err != nil {
					return nil, err
				}
			}
		} else {
			bad++
		}
		setParam(paramEpoch, float64(epoch+1))
		setParam(paramBest, bestSumR)
		setParam(paramBestEpoch, float64(res.BestEpoch))
		setParam(paramBad, float64(bad))
		stop := tc.Patience > 0 && bad >= tc.Patience
		if stop || epoch == tc.Epochs-1 {
			setParam(paramFinished, 1)
		}
		setParam(paramSeconds, priorSeconds+time.Since(start).Seconds())
		setParam(paramSteps, float64(priorSteps+res.Steps))
		if timedSteps > 0 {
			mean := float64(stepTime) / float64(timedSteps)
			if priorSteps > 0 {
				mean = (mean*float64(timedSteps) + priorStepNanos*float64(priorSteps)) / float64(timedSteps+priorSteps)
			}
			setParam(paramStepNanos, mean)
		}
		if ckpt != nil {
			if err := ckpt.Save(); err != nil {
				return nil, err
			}
		}
		if stop {
			res.Stopped = fmt.Sprintf("early stop at epoch %d: no better val SumR for %d epochs", epoch, bad)
			break
		}
		if tc.EpochsPerCall > 0 && epoch+1-firstEpoch >= tc.EpochsPerCall && epoch < tc.Epochs-1 {
			res.Stopped = fmt.Sprintf("paused after epoch %d (EpochsPerCall = %d)", epoch, tc.EpochsPerCall)
			break
		}
	}
	if res.Stopped == "" {
		res.Stopped = fmt.Sprintf("completed %d epochs", int(param(paramEpoch, 0)))
	}
	if res.TotalSteps == 0 {
		res.TotalSteps = res.Steps
	}
	if res.Store == nil {
		return nil, errors.New("hlformer: no epoch was evaluated (the checkpoint says training already finished, and its best model is missing)")
	}
	if res.Best.Queries == 0 && res.BestEpoch >= 0 {
		// Resumed after the best epoch: re-evaluate the restored best model.
		be, err := NewEvaluator(backend, m, res.Store, tc.DType)
		if err != nil {
			return nil, err
		}
		val, em, err := be.Evaluate(valSplit)
		if err != nil {
			return nil, err
		}
		res.Best, res.Embeddings = val.T2V, em
	}
	if timedSteps > 0 {
		res.StepTime = stepTime / time.Duration(timedSteps)
	}
	res.Elapsed = time.Since(start)
	if ckpt != nil { // totals over every resume of this run
		res.Elapsed = time.Duration(param(paramSeconds, res.Elapsed.Seconds()) * float64(time.Second))
		res.StepTime = time.Duration(param(paramStepNanos, float64(res.StepTime)))
		res.TotalSteps = int(param(paramSteps, float64(res.Steps)))
	}
	return res, nil
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

// saveStore writes store's variables as the only checkpoint in dir.
func saveStore(store *model.Store, dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	h, err := checkpoint.Build(store).Dir(dir).Keep(1).Done()
	if err != nil {
		return err
	}
	return h.Save()
}

// loadStore reads the checkpoint in dir into a new store.
func loadStore(dir string) (*model.Store, error) {
	store := model.NewStore()
	if _, err := checkpointer(store, dir, 1); err != nil {
		return nil, err
	}
	return store, nil
}

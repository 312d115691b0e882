package gare

import (
	"fmt"
	"io"
	"strings"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/train"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// GlobalGradClip is the global gradient-norm clip of main_retrieval.py (clip_grad_norm_ 1.0,
// docs/official-code.md §4.4), applied before BertAdam's own per-tensor clipping at 1.0.
const GlobalGradClip = 1.0

// Optimizer is BertAdam configured as GARE's code does (docs/official-code.md §4.4): lr cfg.LearningRate, betas
// (0.9, cfg.Beta2 = 0.98), eps 1e-6, weight decay cfg.WeightDecay = 0.2 except biases (the
// code's grouping, CodeNoDecay; LayerNorm gains too with cfg.ExemptNormGains), warmup_cosine with warm-up cfg.Warmup = 0.1 over totalSteps, per-tensor clipping 1.0
// and global clipping 1.0. The code's 1e-3 LR multiplier of the CLIP backbone has no counterpart
// (our features are given); the input projections that replace CLIP train at
// cfg.ProjectionLearningRate.
func (m *Model) Optimizer(totalSteps int) *train.Adam {
	cfg := m.Config
	opt := train.BertAdam(cfg.LearningRate, totalSteps)
	opt.Beta2 = cfg.Beta2
	opt.WeightDecay = cfg.WeightDecay
	if !cfg.ExemptNormGains {
		opt.NoDecay = CodeNoDecay
	}
	opt.Schedule = train.WarmupCosine{Warmup: cfg.Warmup}
	opt.MaxGlobalGradNorm = GlobalGradClip
	if cfg.ProjectionLearningRate > 0 && cfg.ProjectionLearningRate != cfg.LearningRate {
		mult := cfg.ProjectionLearningRate / cfg.LearningRate
		opt.LRMultiplier = func(path string) float64 {
			if strings.Contains(path, "text_projection") || strings.Contains(path, "video_projection") {
				return mult
			}
			return 1
		}
	}
	return opt
}

// CodeNoDecay is main_retrieval.py's weight-decay grouping applied to our variable paths: a
// parameter is exempt when its name contains "bias", "LayerNorm.bias" or "LayerNorm.weight". No
// GARE parameter is named LayerNorm (ψ's are layer_norm1…3, the temporal blocks' ln_1/ln_2), so
// only the biases are exempt and every LayerNorm gain is decayed (Config.ExemptNormGains).
func CodeNoDecay(path string) bool { return strings.HasSuffix(path, "/bias") }

// StepStats are the loss terms of one training step (IB, Norm, Dir unweighted).
type StepStats struct {
	Step                       int
	Total, Info, IB, Norm, Dir float64
}

// stepTerms names StepStats' values for lib/train's loop (Terms[0] is the loss).
var stepTerms = []string{"loss", "info", "ib", "norm", "dir"}

// TrainOptions control a training run (Model.NewTrainer, Model.Train); the model's Config holds what
// the run learns (epochs, batch, optimizer, validation fraction, patience).
type TrainOptions struct {
	// Seed seeds the data order: lib/train's loop draws a permutation of the training pairs from it
	// every epoch.
	Seed int64
	// Steps overrides the number of steps (0: Config.Epochs epochs of ⌊N/Batch⌋ batches of the
	// pairs trained on).
	Steps int
	// Every and OnStep: OnStep(step) is called before the first step, every Every steps and after
	// the last (probes for training dynamics); an error stops training. With Every > 0 the loop
	// also takes its records (validation, history, checkpoint) every Every steps instead of every
	// epoch.
	Every  int
	OnStep func(step int) error
	// Quiet turns the progress bar off; Label names it ("": "GARE on <data set>, seed <seed>"); Log,
	// when set, receives one line per record.
	Quiet bool
	Label string
	Log   io.Writer
	// TextChunk selects the training step: 0 or SingleGraphStep for the single-graph step (the
	// default: the step every committed GARE result was trained with), n > 0 for the chunked step
	// with n texts per block (DefaultTextChunk: about a quarter of the memory for 1.5× the time;
	// the same gradient, another random stream for ψ's dropout). Models without Δ always use the
	// single-graph step.
	TextChunk int
	// Devices > 1 trains data-parallel on that many devices (the single-graph step, distributed by
	// train.Step.Distribute; TextChunk is then ignored). 0 or 1: one device.
	Devices int
	// Val is the validation split that selects the model (nil: Config.ValFraction of the training
	// pairs carved out by train.CarveValidation, or no validation when it is 0). Never the test split.
	Val *Dataset
	// Dir, when set, is the run directory of lib/train's loop: checkpoints (atomic), the best
	// validation's model in best/ (train.LoadStore(filepath.Join(Dir, train.BestDir))),
	// history.json; a Trainer on a directory that holds a checkpoint resumes from it.
	Dir string
}

// Step is a model's compiled training step: the single-graph step or the chunked one (step.go).
type Step struct {
	m       *Model
	single  *train.Step  // the single-graph step, or
	chunked *chunkedStep // the chunked one
}

// NewStep compiles (lazily) the training step for totalSteps optimizer steps (the length of the
// learning-rate schedule) with textChunk texts per block of the chunked step (the largest divisor of
// Config.Batch not above it is used), or the single-graph step for textChunk 0 or SingleGraphStep
// and for models without Δ. Both steps compute the same gradient of the same objective; they differ
// in memory, in time (the chunked step runs every forward twice) and in the random stream of ψ's
// dropout.
func (m *Model) NewStep(totalSteps, textChunk int) (*Step, error) {
	cfg := m.Config
	if cfg.UseDelta && textChunk > 0 {
		cs, err := newChunkedStep(m, m.Optimizer(totalSteps), textChunk)
		if err != nil {
			return nil, err
		}
		return &Step{m: m, chunked: cs}, nil
	}
	if textChunk < 0 && textChunk != SingleGraphStep {
		return nil, fmt.Errorf("gare: text chunk %d: want > 0 texts per block, or 0 / SingleGraphStep for the single-graph step", textChunk)
	}
	fn := func(scope *model.Scope, in []*Node) []*Node {
		g := in[0].Graph()
		w := m.Weights(g)
		inputs := Inputs{Text: in[0], Frames: in[1], FrameMask: in[2]}
		if len(in) > 3 {
			inputs.Words, inputs.WordMask = in[3], in[4]
		}
		terms := Objective(cfg, ForwardLean(cfg, w, inputs, m.dropout(scope, g)))
		return []*Node{terms.Total, terms.Info, terms.IB, terms.Norm, terms.Dir}
	}
	step, err := train.NewStep(m.backend, m.Store, m.Optimizer(totalSteps), fn)
	if err != nil {
		return nil, err
	}
	return &Step{m: m, single: step}, nil
}

// batchTensors gathers pairs idx of a paired dataset into the step's input tensors.
func batchTensors(d *Dataset, idx []int, words bool) []any {
	b := len(idx)
	text := make([]float32, b*d.TextDim)
	fw := d.Frames * d.VideoDim
	frames := make([]float32, b*fw)
	mask := make([]float32, b*d.Frames)
	var wf, wm []float32
	if words {
		wf, wm = make([]float32, b*d.Words*d.TextDim), make([]float32, b*d.Words)
	}
	for k, i := range idx {
		copy(text[k*d.TextDim:], d.Text[i*d.TextDim:(i+1)*d.TextDim])
		copy(frames[k*fw:], d.Video[i*fw:(i+1)*fw])
		copy(mask[k*d.Frames:], d.FrameMask[i*d.Frames:(i+1)*d.Frames])
		if words {
			w := d.Words * d.TextDim
			copy(wf[k*w:], d.WordFeats[i*w:(i+1)*w])
			copy(wm[k*d.Words:], d.WordMask[i*d.Words:(i+1)*d.Words])
		}
	}
	out := []any{
		tensors.FromFlatDataAndDimensions(text, b, d.TextDim),
		tensors.FromFlatDataAndDimensions(frames, b, d.Frames, d.VideoDim),
		tensors.FromFlatDataAndDimensions(mask, b, d.Frames),
	}
	if words {
		out = append(out, tensors.FromFlatDataAndDimensions(wf, b, d.Words, d.TextDim), tensors.FromFlatDataAndDimensions(wm, b, d.Words))
	}
	return out
}

// Run performs one optimizer step on the pairs idx of a paired dataset.
func (s *Step) Run(d *Dataset, idx []int) (StepStats, error) {
	cfg := s.m.Config
	useWords := cfg.UseDelta && cfg.Context == ContextWords
	if s.chunked != nil {
		if len(idx) != cfg.Batch {
			return StepStats{}, fmt.Errorf("gare: the chunked step takes batches of %d pairs, got %d", cfg.Batch, len(idx))
		}
		return s.chunked.run(batchTensors(d, idx, useWords))
	}
	out, err := s.single.Run(batchTensors(d, idx, useWords)...)
	if err != nil {
		return StepStats{}, err
	}
	defer train.FinalizeAll(out)
	v := func(i int) float64 { return float64(tensors.ToScalar[float32](out[i])) }
	return StepStats{Step: int(train.GlobalStep(s.m.Store)), Total: v(0), Info: v(1), IB: v(2), Norm: v(3), Dir: v(4)}, nil
}

// StepsFor is the number of optimizer steps of cfg.Epochs epochs over n pairs (full batches only).
func StepsFor(cfg Config, n int) int { return cfg.Epochs * (n / cfg.Batch) }

// Trainer trains a Model on lib/train's loop with the code's recipe: every epoch a permutation of
// the training pairs drawn from the loop's data-order generator (TrainOptions.Seed), cut into full
// batches of Config.Batch (the remainder is dropped), one BertAdam step per batch; validation
// (retrieval.ValMetric, text→video SumR R@1 + R@5 + R@10 of the model's own scores, on ValSplit; the
// official code selects the best test R@1, docs/official-code.md §4.4, but here the validation split is never the test
// split) at every record, the model of the best one kept and restored at the end,
// Config.Patience validations without improvement stop early; the NaN guard; with
// TrainOptions.Dir, atomic checkpoints and exact resume. Create it with Model.NewTrainer.
type Trainer struct {
	Model *Model
	// TrainSplit is what the model trains on and ValSplit what selects it (nil: no validation, the
	// last step's model is the result).
	TrainSplit, ValSplit *Dataset
	// History holds the loss terms of every step this Trainer took (a resumed run's earlier steps
	// are in the loop's records, Result.Records, as means per record).
	History []StepStats

	opts    TrainOptions
	step    *Step
	loop    *train.Loop[[]int]
	scorer  *Scorer // the validation scorer, kept across training (inference executables)
	started bool    // OnStep(0) was called
}

// NewTrainer validates the data, carves the validation split (TrainOptions.Val, else
// Config.ValFraction of d), compiles the training step and builds the loop, which loads the latest
// checkpoint of TrainOptions.Dir if there is one.
func (m *Model) NewTrainer(d *Dataset, opts TrainOptions) (*Trainer, error) {
	cfg := m.Config
	if d.VideoOf != nil {
		return nil, fmt.Errorf("gare: training needs a paired dataset (text i ↔ video i), %q is not", d.Name)
	}
	if cfg.UseDelta && cfg.Context == ContextWords && d.WordFeats == nil {
		return nil, fmt.Errorf("gare: ContextWords needs word features, dataset %q has none", d.Name)
	}
	t := &Trainer{Model: m, TrainSplit: d, ValSplit: opts.Val, opts: opts}
	if t.ValSplit == nil && cfg.ValFraction > 0 {
		keep, held, err := data.CarveValidation(d.NumTexts, cfg.ValFraction)
		if err != nil {
			return nil, fmt.Errorf("gare: dataset %q: %w", d.Name, err)
		}
		t.TrainSplit, t.ValSplit = d.Subset(d.Name+" (trained on)", keep), d.Subset(d.Name+" (validation)", held)
	}
	n := t.TrainSplit.NumTexts
	if n < cfg.Batch {
		return nil, fmt.Errorf("gare: dataset %q has %d pairs to train on, fewer than one batch of %d", d.Name, n, cfg.Batch)
	}
	total := opts.Steps
	if total <= 0 {
		total = StepsFor(cfg, n)
	}
	var err error
	chunk := opts.TextChunk
	if opts.Devices > 1 { // XLA partitions the single graph; the chunked step's blocks are host loops
		chunk = SingleGraphStep
	}
	if t.step, err = m.NewStep(total, chunk); err != nil {
		return nil, err
	}
	if opts.Devices > 1 {
		if err := t.step.single.Distribute(opts.Devices); err != nil {
			return nil, fmt.Errorf("gare: %w", err)
		}
	}
	task := train.Task[[]int]{
		Store: m.Store,
		Plan:  train.Shuffled(n, cfg.Batch),
		Step:  t.trainStep,
		Terms: stepTerms,
	}
	loopCfg := train.Config{Epochs: cfg.Epochs, Steps: opts.Steps, Seed: opts.Seed, EvalEvery: opts.Every,
		Patience: cfg.Patience, Dir: opts.Dir, Quiet: opts.Quiet, Log: opts.Log, Label: opts.Label}
	if loopCfg.Label == "" {
		loopCfg.Label = fmt.Sprintf("GARE on %s, seed %d", d.Name, opts.Seed)
	}
	if t.ValSplit != nil {
		task.Validate, loopCfg.Metric = t.validate, retrieval.ValMetric
	}
	if opts.OnStep != nil && opts.Every > 0 {
		task.Annotate = func(r *train.Record) (any, error) { return nil, opts.OnStep(r.Step) }
	}
	if t.loop, err = train.NewLoop(task, loopCfg); err != nil {
		return nil, err
	}
	return t, nil
}

// Train runs to the end (Config.Epochs, TrainOptions.Steps or an early stop). With a validation
// split the model then holds the weights of the best validation, else the last step's.
func (t *Trainer) Train() (*train.Result, error) { return t.RunEpochs(-1) }

// RunEpochs trains at most n more epochs (n < 0: to the end) and returns the result so far; the
// next call continues (as does a new Trainer on the same TrainOptions.Dir).
func (t *Trainer) RunEpochs(n int) (*train.Result, error) {
	if o := t.opts; o.OnStep != nil && o.Every > 0 && !t.started && t.loop.Step() == 0 {
		if err := o.OnStep(0); err != nil {
			return nil, err
		}
	}
	t.started = true
	return t.loop.RunEpochs(n)
}

// trainStep is the loop's Step.
func (t *Trainer) trainStep(idx []int) ([]float64, error) {
	st, err := t.step.Run(t.TrainSplit, idx)
	if err != nil {
		return nil, err
	}
	t.History = append(t.History, st)
	return []float64{st.Total, st.Info, st.IB, st.Norm, st.Dir}, nil
}

// validate is the loop's Validate: the model's own scores on the validation split, ranked both ways
// (retrieval.Values).
func (t *Trainer) validate() (map[string]float64, error) {
	var err error
	if t.scorer == nil {
		t.scorer, err = t.Model.NewScorer(t.ValSplit, t.ValSplit.Videos(), ScorerOptions{})
	} else {
		err = t.scorer.Refresh()
	}
	if err != nil {
		return nil, err
	}
	mat, err := t.scorer.Matrix()
	if err != nil {
		return nil, err
	}
	res, err := retrieval.Evaluate[float32](mat, t.ValSplit.VideoOf, retrieval.Options{VideoToText: true})
	if err != nil {
		return nil, fmt.Errorf("gare: validation on %q: %w", t.ValSplit.Name, err)
	}
	return retrieval.Values(res.Report), nil
}

// Train fits the model on a paired dataset (Model.NewTrainer, then Trainer.Train) and returns the
// loss terms of every step.
func (m *Model) Train(d *Dataset, opts TrainOptions) ([]StepStats, error) {
	t, err := m.NewTrainer(d, opts)
	if err != nil {
		return nil, err
	}
	_, err = t.Train()
	return t.History, err
}

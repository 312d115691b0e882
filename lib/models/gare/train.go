package gare

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/geoalign/geoalign/lib/progress"
	"github.com/geoalign/geoalign/lib/train"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// GlobalGradClip is the global gradient-norm clip of main_retrieval.py (clip_grad_norm_ 1.0,
// spec §4.4), applied before BertAdam's own per-tensor clipping at 1.0.
const GlobalGradClip = 1.0

// Optimizer is BertAdam configured as GARE's code does (spec §4.4): lr cfg.LearningRate, betas
// (0.9, cfg.Beta2 = 0.98), eps 1e-6, weight decay cfg.WeightDecay = 0.2 except biases and
// LayerNorms, warmup_cosine with warm-up cfg.Warmup = 0.1 over totalSteps, per-tensor clipping 1.0
// and global clipping 1.0. The code's 1e-3 LR multiplier of the CLIP backbone has no counterpart
// (our features are given); the input projections that replace CLIP train at
// cfg.ProjectionLearningRate.
func (m *Model) Optimizer(totalSteps int) *train.Adam {
	cfg := m.Config
	opt := train.BertAdam(cfg.LearningRate, totalSteps)
	opt.Beta2 = cfg.Beta2
	opt.WeightDecay = cfg.WeightDecay
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

// StepStats are the loss terms of one training step (IB, Norm, Dir unweighted).
type StepStats struct {
	Step                       int
	Total, Info, IB, Norm, Dir float64
}

// TrainOptions control Train.
type TrainOptions struct {
	// Seed orders the batches (each epoch a new permutation).
	Seed uint64
	// Steps overrides the number of steps (0: Config.Epochs epochs of ⌊N/Batch⌋ batches).
	Steps int
	// Every and OnStep: OnStep(step) is called before the first step, every Every steps and after
	// the last (probes for training dynamics); an error stops training.
	Every  int
	OnStep func(step int) error
	// Quiet turns the progress bar off.
	Quiet bool
	// TextChunk is the number of texts per block of the chunked step (0: DefaultTextChunk), or
	// SingleGraphStep. Models without Δ always use the single-graph step.
	TextChunk int
}

// Trainer holds the compiled training step of a model.
type Trainer struct {
	m       *Model
	step    *train.Step  // the single-graph step, or
	chunked *chunkedStep // the chunked one
	total   int
}

// NewTrainer compiles (lazily) the training step for totalSteps optimizer steps: the chunked step
// with DefaultTextChunk texts per block for models with Δ, the single-graph step for the baseline.
func (m *Model) NewTrainer(totalSteps int) (*Trainer, error) {
	return m.NewTrainerWithChunk(totalSteps, DefaultTextChunk)
}

// NewTrainerWithChunk is NewTrainer with textChunk texts per block of the chunked step (see
// chunkedStep; the largest divisor of Config.Batch not above it is used), or SingleGraphStep. Both
// steps compute the same gradient of the same objective; they differ in memory, in time (the chunked
// step runs every forward twice) and in the random stream of ψ's dropout.
func (m *Model) NewTrainerWithChunk(totalSteps, textChunk int) (*Trainer, error) {
	cfg := m.Config
	if cfg.UseDelta && textChunk != SingleGraphStep {
		if textChunk == 0 {
			textChunk = DefaultTextChunk
		}
		cs, err := newChunkedStep(m, m.Optimizer(totalSteps), textChunk)
		if err != nil {
			return nil, err
		}
		return &Trainer{m: m, chunked: cs, total: totalSteps}, nil
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
	return &Trainer{m: m, step: step, total: totalSteps}, nil
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
func (t *Trainer) Run(d *Dataset, idx []int) (StepStats, error) {
	cfg := t.m.Config
	useWords := cfg.UseDelta && cfg.Context == ContextWords
	if t.chunked != nil {
		if len(idx) != cfg.Batch {
			return StepStats{}, fmt.Errorf("gare: the chunked step takes batches of %d pairs, got %d", cfg.Batch, len(idx))
		}
		return t.chunked.run(batchTensors(d, idx, useWords))
	}
	out, err := t.step.Run(batchTensors(d, idx, useWords)...)
	if err != nil {
		return StepStats{}, err
	}
	v := func(i int) float64 { return float64(tensors.ToScalar[float32](out[i])) }
	return StepStats{Step: int(train.GlobalStep(t.m.Store)), Total: v(0), Info: v(1), IB: v(2), Norm: v(3), Dir: v(4)}, nil
}

// StepsFor is the number of optimizer steps of cfg.Epochs epochs over n pairs (full batches only).
func StepsFor(cfg Config, n int) int { return cfg.Epochs * (n / cfg.Batch) }

// Train fits the model on a paired dataset with the code's recipe: every epoch a fresh permutation
// of the pairs, cut into full batches of Config.Batch (the remainder is dropped), one BertAdam step
// per batch. It returns the loss terms of every step.
func (m *Model) Train(d *Dataset, opts TrainOptions) ([]StepStats, error) {
	cfg := m.Config
	if d.VideoOf != nil {
		return nil, fmt.Errorf("gare: training needs a paired dataset (text i ↔ video i), %q is not", d.Name)
	}
	if d.NumTexts < cfg.Batch {
		return nil, fmt.Errorf("gare: dataset %q has %d pairs, fewer than one batch of %d", d.Name, d.NumTexts, cfg.Batch)
	}
	if cfg.UseDelta && cfg.Context == ContextWords && d.WordFeats == nil {
		return nil, fmt.Errorf("gare: ContextWords needs word features, dataset %q has none", d.Name)
	}
	total := opts.Steps
	if total <= 0 {
		total = StepsFor(cfg, d.NumTexts)
	}
	tr, err := m.NewTrainerWithChunk(total, opts.TextChunk)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 0x626174636865)) // stream "batche"
	perBatch := d.NumTexts / cfg.Batch
	var bar *progress.Bar
	if !opts.Quiet {
		bar = progress.New("gare train", total)
	}
	var history []StepStats
	var perm []int
	start := time.Now()
	for s := 0; s < total; s++ {
		if opts.OnStep != nil && opts.Every > 0 && s%opts.Every == 0 {
			if err := opts.OnStep(s); err != nil {
				return history, err
			}
		}
		if s%perBatch == 0 {
			perm = rng.Perm(d.NumTexts)
		}
		b := s % perBatch
		st, err := tr.Run(d, perm[b*cfg.Batch:(b+1)*cfg.Batch])
		if err != nil {
			return history, fmt.Errorf("gare: step %d: %w", s, err)
		}
		history = append(history, st)
		if bar != nil {
			bar.Add(1, fmt.Sprintf("loss %.4f (%.1fs)", st.Total, time.Since(start).Seconds()))
		}
	}
	if bar != nil {
		bar.Done()
	}
	if opts.OnStep != nil && opts.Every > 0 {
		if err := opts.OnStep(total); err != nil {
			return history, err
		}
	}
	return history, nil
}

package gram

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/geoalign/geoalign/lib/progress"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/checkpoint"
	"github.com/gomlx/gomlx/ml/train/optimizer"
)

// EpochStats summarises one training epoch.
type EpochStats struct {
	Epoch       int     `json:"epoch"` // 1-based
	Step        int64   `json:"step"`  // optimizer steps taken at the end of the epoch
	Loss        float64 `json:"loss"`  // mean total loss over the epoch's batches
	Contrastive float64 `json:"contrastive"`
	DAM         float64 `json:"dam"`
	Temperature float64 `json:"temperature"` // τ at the end of the epoch
	Alpha       float64 `json:"alpha"`       // α at the end of the epoch (Hybrid only)
	// AlphaSteps is α after every step of the epoch (Hybrid only): HyperGRAM's α trajectory.
	AlphaSteps []float64   `json:"alpha_steps,omitempty"`
	Seconds    float64     `json:"seconds"`
	Eval       *Evaluation `json:"eval,omitempty"` // test-split evaluation, every Config.EvalEvery epochs
	// MatchedEuclidean and MatchedHyperbolic are the mean volumes of the test split's own tuples
	// (MatchedVolumes) when Eval is set: GRAM's alignment score of Fig. 3 is 1 − MatchedEuclidean.
	MatchedEuclidean  float64 `json:"matched_euclidean,omitempty"`
	MatchedHyperbolic float64 `json:"matched_hyperbolic,omitempty"`
}

// Trainer trains one GRAM / HyperGRAM / pairwise-cosine model on a Dataset. Create it with
// NewTrainer and call Train; with Config.CheckpointDir set, every epoch is checkpointed and a new
// Trainer on the same directory resumes where the last one stopped.
type Trainer struct {
	Config  Config
	Data    *Dataset
	Store   *model.Store
	History []EpochStats
	// OnEpoch, when set, is called after every epoch; returning an error stops Train.
	OnEpoch func(t *Trainer, s EpochStats) error

	backend compute.Backend
	step    *train.Step
	ckpt    *checkpoint.Handler

	// embed is the inference graph of the encoders, compiled once. It is built in training mode:
	// in inference graphs the Go backend prefers constants for variables
	// (Capabilities().PreferConstantsForVariables), so model.Exec would embed the weights of the
	// moment it compiled and later evaluations would see stale weights. The encoders have no
	// training-only behaviour (no dropout, no batch statistics), so the flag changes nothing else.
	embed *model.Exec
}

// historyFile holds the per-epoch statistics next to the checkpoints (the store holds the weights,
// the optimizer state, the DAM sampler's state and the step counters).
const historyFile = "history.json"

// NewTrainer validates cfg and the data, builds the model's store (initialised from cfg.Seed), the
// compiled training step and, if cfg.CheckpointDir is set, loads the latest checkpoint there.
func NewTrainer(backend compute.Backend, data *Dataset, cfg Config) (*Trainer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := data.Validate(); err != nil {
		return nil, err
	}
	if data.Train.N < cfg.BatchSize {
		return nil, fmt.Errorf("gram: train split of %q has %d samples, fewer than the batch size %d", data.Name, data.Train.N, cfg.BatchSize)
	}
	t := &Trainer{Config: cfg, Data: data, Store: model.NewStore(), backend: backend}
	if err := t.Store.SetRNGStateFromSeed(cfg.Seed); err != nil {
		return nil, err
	}
	if cfg.CheckpointDir != "" {
		var err error
		if t.ckpt, err = train.Checkpointer(t.Store, cfg.CheckpointDir, max(cfg.CheckpointKeep, 1)); err != nil {
			return nil, err
		}
		if err := t.loadHistory(); err != nil {
			return nil, err
		}
	}
	opt := train.AdamW(cfg.LearningRate, cfg.Epochs*t.StepsPerEpoch())
	opt.WeightDecay = cfg.WeightDecay
	opt.Schedule = train.WarmupLinear{Warmup: cfg.Warmup}
	opt.NoDecay = func(path string) bool { return path == AlphaPath || train.DefaultNoDecay(path) }
	var err error
	t.step, err = train.NewStep(backend, t.Store, ProjectAlpha(opt), func(scope *model.Scope, inputs []*graph.Node) []*graph.Node {
		return TrainingLoss(scope, cfg, inputs)
	})
	if err != nil {
		return nil, err
	}
	if steps := t.GlobalStep(); steps != int64(len(t.History))*int64(t.StepsPerEpoch()) {
		return nil, fmt.Errorf("gram: checkpoint in %s has %d steps but %s records %d epochs of %d steps",
			cfg.CheckpointDir, steps, historyFile, len(t.History), t.StepsPerEpoch())
	}
	return t, nil
}

// StepsPerEpoch is the number of full batches of the train split (the last partial batch is
// dropped, so that every step has the same compiled shape).
func (t *Trainer) StepsPerEpoch() int { return t.Data.Train.N / t.Config.BatchSize }

// Epoch is the number of epochs trained so far.
func (t *Trainer) Epoch() int { return len(t.History) }

// GlobalStep is the number of optimizer steps taken so far (restored from a checkpoint).
func (t *Trainer) GlobalStep() int64 { return train.GlobalStep(t.Store) }

// Train runs the remaining epochs up to Config.Epochs.
func (t *Trainer) Train() error {
	var bar *progress.Bar
	if !t.Config.Quiet {
		bar = progress.New(fmt.Sprintf("%s on %s, seed %d", t.Config.Name(), t.Data.Name, t.Config.Seed), t.Config.Epochs)
		bar.Add(t.Epoch(), "")
		defer bar.Done()
	}
	for t.Epoch() < t.Config.Epochs {
		s, err := t.RunEpoch()
		if err != nil {
			return err
		}
		if bar != nil {
			detail := fmt.Sprintf("loss %.4f τ %.4f", s.Loss, s.Temperature)
			if t.Config.Geometry == Hybrid {
				detail += fmt.Sprintf(" α %.3f", s.Alpha)
			}
			if s.Eval != nil {
				detail += fmt.Sprintf(" R@1 %.1f", s.Eval.T2V.R(1))
			}
			bar.Add(1, detail)
		}
		if t.OnEpoch != nil {
			if err := t.OnEpoch(t, s); err != nil {
				return err
			}
		}
	}
	return nil
}

// RunEpoch trains one epoch over a permutation of the train split drawn from (Seed, epoch), so
// that a resumed run sees the batches an uninterrupted one would have seen.
func (t *Trainer) RunEpoch() (EpochStats, error) {
	cfg := t.Config
	start := time.Now()
	s := EpochStats{Epoch: t.Epoch() + 1}
	split := t.Data.Train
	perm := rand.New(rand.NewPCG(uint64(cfg.Seed), uint64(s.Epoch))).Perm(split.N)
	steps := t.StepsPerEpoch()
	for b := 0; b < steps; b++ {
		batch := batchTensors(split, perm[b*cfg.BatchSize:(b+1)*cfg.BatchSize])
		outs, err := t.step.Run(batch...)
		if err != nil {
			return s, fmt.Errorf("gram: epoch %d step %d: %w", s.Epoch, b, err)
		}
		vals := make([]float64, len(outs))
		for i, o := range outs {
			vals[i] = float64(o.Value().(float32))
			o.FinalizeAll()
		}
		if math.IsNaN(vals[0]) || math.IsInf(vals[0], 0) {
			return s, fmt.Errorf("gram: epoch %d step %d: loss is %v (contrastive %v, DAM %v, τ %v, α %v)", s.Epoch, b, vals[0], vals[1], vals[2], vals[3], vals[4])
		}
		s.Loss += vals[0]
		s.Contrastive += vals[1]
		s.DAM += vals[2]
		if cfg.Geometry == Hybrid {
			s.AlphaSteps = append(s.AlphaSteps, t.Alpha())
		}
	}
	s.Loss /= float64(steps)
	s.Contrastive /= float64(steps)
	s.DAM /= float64(steps)
	s.Temperature = t.Temperature()
	s.Alpha = t.Alpha()
	s.Step = t.GlobalStep()
	if cfg.EvalEvery > 0 && (s.Epoch%cfg.EvalEvery == 0 || s.Epoch == cfg.Epochs) {
		emb, err := t.Embed(t.Data.Test)
		if err != nil {
			return s, err
		}
		ev, err := Evaluate(t.backend, emb, t.ModelScore())
		if err != nil {
			return s, err
		}
		s.Eval = &ev
		euc, hyp, err := MatchedVolumes(t.backend, emb, t.Config.RawLift)
		if err != nil {
			return s, err
		}
		s.MatchedEuclidean, s.MatchedHyperbolic = mean(euc), mean(hyp)
	}
	s.Seconds = time.Since(start).Seconds()
	t.History = append(t.History, s)
	if t.ckpt != nil {
		if err := t.ckpt.Save(); err != nil {
			return s, fmt.Errorf("gram: saving checkpoint: %w", err)
		}
		if err := t.saveHistory(); err != nil {
			return s, err
		}
	}
	return s, nil
}

// InitFrom copies the encoders and contra heads of another trainer's model into this one, which must
// not have trained yet: GRAM's recipe continues from a cosine-trained model (VAST) with the volume
// loss (GRAM §4.1). τ, α, the matching head and the optimizer state start fresh.
func (t *Trainer) InitFrom(other *Trainer) error {
	if t.GlobalStep() != 0 {
		return fmt.Errorf("gram: InitFrom on a model that already took %d steps", t.GlobalStep())
	}
	a, b := other.Config, t.Config
	if a.Hidden != b.Hidden || a.EncoderLayers != b.EncoderLayers || a.ContraDim != b.ContraDim {
		return fmt.Errorf("gram: InitFrom between models of different sizes (Hidden %d/%d, EncoderLayers %d/%d, ContraDim %d/%d)",
			a.Hidden, b.Hidden, a.EncoderLayers, b.EncoderLayers, a.ContraDim, b.ContraDim)
	}
	if !slices.Equal(other.Data.Train.Dims, t.Data.Train.Dims) {
		return fmt.Errorf("gram: InitFrom between models of different input dimensions %v and %v", other.Data.Train.Dims, t.Data.Train.Dims)
	}
	copied := 0
	for v := range other.Store.IterVariables() {
		if !strings.HasPrefix(v.Path(), "/encoder_") && !strings.HasPrefix(v.Path(), "/contra_head_") {
			continue
		}
		value, err := v.Value()
		if err != nil {
			return err
		}
		clone, err := value.LocalClone()
		if err != nil {
			return err
		}
		if _, err := t.Store.CreateVariable(v.Path(), clone); err != nil {
			return err
		}
		copied++
	}
	if copied == 0 {
		return fmt.Errorf("gram: InitFrom: the other model has no trained encoders")
	}
	return nil
}

// Temperature is the current τ.
func (t *Trainer) Temperature() float64 { return t.scalar(TemperaturePath, t.Config.TemperatureInit) }

// Alpha is the current α (Hybrid geometry), the pure geometries' fixed equivalent otherwise
// (1 for Euclidean, 0 for Hyperbolic).
func (t *Trainer) Alpha() float64 {
	switch t.Config.Geometry {
	case Euclidean:
		return 1
	case Hyperbolic:
		return 0
	}
	return t.scalar(AlphaPath, t.Config.AlphaInit)
}

func (t *Trainer) scalar(path string, fallback float64) float64 {
	v := t.Store.GetVariable(path)
	if v == nil || !v.HasValue() {
		return fallback
	}
	return float64(v.MustValue().Value().(float32))
}

// Embed runs the encoders and contra heads on a split (in eval mode) and returns the contra-head
// outputs before normalisation.
func (t *Trainer) Embed(split *Split) (*Embeddings, error) {
	if split.NumModalities() != t.Data.Train.NumModalities() {
		return nil, fmt.Errorf("gram: split has %d modalities, the model %d", split.NumModalities(), t.Data.Train.NumModalities())
	}
	if t.embed == nil {
		cfg := t.Config
		exec, err := model.NewExec(t.backend, t.Store, func(scope *model.Scope, inputs []*graph.Node) []*graph.Node {
			t.Store.SetTraining(inputs[0].Graph(), true) // variables as parameters, see Trainer.embed
			heads := make([]*graph.Node, len(inputs))
			for m, x := range inputs {
				_, heads[m] = Encode(scope, cfg, m, x)
			}
			return heads
		})
		if err != nil {
			return nil, err
		}
		t.embed = exec
	}
	all := make([]int, split.N)
	for i := range all {
		all[i] = i
	}
	outs, err := t.embed.Exec(batchTensors(split, all)...)
	if err != nil {
		return nil, err
	}
	emb := &Embeddings{N: split.N, Dim: t.Config.ContraDim, Labels: split.Labels, Relevant: split.Relevant, Attributes: split.Attributes}
	for _, o := range outs {
		emb.Heads = append(emb.Heads, o.Value().([][]float32))
		o.FinalizeAll()
	}
	return emb, nil
}

// Evaluate embeds a split and evaluates the model's own retrieval score on it (Evaluate).
func (t *Trainer) Evaluate(split *Split) (Evaluation, error) {
	emb, err := t.Embed(split)
	if err != nil {
		return Evaluation{}, err
	}
	return Evaluate(t.backend, emb, t.ModelScore())
}

// ModelScore is the score the model ranks with: −V of its geometry (with the learned α), or the
// mean pairwise cosine for the pairwise-cosine baseline.
func (t *Trainer) ModelScore() Score {
	if t.Config.Objective == PairwiseCosineObjective {
		return Score{Kind: MeanCosineScore}
	}
	return Score{Kind: VolumeScore, Geometry: t.Config.Geometry, Alpha: t.Alpha(), RawLift: t.Config.RawLift}
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// batchTensors gathers the given samples of every modality into [len(indices), dim] tensors.
func batchTensors(split *Split, indices []int) []any {
	out := make([]any, split.NumModalities())
	for m := range out {
		d := split.Dims[m]
		flat := make([]float32, len(indices)*d)
		for j, i := range indices {
			copy(flat[j*d:(j+1)*d], split.Row(m, i))
		}
		out[m] = tensors.FromFlatDataAndDimensions(flat, len(indices), d)
	}
	return out
}

func (t *Trainer) saveHistory() error {
	b, err := json.MarshalIndent(t.History, "", " ")
	if err != nil {
		return err
	}
	path := filepath.Join(t.Config.CheckpointDir, historyFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func (t *Trainer) loadHistory() error {
	path := filepath.Join(t.Config.CheckpointDir, historyFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &t.History); err != nil {
		return fmt.Errorf("gram: %s: %w", path, err)
	}
	return nil
}

// ProjectAlpha wraps an optimizer so that, after its update, HyperGRAM's α (if the model has one)
// is projected back to [0, 1]: α ← clip(α − η∇α, 0, 1) (HyperGRAM summary; spec §2).
func ProjectAlpha(inner optimizer.Interface) optimizer.Interface { return alphaProjection{inner} }

type alphaProjection struct{ inner optimizer.Interface }

func (p alphaProjection) UpdateGraph(scope *model.Scope, g *graph.Graph, loss *graph.Node) {
	p.inner.UpdateGraph(scope, g, loss)
	if v := scope.Store().GetVariable(AlphaPath); v != nil && v.InUseByGraph(g) {
		v.SetNodeValue(graph.ClipScalar(v.NodeValue(g), 0, 1))
	}
}

func (p alphaProjection) Clear(scope *model.Scope) error { return p.inner.Clear(scope) }

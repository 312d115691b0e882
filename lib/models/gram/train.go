package gram

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/seedrand"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train/optimizer"
)

// EpochStats summarises one training epoch (one record of lib/train's loop).
type EpochStats struct {
	Epoch       int     `json:"epoch"` // 1-based
	Step        int64   `json:"step"`  // optimizer steps taken at the end of the epoch
	Loss        float64 `json:"loss"`  // mean total loss over the epoch's batches
	Contrastive float64 `json:"contrastive"`
	DAM         float64 `json:"dam"`
	Temperature float64 `json:"temperature"` // τ at the end of the epoch
	Alpha       float64 `json:"alpha"`       // α at the end of the epoch (Hybrid only)
	// AlphaSteps is α after every step of the epoch (Hybrid only): HyperGRAM's α trajectory.
	AlphaSteps []float64 `json:"alpha_steps,omitempty"`
	Seconds    float64   `json:"seconds"`
	// Validation is the evaluation on the validation split (the model's own score), which selects
	// the model and stops training early; Best marks the best one so far.
	Validation *Evaluation `json:"validation,omitempty"`
	Best       bool        `json:"best,omitempty"`
	Eval       *Evaluation `json:"eval,omitempty"` // test-split evaluation, every Config.EvalEvery epochs
	// MatchedEuclidean and MatchedHyperbolic are the mean volumes of the test split's own tuples
	// (MatchedVolumes) when Eval is set: GRAM's alignment score of Fig. 3 is 1 − MatchedEuclidean.
	MatchedEuclidean  float64 `json:"matched_euclidean,omitempty"`
	MatchedHyperbolic float64 `json:"matched_hyperbolic,omitempty"`
}

// Trainer trains one GRAM / HyperGRAM / pairwise-cosine model on a Dataset with lib/train's loop.
// Create it with NewTrainer and call Train; with Config.CheckpointDir set, every epoch is
// checkpointed (atomically) and a new Trainer on the same directory resumes exactly where the last
// one stopped, even after a kill.
type Trainer struct {
	Config Config
	Data   *Dataset
	// TrainSplit is what the model trains on and ValSplit what selects it: Data.Train and Data.Val,
	// or Data.Train with Config.ValFraction carved out as ValSplit (CarveValidation); ValSplit is nil
	// without validation. Data.Test is only evaluated, never selected on.
	TrainSplit, ValSplit *Split
	Store                *model.Store
	// History holds one EpochStats per epoch trained (restored with a checkpoint).
	History []EpochStats
	// OnEpoch, when set, is called after every epoch (before its checkpoint); returning an error
	// stops Train.
	OnEpoch func(t *Trainer, s EpochStats) error

	backend compute.Backend
	step    *train.Step
	loop    *train.Loop[[]int]
	embed   *model.Exec // the encoders' inference executable (train.NewInferenceExec), compiled once
	alphas  []float64   // α after every step since the last record (Hybrid)
	lastVal *Evaluation // the latest validation, for the record that follows it
}

// NewTrainer validates cfg and the data, carves the validation split, builds the model's store
// (initialised from cfg.Seed), the compiled training step and the loop, which loads the latest
// checkpoint of cfg.CheckpointDir if there is one.
func NewTrainer(backend compute.Backend, data *Dataset, cfg Config) (*Trainer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := data.Validate(); err != nil {
		return nil, err
	}
	store, err := seedrand.NewStore(cfg.Seed)
	if err != nil {
		return nil, err
	}
	t := &Trainer{Config: cfg, Data: data, TrainSplit: data.Train, ValSplit: data.Val, Store: store, backend: backend}
	if t.ValSplit == nil && cfg.ValFraction > 0 {
		var err error
		if t.TrainSplit, t.ValSplit, err = CarveValidation(data.Train, cfg.ValFraction); err != nil {
			return nil, fmt.Errorf("gram: dataset %q: %w", data.Name, err)
		}
	}
	if t.TrainSplit.N < cfg.BatchSize {
		return nil, fmt.Errorf("gram: train split of %q has %d samples, fewer than the batch size %d", data.Name, t.TrainSplit.N, cfg.BatchSize)
	}
	t.step, err = train.NewStep(backend, t.Store, Optimizer(cfg, cfg.Epochs*t.StepsPerEpoch()), func(scope *model.Scope, inputs []*graph.Node) []*graph.Node {
		return TrainingLoss(scope, cfg, inputs)
	})
	if err != nil {
		return nil, err
	}
	task := train.Task[[]int]{
		Store:    t.Store,
		Plan:     train.Shuffled(t.TrainSplit.N, cfg.BatchSize),
		Step:     t.trainStep,
		Terms:    []string{"loss", "contrastive", "dam"},
		Annotate: t.annotate,
	}
	if t.ValSplit != nil {
		task.Validate = t.validate
	}
	t.loop, err = train.NewLoop(task, train.Config{
		Epochs: cfg.Epochs, Seed: cfg.Seed, Metric: retrieval.ValMetric, Patience: cfg.Patience,
		Dir: cfg.CheckpointDir, Keep: cfg.CheckpointKeep,
		Label: fmt.Sprintf("%s on %s, seed %d", cfg.Name(), data.Name, cfg.Seed), Quiet: cfg.Quiet,
	})
	if err != nil {
		return nil, err
	}
	return t, t.readHistory()
}

// Optimizer is the training recipe's optimizer over totalSteps steps, the one NewTrainer trains
// with: AdamW (lr cfg.LearningRate, weight decay cfg.WeightDecay except biases, normalisation
// parameters and α), warmup_linear with warm-up cfg.Warmup, α's learning rate multiplied by
// cfg.AlphaLRMultiplier, and α projected back to [0, 1] after every update (ProjectAlpha).
func Optimizer(cfg Config, totalSteps int) optimizer.Interface {
	opt := train.AdamW(cfg.LearningRate, totalSteps)
	opt.WeightDecay = cfg.WeightDecay
	opt.Schedule = train.WarmupLinear{Warmup: cfg.Warmup}
	opt.NoDecay = func(path string) bool { return path == AlphaPath || train.DefaultNoDecay(path) }
	if m := cfg.AlphaLRMultiplier; m > 0 && m != 1 {
		opt.LRMultiplier = func(path string) float64 {
			if path == AlphaPath {
				return m
			}
			return 1
		}
	}
	return ProjectAlpha(opt)
}

// StepsPerEpoch is the number of full batches of the train split (the last partial batch is
// dropped, so that every step has the same compiled shape).
func (t *Trainer) StepsPerEpoch() int { return t.TrainSplit.N / t.Config.BatchSize }

// Epoch is the number of epochs trained so far.
func (t *Trainer) Epoch() int { return t.loop.Epoch() }

// GlobalStep is the number of optimizer steps taken so far (restored from a checkpoint).
func (t *Trainer) GlobalStep() int64 { return int64(t.loop.Step()) }

// Train runs the remaining epochs up to Config.Epochs (or an early stop). With a validation split
// the store then holds the model of the best validation epoch (Trainer.Best), else the last one.
func (t *Trainer) Train() error {
	_, err := t.run()
	return err
}

// run is Train, returning the loop's result.
func (t *Trainer) run() (*train.Result, error) {
	res, err := t.loop.Run()
	if err != nil {
		return nil, err
	}
	return res, t.readHistory()
}

// RunEpoch trains one more epoch (an interrupted run, checkpointed, resumes from there) and returns
// its statistics; when that epoch ends the run, the store then holds the selected model as after Train.
func (t *Trainer) RunEpoch() (EpochStats, error) {
	if t.loop.Done() {
		return EpochStats{}, fmt.Errorf("gram: training already ended after %d epochs", t.Epoch())
	}
	if _, err := t.loop.RunEpochs(1); err != nil {
		return EpochStats{}, err
	}
	if err := t.readHistory(); err != nil {
		return EpochStats{}, err
	}
	return t.History[len(t.History)-1], nil
}

// Best is the statistics of the epoch whose validation selected the model (false without a
// validation split or before the first epoch).
func (t *Trainer) Best() (EpochStats, bool) {
	for i := len(t.History) - 1; i >= 0; i-- {
		if t.History[i].Best {
			return t.History[i], true
		}
	}
	return EpochStats{}, false
}

// trainStep is the loop's Step: one AdamW step on the batch, α recorded after it (Hybrid).
func (t *Trainer) trainStep(batch []int) ([]float64, error) {
	outs, err := t.step.Run(batchTensors(t.TrainSplit, batch)...)
	if err != nil {
		return nil, err
	}
	vals := make([]float64, 3) // total, contrastive, DAM (LossOutputs)
	for i, o := range outs {
		if i < len(vals) {
			vals[i] = float64(o.Value().(float32))
		}
		o.FinalizeAll()
	}
	if t.Config.Geometry == Hybrid {
		t.alphas = append(t.alphas, t.Alpha())
	}
	return vals, nil
}

// validate is the loop's Validate: the model's own score on the validation split, both directions
// (retrieval.Values; T→V+A SumR = R@1 + R@5 + R@10, retrieval.ValMetric, selects).
func (t *Trainer) validate() (map[string]float64, error) {
	ev, err := t.Evaluate(t.ValSplit)
	if err != nil {
		return nil, err
	}
	t.lastVal = &ev
	return retrieval.Values(ev.Report()), nil
}

// annotate is the loop's Annotate: an epoch's record becomes an EpochStats (τ, α and its trajectory,
// the validation and the optional test evaluation), which the loop stores in the checkpoint. α's
// trajectory is collected since the previous record; checkpoints are taken only at records, so a
// resumed run never misses part of it.
func (t *Trainer) annotate(r *train.Record) (any, error) {
	cfg := t.Config
	s := EpochStats{Epoch: r.Epoch, Step: int64(r.Step), Loss: r.Loss, Contrastive: r.Terms["contrastive"], DAM: r.Terms["dam"],
		Temperature: t.Temperature(), Alpha: t.Alpha(), AlphaSteps: t.alphas, Seconds: r.Seconds, Best: r.Best}
	t.alphas = nil
	if r.Val != nil {
		s.Validation, t.lastVal = t.lastVal, nil
	}
	if cfg.EvalEvery > 0 && (s.Epoch%cfg.EvalEvery == 0 || s.Epoch == cfg.Epochs) {
		emb, err := t.Embed(t.Data.Test)
		if err != nil {
			return nil, err
		}
		ev, err := Evaluate(t.backend, emb, t.ModelScore())
		if err != nil {
			return nil, err
		}
		s.Eval = &ev
		euc, hyp, err := MatchedVolumes(t.backend, emb, cfg.RawLift)
		if err != nil {
			return nil, err
		}
		s.MatchedEuclidean, s.MatchedHyperbolic = mean(euc), mean(hyp)
	}
	if t.OnEpoch != nil {
		if err := t.OnEpoch(t, s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// readHistory rebuilds History from the loop's records (each holds its EpochStats as JSON), so that
// an uninterrupted and a resumed run have the same History.
func (t *Trainer) readHistory() error {
	records := t.loop.Records()
	t.History = make([]EpochStats, len(records))
	for i, r := range records {
		if err := json.Unmarshal(r.Extra, &t.History[i]); err != nil {
			return fmt.Errorf("gram: epoch %d of the training history: %w", r.Epoch, err)
		}
	}
	return nil
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
		exec, err := train.NewInferenceExec(t.backend, t.Store, func(scope *model.Scope, inputs []*graph.Node) []*graph.Node {
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

// ProjectAlpha wraps an optimizer so that, after its update, HyperGRAM's α (if the model has one)
// is projected back to [0, 1]: α ← clip(α − η∇α, 0, 1) (HyperGRAM summary; docs/official-code.md §2).
func ProjectAlpha(inner optimizer.Interface) optimizer.Interface { return alphaProjection{inner} }

type alphaProjection struct{ inner optimizer.Interface }

func (p alphaProjection) UpdateGraph(scope *model.Scope, g *graph.Graph, loss *graph.Node) {
	p.inner.UpdateGraph(scope, g, loss)
	if v := scope.Store().GetVariable(AlphaPath); v != nil && v.InUseByGraph(g) {
		v.SetNodeValue(graph.ClipScalar(v.NodeValue(g), 0, 1))
	}
}

func (p alphaProjection) Clear(scope *model.Scope) error { return p.inner.Clear(scope) }

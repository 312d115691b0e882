package gare

import (
	"fmt"

	"github.com/geoalign/geoalign/lib/enum"
	"github.com/geoalign/geoalign/lib/loss"
)

// GapSign is η of GARE Eq. 7: the ψ query is η·(v_j − t_i).
type GapSign int

const (
	// GapVideoMinusText is η = +1, v − t: the official code (docs/official-code.md §4.1 "semantic gap") and the
	// paper's best setting (Table 7).
	GapVideoMinusText GapSign = iota
	// GapTextMinusVideo is η = −1, t − v (Table 7 ablation).
	GapTextMinusVideo
)

func (g GapSign) String() string {
	switch g {
	case GapVideoMinusText:
		return "video-minus-text"
	case GapTextMinusVideo:
		return "text-minus-video"
	}
	return fmt.Sprintf("GapSign(%d)", int(g))
}

func (g GapSign) MarshalJSON() ([]byte, error)  { return enum.MarshalJSON(g, GapTextMinusVideo) }
func (g *GapSign) UnmarshalJSON(b []byte) error { return enum.UnmarshalJSON(g, b, GapTextMinusVideo) }

// QueryMode selects what ψ attends with (GARE Table 5).
type QueryMode int

const (
	// QueryGap: the query is the semantic gap η(v̄_j − t_i) (code and paper).
	QueryGap QueryMode = iota
	// QueryText: the Table 5 "no gap" variant: the query is t_i alone; ψ's output t′_ij gives
	// Δ_ij = v̄_j − t′_ij.
	QueryText
)

func (q QueryMode) String() string {
	switch q {
	case QueryGap:
		return "gap"
	case QueryText:
		return "text"
	}
	return fmt.Sprintf("QueryMode(%d)", int(q))
}

func (q QueryMode) MarshalJSON() ([]byte, error)  { return enum.MarshalJSON(q, QueryText) }
func (q *QueryMode) UnmarshalJSON(b []byte) error { return enum.UnmarshalJSON(q, b, QueryText) }

// ContextMode selects ψ's key/value sequence C (GARE Eq. 7, Tables 4 and 7).
type ContextMode int

const (
	// ContextFrames: C = the frames of video j after the temporal transformer (code, V_frame).
	ContextFrames ContextMode = iota
	// ContextWords: C = the word features of text i (T_word).
	ContextWords
)

func (c ContextMode) String() string {
	switch c {
	case ContextFrames:
		return "frames"
	case ContextWords:
		return "words"
	}
	return fmt.Sprintf("ContextMode(%d)", int(c))
}

func (c ContextMode) MarshalJSON() ([]byte, error)  { return enum.MarshalJSON(c, ContextWords) }
func (c *ContextMode) UnmarshalJSON(b []byte) error { return enum.UnmarshalJSON(c, b, ContextWords) }

// CorrectedSide says which side Δ is added to (Table 7 "t-corrected" / "v-corrected").
type CorrectedSide int

const (
	// CorrectText: S_ij = cos(t_i + Δ_ij, v_ij) (code).
	CorrectText CorrectedSide = iota
	// CorrectVideo: S_ij = cos(t_i, v_ij + Δ_ij).
	CorrectVideo
)

func (c CorrectedSide) String() string {
	switch c {
	case CorrectText:
		return "text"
	case CorrectVideo:
		return "video"
	}
	return fmt.Sprintf("CorrectedSide(%d)", int(c))
}

func (c CorrectedSide) MarshalJSON() ([]byte, error)  { return enum.MarshalJSON(c, CorrectVideo) }
func (c *CorrectedSide) UnmarshalJSON(b []byte) error { return enum.UnmarshalJSON(c, b, CorrectVideo) }

// Defaults of the official code (docs/official-code.md §4.1–§4.4).
const (
	// CodeDim is the CLIP ViT-B/32 embedding width.
	CodeDim = 512
	// CodeFrames is the number of frames per video (12 at 1 fps for MSR-VTT, paper §3.1).
	CodeFrames = 12
	// CodeTemporalLayers is the depth of the "seqTransf" temporal transformer (docs/official-code.md §4.1).
	CodeTemporalLayers = 4
	// CodeTemporalHeads is its number of heads (CLIP text width 512 / 64).
	CodeTemporalHeads = 8
	// CodePoolTemperature is the softmax temperature of the text-conditioned pooling (the train
	// script's temp = 3; the argparse default is 5), docs/official-code.md §4.1.
	CodePoolTemperature = 3.0
	// CodePsiDropout is the dropout on ψ's linear residual (Transformer(dropout=0.3)), docs/official-code.md §4.2.
	CodePsiDropout = 0.3
	// CodeLearningRate is the learning rate of every non-CLIP module (docs/official-code.md §4.4).
	CodeLearningRate = 1e-4
	// CodeWeightDecay, CodeBeta2 and CodeWarmup are BertAdam's settings in main_retrieval.py (docs/official-code.md §4.4).
	CodeWeightDecay = 0.2
	CodeBeta2       = 0.98
	CodeWarmup      = 0.1
	// CodeBatch is the global batch (128 over 4 GPUs, all-gathered), docs/official-code.md §4.3.
	CodeBatch = 128
	// CodeEpochs is the MSR-VTT training length (paper §3.1).
	CodeEpochs = 5
	// InitStd is the N(0, 0.02) initialisation every Linear ends up with (GARE.__init__ applies
	// init_weights after building ψ, overwriting its identity init; docs/official-code.md §4.2).
	InitStd = 0.02
)

// layerNormEpsilon is torch.nn.LayerNorm's default eps, used by ψ's three LayerNorms
// (psi_module.py builds them with nn.LayerNorm).
const layerNormEpsilon = 1e-5

// temporalLayerNormEpsilon is the eps of the temporal transformer's ln_1 and ln_2: module_cross.py
// builds them with until_module.LayerNorm, whose default is 1e-12 (TF style, inside the square
// root). Safe in float32: it only matters when a token's features are constant, and then the
// output is the bias either way.
const temporalLayerNormEpsilon = 1e-12

// Config describes a GARE model, its loss and its training. DefaultConfig is the official code.
type Config struct {
	// Dim is the shared embedding width D (ψ, temporal transformer, similarity).
	Dim int
	// Frames is the number of frames per video F.
	Frames int
	// TextInputDim and VideoInputDim are the widths of the given features. When they differ from
	// Dim (our data: GloVe 100-d words, 257-d label-derived frames), a learned linear map projects
	// them to Dim; when equal (CLIP features, the benchmarks) they are used as given.
	TextInputDim, VideoInputDim int
	// Words is the (padded) number of word features per text; needed only by ContextWords.
	Words int

	// TemporalLayers and TemporalHeads: the temporal transformer over frames (0 layers: none).
	TemporalLayers, TemporalHeads int
	// PoolTemperature of the text-conditioned pooling softmax.
	PoolTemperature float64

	// UseDelta: false is the baseline (the same model without Δ: S = cos(t_i, v_ij)).
	UseDelta   bool
	Gap        GapSign
	Query      QueryMode
	Context    ContextMode
	Corrected  CorrectedSide
	PsiDropout float64

	// Loss holds the weights of L_IB, L_ε, L_dir (lib/loss; zero weights switch a term off).
	Loss loss.GAREConfig
	// PriorSigma is σ of the IB prior N(0, σ²I) (Table 6; 1 in the code).
	PriorSigma float64
	// NormalizedIB applies L_IB to Δ/‖Δ‖ instead of Δ (Table 6 "normalized Δ").
	NormalizedIB bool
	// LogitScale multiplies the cosine similarities in L_info (100 in the code).
	LogitScale float64

	// Optimisation (BertAdam as GARE's code configures it, docs/official-code.md §4.4).
	LearningRate float64
	// ProjectionLearningRate is the learning rate of the input projections, which stand in for the
	// code's pretrained CLIP encoders but start from random here (0: LearningRate).
	ProjectionLearningRate float64
	WeightDecay            float64
	// ExemptNormGains exempts the LayerNorm gains from weight decay too. false (the code): only
	// parameters whose name contains "bias" are exempt — main_retrieval.py's no_decay list names
	// "LayerNorm.weight", but ψ's LayerNorms are layer_norm1…3 and the temporal blocks' ln_1/ln_2, so
	// the code decays every gain it trains (found by the cross-check, lib/crosscheck). true: biases
	// and every normalisation parameter are exempt (train.DefaultNoDecay, what the list intends).
	ExemptNormGains bool
	Beta2           float64
	Warmup          float64
	Batch           int
	Epochs          int

	// ValFraction is the fraction of the training pairs carved out as the validation split that
	// selects the model (the best retrieval.ValMetric, checked every epoch) when training is given none
	// (data.CarveValidation, a fixed permutation). A deviation: the official code selects on the
	// test set (docs/official-code.md §4.4, §4.6 item 7); here the test split is never seen by training. 0 without
	// TrainOptions.Val trains without validation and keeps the last step's model.
	ValFraction float64
	// Patience stops training after that many validations without a better one (0: never; the
	// code trains its epochs and keeps the best).
	Patience int
}

// DefaultValFraction of the training pairs is carved out for validation: 10 %, as for GRAM.
const DefaultValFraction = 0.1

// DefaultConfig is the official code's GARE (docs/official-code.md §4): 512-d, 12 frames, 4-layer temporal
// transformer, pooling temperature 3, ψ with one head and dropout 0.3, Δ on the text side from
// the v − t gap over the video's frames, DefaultGAREConfig losses, logit scale 100, BertAdam
// lr 1e-4 / wd 0.2 / β₂ 0.98 / warmup_cosine 0.1, batch 128, 5 epochs. Inputs are 512-d CLIP
// features. Model selection on DefaultValFraction of the training pairs (the code's is on test).
func DefaultConfig() Config {
	return Config{
		Dim: CodeDim, Frames: CodeFrames, TextInputDim: CodeDim, VideoInputDim: CodeDim, Words: 32,
		TemporalLayers: CodeTemporalLayers, TemporalHeads: CodeTemporalHeads,
		PoolTemperature: CodePoolTemperature,
		UseDelta:        true, PsiDropout: CodePsiDropout,
		Loss: loss.DefaultGAREConfig(), PriorSigma: 1, LogitScale: loss.GARELogitScale,
		LearningRate: CodeLearningRate, WeightDecay: CodeWeightDecay, Beta2: CodeBeta2, Warmup: CodeWarmup,
		Batch: CodeBatch, Epochs: CodeEpochs, ValFraction: DefaultValFraction,
	}
}

// BaselineConfig is cfg without Δ and without its regularisers: the CLIP4Clip-style baseline
// (text-conditioned pooled video, InfoNCE), first row of GARE Table 3.
func BaselineConfig(cfg Config) Config {
	cfg.UseDelta = false
	cfg.Loss.Beta, cfg.Loss.LambdaNorm, cfg.Loss.LambdaDir = 0, 0, 0
	return cfg
}

// Validate reports an inconsistent configuration.
func (c Config) Validate() error {
	switch {
	case c.Dim < 2:
		return fmt.Errorf("gare: Dim = %d, need ≥ 2", c.Dim)
	case c.Frames < 1:
		return fmt.Errorf("gare: Frames = %d, need ≥ 1", c.Frames)
	case c.TextInputDim < 1 || c.VideoInputDim < 1:
		return fmt.Errorf("gare: input widths text %d / video %d must be ≥ 1", c.TextInputDim, c.VideoInputDim)
	case c.TemporalLayers < 0:
		return fmt.Errorf("gare: TemporalLayers = %d < 0", c.TemporalLayers)
	case c.TemporalLayers > 0 && (c.TemporalHeads < 1 || c.Dim%c.TemporalHeads != 0):
		return fmt.Errorf("gare: TemporalHeads = %d must divide Dim = %d", c.TemporalHeads, c.Dim)
	case c.PoolTemperature <= 0:
		return fmt.Errorf("gare: PoolTemperature = %g must be > 0", c.PoolTemperature)
	case c.PsiDropout < 0 || c.PsiDropout >= 1:
		return fmt.Errorf("gare: PsiDropout = %g outside [0, 1)", c.PsiDropout)
	case c.PriorSigma <= 0:
		return fmt.Errorf("gare: PriorSigma = %g must be > 0", c.PriorSigma)
	case c.LearningRate <= 0 || c.ProjectionLearningRate < 0:
		return fmt.Errorf("gare: learning rates %g / %g must be positive", c.LearningRate, c.ProjectionLearningRate)
	case c.WeightDecay < 0:
		return fmt.Errorf("gare: WeightDecay = %g must be ≥ 0 (a negative decay grows the weights)", c.WeightDecay)
	case !(c.Beta2 >= 0 && c.Beta2 < 1):
		// Adam's second moment is an average with weight β₂ ∈ [0, 1); β₂ ≥ 1 makes the bias
		// correction 1 − β₂ᵗ zero or negative (NaN from the first steps).
		return fmt.Errorf("gare: Beta2 = %g outside [0, 1)", c.Beta2)
	case !(c.Warmup >= 0 && c.Warmup < 1):
		return fmt.Errorf("gare: Warmup = %g outside [0, 1) (a fraction of the training steps)", c.Warmup)
	case c.Loss.Beta < 0 || c.Loss.LambdaNorm < 0 || c.Loss.LambdaDir < 0:
		return fmt.Errorf("gare: loss weights Loss.Beta = %g, Loss.LambdaNorm = %g, Loss.LambdaDir = %g must be ≥ 0",
			c.Loss.Beta, c.Loss.LambdaNorm, c.Loss.LambdaDir)
	case c.Batch < 2 || c.Epochs < 0:
		return fmt.Errorf("gare: Batch = %d (need ≥ 2) and Epochs = %d (need ≥ 0)", c.Batch, c.Epochs)
	case c.ValFraction < 0 || c.ValFraction >= 1 || c.Patience < 0:
		return fmt.Errorf("gare: ValFraction = %g outside [0, 1) or Patience = %d < 0", c.ValFraction, c.Patience)
	case c.LogitScale <= 0:
		return fmt.Errorf("gare: LogitScale = %g must be > 0", c.LogitScale)
	case c.Context == ContextWords && c.Words < 1:
		return fmt.Errorf("gare: ContextWords needs Words ≥ 1, got %d", c.Words)
	case c.Gap != GapVideoMinusText && c.Gap != GapTextMinusVideo:
		return fmt.Errorf("gare: unknown GapSign %d", c.Gap)
	case c.Query != QueryGap && c.Query != QueryText:
		return fmt.Errorf("gare: unknown QueryMode %d", c.Query)
	case c.Context != ContextFrames && c.Context != ContextWords:
		return fmt.Errorf("gare: unknown ContextMode %d", c.Context)
	case c.Corrected != CorrectText && c.Corrected != CorrectVideo:
		return fmt.Errorf("gare: unknown CorrectedSide %d", c.Corrected)
	}
	return nil
}

// eta is η as a number.
func (c Config) eta() float64 {
	if c.Gap == GapTextMinusVideo {
		return -1
	}
	return 1
}

// factored reports whether Δ's pairs can be computed from per-video bases (see psi.go): ψ attends
// over the video's own frames. Word context needs the per-pair (reference) path.
func (c Config) factored() bool { return c.Context == ContextFrames }

package gram

import (
	"fmt"
	"strings"

	"github.com/geoalign/geoalign/lib/enum"
	"github.com/geoalign/geoalign/lib/loss"
)

// Geometry selects the volume the model aligns with.
type Geometry int

const (
	// Euclidean is GRAM's volume √det G of the L2-normalised embeddings (GRAM Eq. 4; geom.VolumeMatrix).
	Euclidean Geometry = iota
	// Hyperbolic is HyperGRAM's pure-hyperbolic pseudo-volume √|det G_L| of the lifted embeddings
	// π(x) = [√(1+‖x‖²), x] (HyperGRAM summary; docs/official-code.md §2; geom.HyperbolicVolumeMatrix).
	Hyperbolic
	// Hybrid is HyperGRAM's V_α = (1−α)·V_hyp + α·V_euc with a learnable α projected to [0, 1]
	// after every step (docs/official-code.md §2; geom.HybridVolumeMatrix).
	Hybrid
)

func (g Geometry) String() string {
	switch g {
	case Euclidean:
		return "euclidean"
	case Hyperbolic:
		return "hyperbolic"
	case Hybrid:
		return "hybrid"
	}
	return fmt.Sprintf("Geometry(%d)", int(g))
}

func (g Geometry) MarshalJSON() ([]byte, error)  { return enum.MarshalJSON(g, Hybrid) }
func (g *Geometry) UnmarshalJSON(b []byte) error { return enum.UnmarshalJSON(g, b, Hybrid) }

// Objective selects the contrastive loss.
type Objective int

const (
	// VolumeObjective is GRAM's volume-contrastive loss on −V/τ (GRAM Eq. 5–6; loss.VolumeContrastive*).
	VolumeObjective Objective = iota
	// PairwiseCosineObjective is the baseline GRAM replaces: symmetric InfoNCE on cos(text, m)/τ for
	// every data modality m, averaged (GRAM Table 6 "TV, TA"; loss.PairwiseCosineInfoNCE*).
	PairwiseCosineObjective
)

func (o Objective) String() string {
	switch o {
	case VolumeObjective:
		return "volume"
	case PairwiseCosineObjective:
		return "pairwise-cosine"
	}
	return fmt.Sprintf("Objective(%d)", int(o))
}

func (o Objective) MarshalJSON() ([]byte, error) { return enum.MarshalJSON(o, PairwiseCosineObjective) }
func (o *Objective) UnmarshalJSON(b []byte) error {
	return enum.UnmarshalJSON(o, b, PairwiseCosineObjective)
}

// Directions selects which cross-entropy terms of the volume loss are trained (GRAM Table 6).
// They are named by what a row ranks, because the paper's "D2A"/"A2D" and the code's "d2a"/"a2d"
// name the same terms differently (docs/official-code.md §1.3: the code's "d2a" is text→data).
type Directions int

const (
	// BothDirections is ½[CE(anchor → data) + CE(data → anchor)]: GRAM Eq. 8 and the code.
	BothDirections Directions = iota
	// AnchorToData keeps only the term where each anchor (text) ranks the data tuples of the batch
	// (the T→V+A retrieval direction; the code's "d2a" term).
	AnchorToData
	// DataToAnchor keeps only the term where each data tuple ranks the anchors (the code's "a2d").
	DataToAnchor
)

func (d Directions) String() string {
	switch d {
	case BothDirections:
		return "both"
	case AnchorToData:
		return "anchor→data"
	case DataToAnchor:
		return "data→anchor"
	}
	return fmt.Sprintf("Directions(%d)", int(d))
}

func (d Directions) MarshalJSON() ([]byte, error)  { return enum.MarshalJSON(d, DataToAnchor) }
func (d *Directions) UnmarshalJSON(b []byte) error { return enum.UnmarshalJSON(d, b, DataToAnchor) }

// Config is a GRAM / HyperGRAM model and its training. DefaultConfig is the official GRAM code's
// behaviour (docs/official-code.md §1) on a model sized for the features available here; each paper-form switch is
// a field, and Behavior says in words which form a configuration uses.
type Config struct {
	Geometry   Geometry
	Objective  Objective
	Directions Directions

	// TwoSidedGradients is the paper's form: both sides of every cross-entropy term receive
	// gradient. The default (false) is the official code's one-sided gradients: all-gathered
	// features are stop-gradient, so each term only updates its query side (docs/official-code.md §1.3).
	TwoSidedGradients bool
	// LabelSmoothing of the contrastive cross-entropies: the code's 0.1 (loss.GRAMLabelSmoothing);
	// the paper has none (0).
	LabelSmoothing float64

	// DAM adds DAMWeight · L_DAM (GRAM Eq. 7–8; docs/official-code.md §1.4): a matching head classifies (text, data
	// tuple) pairs, with one hard negative per row drawn ∝ softmax(−V/τ) + 1e-4.
	DAM       bool
	DAMWeight float64

	// RawLift (HyperGRAM option) lifts the raw contra-head output to the hyperboloid instead of the
	// L2-normalised embedding. The default lifts π(normalize(x)), which is what the summary's volume
	// statistics imply (docs/official-code.md §2, recommendation).
	RawLift bool
	// AlphaInit is HyperGRAM's initial α (0.5); FixedAlpha keeps it constant (ablation).
	AlphaInit  float64
	FixedAlpha bool
	// AlphaLRMultiplier scales the learning rate of α alone (0 or 1: the shared rate, as the
	// summary implies). An Adam step moves a parameter by at most about its learning rate, so at
	// lr = 1e-3 and a few hundred steps α can move by at most a few tenths: a run that ends near its
	// initial 0.5 cannot tell "α converges to 0.5" from "α does not move". A multiplier such as 30
	// lets α cross [0, 1] within the run, which identifies where it is drawn to.
	AlphaLRMultiplier float64
	// TemperatureInit is GRAM's raw learnable τ (0.07, used directly, never clamped: docs/official-code.md §1.3);
	// FixedTemperature keeps it constant (e.g. τ = 1 for the HyperGRAM summary's exp(−V_α)).
	TemperatureInit  float64
	FixedTemperature bool

	// Model size. Each modality has an MLP encoder (EncoderLayers × [Dense(Hidden) + GELU]) on its
	// given features, then GRAM's contra head: a bias-free linear map to ContraDim and L2
	// normalisation (docs/official-code.md §1.1). The DAM head is Dense(MatchHidden) → GELU → LayerNorm → Dense(2).
	Hidden, EncoderLayers, ContraDim, MatchHidden int

	// Training: AdamW of the GRAM code (β = 0.9, 0.98; weight decay; warmup_linear; docs/official-code.md §1.5).
	BatchSize, Epochs int
	LearningRate      float64
	WeightDecay       float64
	Warmup            float64 // warm-up fraction of warmup_linear (code: 0.1)
	Seed              int64

	// ValFraction is the fraction of the train split carved out as the validation split that
	// selects the model (the best validation T→V+A SumR, retrieval.ValMetric) when the Dataset has no Val
	// split (CarveValidation; a deviation: the official code has none). 0 without a Dataset.Val
	// trains without validation and keeps the last epoch's model, as the official code does.
	ValFraction float64
	// Patience stops training after that many epochs without a better validation (0: never).
	Patience int
	// EvalEvery evaluates on the test split after every EvalEvery epochs (0: never during training):
	// a learning curve (EpochStats.Eval), never used to select or stop.
	EvalEvery int
	// CheckpointDir, when set, is the run directory of lib/train's loop: a checkpoint after every
	// epoch (written atomically), the best validation's model in best/, history.json; a Trainer on
	// a directory that holds a checkpoint resumes from it.
	CheckpointDir  string
	CheckpointKeep int
	// Quiet turns the progress bar off.
	Quiet bool
}

// DefaultConfig is GRAM as the official code trains it (docs/official-code.md §1): Euclidean volume, both
// directions with one-sided gradients, label smoothing 0.1, learnable raw τ = 0.07, DAM with
// weight 0.1, AdamW (lr 1e-3 here: small encoders trained from scratch, not the code's 1e-4
// fine-tuning rate), weight decay 0.01, warmup_linear 10 %, batch 64.
func DefaultConfig() Config {
	return Config{
		Geometry: Euclidean, Objective: VolumeObjective, Directions: BothDirections,
		LabelSmoothing: loss.GRAMLabelSmoothing,
		DAM:            true, DAMWeight: loss.DAMWeight,
		AlphaInit: HyperGRAMAlphaInit, TemperatureInit: loss.GRAMInitialTemperature,
		Hidden: 256, EncoderLayers: 1, ContraDim: 128, MatchHidden: 128,
		BatchSize: 64, Epochs: 20, LearningRate: 1e-3, WeightDecay: 0.01, Warmup: 0.1,
		Seed: 50, ValFraction: DefaultValFraction, CheckpointKeep: 2,
	}
}

// HyperGRAMConfig is DefaultConfig with HyperGRAM's hybrid volume (α initialised at 0.5, learned,
// projected to [0, 1]); τ, label smoothing and DAM stay as in GRAM's code (HyperGRAM has no public
// code; the summary's exp(−V_α) without τ is FixedTemperature with TemperatureInit 1 and ε = 0).
func HyperGRAMConfig() Config {
	c := DefaultConfig()
	c.Geometry = Hybrid
	return c
}

// PairwiseConfig is DefaultConfig with the pairwise-cosine InfoNCE baseline (anchor = text) instead
// of the volume loss; everything else (encoders, τ, smoothing, DAM, optimizer) is unchanged.
func PairwiseConfig() Config {
	c := DefaultConfig()
	c.Objective = PairwiseCosineObjective
	return c
}

// DefaultValFraction of the train split is carved out for validation when a dataset has no
// validation split: 10 %, enough queries for a SumR that separates epochs on the sets used here
// (≥ 50 tuples) while keeping 90 % for training.
const DefaultValFraction = 0.1

// HyperGRAMAlphaInit is HyperGRAM's initial mixing weight α (summary: "initialised at 0.5").
const HyperGRAMAlphaInit = 0.5

// Validate reports the first inconsistent field.
func (c Config) Validate() error {
	switch {
	case c.Geometry < Euclidean || c.Geometry > Hybrid:
		return fmt.Errorf("gram: unknown geometry %d", c.Geometry)
	case c.Objective < VolumeObjective || c.Objective > PairwiseCosineObjective:
		return fmt.Errorf("gram: unknown objective %d", c.Objective)
	case c.Directions < BothDirections || c.Directions > DataToAnchor:
		return fmt.Errorf("gram: unknown directions %d", c.Directions)
	case c.Objective == PairwiseCosineObjective && c.Directions != BothDirections:
		return fmt.Errorf("gram: Directions applies to the volume objective only")
	case c.RawLift && c.Geometry == Euclidean:
		return fmt.Errorf("gram: RawLift needs a hyperbolic or hybrid geometry")
	case c.LabelSmoothing < 0 || c.LabelSmoothing >= 1:
		return fmt.Errorf("gram: label smoothing %v outside [0, 1)", c.LabelSmoothing)
	case c.DAM && c.DAMWeight <= 0:
		return fmt.Errorf("gram: DAM needs a positive DAMWeight, got %v", c.DAMWeight)
	case c.AlphaInit < 0 || c.AlphaInit > 1:
		return fmt.Errorf("gram: AlphaInit %v outside [0, 1]", c.AlphaInit)
	case c.AlphaLRMultiplier < 0:
		return fmt.Errorf("gram: negative AlphaLRMultiplier %v", c.AlphaLRMultiplier)
	case c.TemperatureInit <= 0:
		return fmt.Errorf("gram: TemperatureInit must be positive, got %v", c.TemperatureInit)
	case c.Hidden <= 0 || c.EncoderLayers <= 0 || c.ContraDim <= 0 || (c.DAM && c.MatchHidden <= 0):
		return fmt.Errorf("gram: model sizes must be positive (Hidden %d, EncoderLayers %d, ContraDim %d, MatchHidden %d)",
			c.Hidden, c.EncoderLayers, c.ContraDim, c.MatchHidden)
	case c.BatchSize < 2:
		return fmt.Errorf("gram: batch size %d < 2 (a contrastive batch needs negatives)", c.BatchSize)
	case c.Epochs < 0:
		return fmt.Errorf("gram: negative epochs %d", c.Epochs)
	case c.LearningRate <= 0:
		return fmt.Errorf("gram: learning rate must be positive, got %v", c.LearningRate)
	case c.WeightDecay < 0:
		return fmt.Errorf("gram: WeightDecay = %v must be ≥ 0 (a negative decay grows the weights)", c.WeightDecay)
	case c.Warmup <= 0 || c.Warmup >= 1:
		return fmt.Errorf("gram: warm-up fraction %v outside (0, 1)", c.Warmup)
	case c.ValFraction < 0 || c.ValFraction >= 1:
		return fmt.Errorf("gram: validation fraction %v outside [0, 1)", c.ValFraction)
	case c.Patience < 0 || c.EvalEvery < 0 || c.CheckpointKeep < 0:
		return fmt.Errorf("gram: negative Patience %d, EvalEvery %d or CheckpointKeep %d", c.Patience, c.EvalEvery, c.CheckpointKeep)
	}
	return nil
}

// ValidateHyperGRAM is Validate for a configuration that must be HyperGRAM's (`geoalign train
// hypergram`): a hyperbolic or hybrid geometry, not GRAM's Euclidean one.
func (c Config) ValidateHyperGRAM() error {
	if c.Geometry != Hyperbolic && c.Geometry != Hybrid {
		return fmt.Errorf("gram: Geometry = %q is GRAM's Euclidean volume: HyperGRAM needs %q or %q; train GRAM with geoalign train gram",
			c.Geometry, Hyperbolic, Hybrid)
	}
	return c.Validate()
}

// Name is a short label of the model, e.g. "GRAM", "HyperGRAM", "pure hyperbolic", "pairwise cosine".
func (c Config) Name() string {
	if c.Objective == PairwiseCosineObjective {
		return "pairwise cosine"
	}
	switch c.Geometry {
	case Hyperbolic:
		return "pure hyperbolic"
	case Hybrid:
		if c.FixedAlpha {
			return fmt.Sprintf("hybrid (α = %.2g fixed)", c.AlphaInit)
		}
		return "HyperGRAM"
	}
	return "GRAM"
}

// Behavior says in words which official-code / paper forms the configuration uses, for the
// provenance of every table.
func (c Config) Behavior() string {
	var parts []string
	if c.Objective == VolumeObjective {
		parts = append(parts, fmt.Sprintf("%s volume loss (%s directions)", c.Geometry, c.Directions))
	} else {
		parts = append(parts, "pairwise-cosine InfoNCE (anchor = text)")
	}
	if c.TwoSidedGradients {
		parts = append(parts, "two-sided gradients (paper)")
	} else {
		parts = append(parts, "one-sided gradients (code)")
	}
	parts = append(parts, fmt.Sprintf("label smoothing %g (%s)", c.LabelSmoothing, map[bool]string{true: "code", false: "paper"}[c.LabelSmoothing == loss.GRAMLabelSmoothing]))
	if c.FixedTemperature {
		parts = append(parts, fmt.Sprintf("fixed τ = %g", c.TemperatureInit))
	} else {
		parts = append(parts, fmt.Sprintf("learnable raw τ (init %g, code)", c.TemperatureInit))
	}
	if c.DAM {
		parts = append(parts, fmt.Sprintf("DAM λ = %g on an MLP matching head (replaces the BERT cross-encoder)", c.DAMWeight))
	}
	if c.Geometry != Euclidean {
		if c.RawLift {
			parts = append(parts, "π(raw x) lift (option)")
		} else {
			parts = append(parts, "π(normalize(x)) lift (docs/official-code.md §2, default)")
		}
	}
	if c.Geometry == Hybrid {
		if c.FixedAlpha {
			parts = append(parts, fmt.Sprintf("α fixed at %g", c.AlphaInit))
		} else {
			parts = append(parts, fmt.Sprintf("α learnable (init %g), clipped to [0, 1] after each step", c.AlphaInit))
			if m := c.AlphaLRMultiplier; m > 0 && m != 1 {
				parts = append(parts, fmt.Sprintf("α's learning rate × %g", m))
			}
		}
	}
	parts = append(parts, fmt.Sprintf("AdamW lr %g wd %g warmup_linear %g, batch %d", c.LearningRate, c.WeightDecay, c.Warmup, c.BatchSize))
	sel := "last epoch's model (code) unless the dataset has a validation split"
	if c.ValFraction > 0 {
		sel = fmt.Sprintf("model of the best validation T→V+A SumR (the dataset's validation split, else %g of train carved out; the code has none)", c.ValFraction)
	}
	if c.Patience > 0 {
		sel += fmt.Sprintf(", early stop after %d epochs without a better one", c.Patience)
	}
	parts = append(parts, sel)
	return strings.Join(parts, "; ")
}

package hierarchy

import (
	"fmt"

	"github.com/gomlx/compute/dtypes"
)

// Manifold is the space the embeddings live in.
type Manifold string

const (
	// Lorentz is the hyperboloid {x : ⟨x, x⟩_L = −1/c, x₀ > 0} in R^{d+1} (Nickel & Kiela 2018).
	// Rows are stored in full coordinates (x₀, x₁ … x_d); the loss graph sees the space part.
	Lorentz Manifold = "lorentz"
	// Poincare is the open ball of radius 1/√c in R^d (Nickel & Kiela 2017).
	Poincare Manifold = "poincare"
	// Euclidean is R^d with the squared Euclidean distance, the papers' baseline.
	Euclidean Manifold = "euclidean"
)

// ParseManifold accepts "lorentz", "poincare" or "euclidean".
func ParseManifold(s string) (Manifold, error) {
	switch m := Manifold(s); m {
	case Lorentz, Poincare, Euclidean:
		return m, nil
	}
	return "", fmt.Errorf("hierarchy: unknown manifold %q (want lorentz, poincare or euclidean)", s)
}

// Config of one training run. Zero values are not meaningful; start from PaperConfig or
// OfficialCodeConfig and change fields.
type Config struct {
	Manifold  Manifold
	Dim       int     // d: embedding dimension (Lorentz rows have d+1 coordinates)
	Curvature float64 // c > 0: the manifold has curvature −c (1 in both papers); ignored for Euclidean

	Epochs       int
	BatchSize    int     // positive (child, parent) pairs per step
	Negatives    int     // K: negative parents sampled per positive pair
	LearningRate float64 // η; the loss is the mean over the batch, as in the official code

	// Burn-in (2017 §4): the first BurnInEpochs epochs use η·BurnInLRFactor, and negatives are
	// drawn with probability ∝ (times the node is a parent)^BurnInDampening instead of uniformly
	// (official code hype/graph_dataset.pyx; 0 turns this off and keeps uniform sampling).
	BurnInEpochs    int
	BurnInLRFactor  float64
	BurnInDampening float64

	// InitRange: coordinates start uniform in (−InitRange, InitRange) (space part for Lorentz).
	InitRange float64

	// ConeWeight λ > 0 adds HLFormer's partial-order-preservation term to the loss (Lorentz only):
	// λ times the batch mean of relu(EA(parent, child) − HA(parent)), the parent (the general
	// concept) as the cone's apex as the video is in HLFormer (Eq. 18–21; ConeLoss). 0, the
	// default, is the papers' loss alone; omitted from the JSON when 0, so that the run
	// directories of earlier runs still match their configuration.
	ConeWeight float64 `json:",omitempty"`

	// Reproject puts every updated Lorentz row back on the hyperboloid by recomputing
	// x₀ = √(1/c + ‖x‖²) after the exponential map, as the official code's normalize() does.
	// The deviation before reprojection is recorded in Stats either way.
	Reproject bool

	DType dtypes.DType // dtype of the loss graph: Float32 or Float64 (the table is float64)
	Seed  int64
}

// PaperConfig is the setting of Nickel & Kiela 2017 §4: 10 negatives, burn-in of 10 epochs at
// η/10 from points uniform in (−0.001, 0.001), curvature −1. Epochs, batch size and learning rate
// are not given in the paper: 300 epochs and batch 10 are the official train-mammals.sh values,
// and the learning rates (1.0 hyperbolic, 0.3 Euclidean) reach the papers' regime on the mammal
// closure in well under a minute per run on two CPU cores (figures/wordnet/mammal_reconstruction.md).
func PaperConfig(m Manifold, dim int) Config {
	lr := 1.0
	if m == Euclidean {
		lr = 0.3
	}
	return Config{
		Manifold:        m,
		Dim:             dim,
		Curvature:       1,
		Epochs:          300,
		BatchSize:       10,
		Negatives:       10,
		LearningRate:    lr,
		BurnInEpochs:    10,
		BurnInLRFactor:  0.1,
		BurnInDampening: 0.75,
		InitRange:       1e-3,
		Reproject:       true,
		DType:           dtypes.Float64,
		Seed:            1,
	}
}

// OfficialCodeConfig is facebookresearch/poincare-embeddings train-mammals.sh (Poincaré, dim 5,
// lr 0.3, 300 epochs, 50 negatives, burn-in 20, batch 10) with the embed.py defaults it relies on
// (burn-in multiplier 0.01, dampening 0.75) and the Lorentz learning rate of train-nouns.sh
// (0.5). The official code trains in float64.
func OfficialCodeConfig(m Manifold, dim int) Config {
	c := PaperConfig(m, dim)
	c.Negatives = 50
	c.BurnInEpochs = 20
	c.BurnInLRFactor = 0.01
	c.LearningRate = 0.3
	if m == Lorentz {
		c.LearningRate = 0.5
	}
	return c
}

// Validate reports the first unusable field.
func (c Config) Validate() error {
	switch {
	case c.Manifold != Lorentz && c.Manifold != Poincare && c.Manifold != Euclidean:
		return fmt.Errorf("hierarchy: Config.Manifold %q is not lorentz, poincare or euclidean", c.Manifold)
	case c.Dim < 1:
		return fmt.Errorf("hierarchy: Config.Dim = %d, want ≥ 1", c.Dim)
	case c.Manifold != Euclidean && !(c.Curvature > 0):
		return fmt.Errorf("hierarchy: Config.Curvature = %g, want > 0 (the manifold has curvature −c)", c.Curvature)
	case c.Epochs < 0 || c.BurnInEpochs < 0:
		return fmt.Errorf("hierarchy: Config.Epochs = %d and BurnInEpochs = %d must be ≥ 0", c.Epochs, c.BurnInEpochs)
	case c.BatchSize < 1:
		return fmt.Errorf("hierarchy: Config.BatchSize = %d, want ≥ 1", c.BatchSize)
	case c.Negatives < 1:
		return fmt.Errorf("hierarchy: Config.Negatives = %d, want ≥ 1", c.Negatives)
	case !(c.LearningRate > 0) || !(c.BurnInLRFactor > 0):
		return fmt.Errorf("hierarchy: Config.LearningRate = %g and BurnInLRFactor = %g must be > 0", c.LearningRate, c.BurnInLRFactor)
	case c.BurnInDampening < 0:
		return fmt.Errorf("hierarchy: Config.BurnInDampening = %g, want ≥ 0", c.BurnInDampening)
	case !(c.ConeWeight >= 0):
		return fmt.Errorf("hierarchy: Config.ConeWeight = %g, want ≥ 0", c.ConeWeight)
	case c.ConeWeight > 0 && c.Manifold != Lorentz:
		return fmt.Errorf("hierarchy: Config.ConeWeight = %g needs the lorentz manifold, got %s (the entailment cone is HLFormer's, on the hyperboloid)", c.ConeWeight, c.Manifold)
	case !(c.InitRange > 0):
		return fmt.Errorf("hierarchy: Config.InitRange = %g, want > 0", c.InitRange)
	case c.DType != dtypes.Float32 && c.DType != dtypes.Float64:
		return fmt.Errorf("hierarchy: Config.DType = %s, want Float32 or Float64", c.DType)
	}
	return nil
}

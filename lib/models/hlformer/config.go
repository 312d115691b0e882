package hlformer

import (
	"fmt"
	"strings"

	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/enum"
)

// Aggregation is how an HLFormer block fuses its parallel attention branches (HLFormer Table 2, rows 6–7).
type Aggregation int

const (
	// MAIM is the Mean-Guided Adaptive Interaction Module (HLFormer Eq. 17; docs/official-code.md §3.2), the default.
	MAIM Aggregation = iota
	// MeanPooling averages the branches ("w/ MP", Table 2 row 6).
	MeanPooling
	// ConcatLinear concatenates the branches and projects them back with a linear layer ("w/ CL", Table 2 row 7).
	ConcatLinear
)

func (a Aggregation) String() string {
	switch a {
	case MAIM:
		return "MAIM"
	case MeanPooling:
		return "MP"
	case ConcatLinear:
		return "CL"
	}
	return fmt.Sprintf("Aggregation(%d)", int(a))
}

func (a Aggregation) MarshalJSON() ([]byte, error)  { return enum.MarshalJSON(a, ConcatLinear) }
func (a *Aggregation) UnmarshalJSON(b []byte) error { return enum.UnmarshalJSON(a, b, ConcatLinear) }

// Encoder selects the video encoder architecture.
type Encoder int

const (
	// HLFormerEncoder is the paper's model: an HLFormer block (N_E Euclidean + N_L Lorentz Gaussian
	// attention branches fused by the Aggregation) in each of the gaze and glance branches.
	HLFormerEncoder Encoder = iota
	// MSSLEncoder is our MS-SL-like baseline (Dong et al., MS-SL, ACM MM 2022): one plain Euclidean
	// Transformer block per branch (no Gaussian mask, no Lorentz branch, no fusion module) and clip-level
	// scores taken as the maximum over the mean-pooled multi-scale sliding windows of the 32 clips
	// (all window sizes 1…32, stride 1: 528 proposals). A simplification of MS-SL, not a port.
	MSSLEncoder
)

func (e Encoder) String() string {
	switch e {
	case HLFormerEncoder:
		return "HLFormer"
	case MSSLEncoder:
		return "MS-SL"
	}
	return fmt.Sprintf("Encoder(%d)", int(e))
}

func (e Encoder) MarshalJSON() ([]byte, error)  { return enum.MarshalJSON(e, MSSLEncoder) }
func (e *Encoder) UnmarshalJSON(b []byte) error { return enum.UnmarshalJSON(e, b, MSSLEncoder) }

// MaskForm selects the Gaussian attention mask formula (docs/official-code.md §3.7 item 1).
type MaskForm int

const (
	// MaskCode is the official code's mask: positions normalised to [0, 1], centres i/L, columns
	// j/(L−1), σ = max(width, 0.01)/9, divided by the row maximum (docs/official-code.md §3.2).
	MaskCode MaskForm = iota
	// MaskPaper is HLFormer Eq. 10: M(i, j) = (1/2π)·exp(−(j − i)²/σ²) in index space with σ = width.
	MaskPaper
)

func (m MaskForm) String() string {
	switch m {
	case MaskCode:
		return "code"
	case MaskPaper:
		return "paper"
	}
	return fmt.Sprintf("MaskForm(%d)", int(m))
}

func (m MaskForm) MarshalJSON() ([]byte, error)  { return enum.MarshalJSON(m, MaskPaper) }
func (m *MaskForm) UnmarshalJSON(b []byte) error { return enum.UnmarshalJSON(m, b, MaskPaper) }

// LorentzLogits selects the Lorentz attention logit formula (docs/official-code.md §3.7 item 2).
type LorentzLogits int

const (
	// LogitsCode is (2 + 2⟨q, k⟩_L)/s + b with learnable s (init √(n+1)) and b (init 0) (docs/official-code.md §3.2).
	LogitsCode LorentzLogits = iota
	// LogitsPaper is HLFormer Eq. 15: −d²_L(q, k)/√(n+1) = (2 + 2⟨q, k⟩_L)/√(n+1), fixed, no bias.
	LogitsPaper
)

func (l LorentzLogits) String() string {
	switch l {
	case LogitsCode:
		return "code"
	case LogitsPaper:
		return "paper"
	}
	return fmt.Sprintf("LorentzLogits(%d)", int(l))
}

func (l LorentzLogits) MarshalJSON() ([]byte, error)  { return enum.MarshalJSON(l, LogitsPaper) }
func (l *LorentzLogits) UnmarshalJSON(b []byte) error { return enum.UnmarshalJSON(l, b, LogitsPaper) }

// Config is the architecture of an HLFormer model. The zero value is not usable: start from
// PaperConfig or CPUConfig and adjust.
type Config struct {
	VideoDim int // input video feature size D (1024 for Charades I3D; 257 for our label-derived features)
	QueryDim int // input token feature size D_q (1024 RoBERTa; 100 for our GloVe tokens)

	Dim        int // hidden size d (384)
	Heads      int // attention heads (4), in both the Euclidean and the Lorentz attention
	LorentzDim int // n of the Lorentz attention space L^n ⊂ R^{n+1} (127); n+1 must be divisible by Heads

	// EuclideanWidths and LorentzWidths list the Gaussian widths of the Euclidean and Lorentz branches of
	// each HLFormer block, one entry per branch; 0 means no mask (the code's wid = None). The paper's
	// default is {0, 2, 4, 8} for both (N_E = N_L = 4, N_O = 8).
	EuclideanWidths []float64
	LorentzWidths   []float64

	Aggregation Aggregation
	// BranchTemperature is MAIM's softmax temperature τ over branches (sft_factor: 0.6 Charades, 0.09 TVR).
	BranchTemperature float64
	Encoder           Encoder
	Mask              MaskForm
	LorentzLogits     LorentzLogits

	Dropout      float64 // config.drop: attention probabilities, residual paths, FFN, Lorentz layers (0.25 Charades)
	InputDropout float64 // config.input_drop: input projections and positional embeddings (0.25 Charades)

	ClipLen  int // map_size: clips per video (32)
	FrameLen int // max_ctx_l: frames per video, padded (128)
	QueryLen int // max_desc_l: tokens per query, padded (30)

	// Gaze and Glance switch the frame-level and clip-level branches (Table 2 rows 1–2); at least one.
	Gaze, Glance bool
	// ClipScoreWeight and FrameScoreWeight are α_c and α_f of S = α_c S_c + α_f S_f (0.7, 0.3).
	ClipScoreWeight, FrameScoreWeight float64
}

// InitStd is the standard deviation of the N(0, 0.02) initialisation that HLFormer_Net.reset_parameters
// applies to every nn.Linear and nn.Embedding (config.initializer_range; docs/official-code.md §3.2). Biases start at 0,
// LayerNorm at (1, 0).
const InitStd = 0.02

// LayerNormEpsilon is torch.nn.LayerNorm's default eps, used by every LayerNorm of the official model.
const LayerNormEpsilon = 1e-5

// PaperWidths are the Gaussian widths of the official HLFormerBlock: None, 2, 4, 8 (docs/official-code.md §3.2).
var PaperWidths = []float64{0, 2, 4, 8}

// PaperConfig is the official Charades-STA configuration (HLF src/Configs/cha.py; docs/official-code.md §3.2, Table 4):
// d = 384, 4 heads, n = 127, 4 Euclidean + 4 Lorentz branches with widths None/2/4/8, MAIM with τ = 0.6,
// dropout 0.25, 32 clips, 128 frames, 30 tokens, S = 0.7 S_c + 0.3 S_f. videoDim and queryDim are the
// input feature sizes (1024 and 1024 for the official I3D and RoBERTa features).
func PaperConfig(videoDim, queryDim int) Config {
	return Config{
		VideoDim: videoDim, QueryDim: queryDim,
		Dim: 384, Heads: 4, LorentzDim: 127,
		EuclideanWidths: append([]float64(nil), PaperWidths...),
		LorentzWidths:   append([]float64(nil), PaperWidths...),
		Aggregation:     MAIM, BranchTemperature: 0.6,
		Dropout: 0.25, InputDropout: 0.25,
		ClipLen: 32, FrameLen: 128, QueryLen: 30,
		Gaze: true, Glance: true,
		ClipScoreWeight: 0.7, FrameScoreWeight: 0.3,
	}
}

// CPUConfig is the configuration we train on this 2-core CPU: the official architecture and constants
// (4 + 4 branches, widths None/2/4/8, MAIM τ = 0.6, 32 clips, 128 frames, 30 tokens, dropout 0.25)
// with the widths shrunk: d = 64 instead of 384 and a Lorentz space L^31 ⊂ R^32 instead of L^127 (4
// heads of 8 coordinates instead of 32). The label-derived Charades features (257-d) and GloVe tokens
// (100-d) carry far less information than I3D/RoBERTa, and a paper-sized training step takes ~30 s here
// (BenchmarkPairedHLFormerTrainStep), which would make one full Charades run last days.
func CPUConfig(videoDim, queryDim int) Config {
	c := PaperConfig(videoDim, queryDim)
	c.Dim, c.LorentzDim = 64, 31
	return c
}

// EuclideanOnly returns c with every Lorentz branch replaced by a Euclidean one of the same width, so
// the block keeps N_O branches (the N_L/N_E = 0 point of HLFormer Fig. 3; our "Euclidean-only,
// GMMFormer-like" model).
func (c Config) EuclideanOnly() Config {
	c.EuclideanWidths = append(append([]float64(nil), c.EuclideanWidths...), c.LorentzWidths...)
	c.LorentzWidths = nil
	return c
}

// LorentzOnly returns c with every Euclidean branch replaced by a Lorentz one of the same width.
func (c Config) LorentzOnly() Config {
	c.LorentzWidths = append(append([]float64(nil), c.LorentzWidths...), c.EuclideanWidths...)
	c.EuclideanWidths = nil
	return c
}

// Branches is N_O = N_E + N_L.
func (c Config) Branches() int { return len(c.EuclideanWidths) + len(c.LorentzWidths) }

// Validate reports the first inconsistent field.
func (c Config) Validate() error {
	var errs []string
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Sprintf(format, args...))
		}
	}
	check(c.VideoDim > 0, "VideoDim = %d must be > 0", c.VideoDim)
	check(c.QueryDim > 0, "QueryDim = %d must be > 0", c.QueryDim)
	check(c.Dim > 0 && c.Heads > 0 && c.Dim%c.Heads == 0, "Dim = %d must be a positive multiple of Heads = %d", c.Dim, c.Heads)
	if c.Encoder == HLFormerEncoder {
		check(c.Branches() > 0, "an HLFormer block needs at least one branch (EuclideanWidths and LorentzWidths are empty)")
		if len(c.LorentzWidths) > 0 {
			check(c.LorentzDim > 0 && (c.LorentzDim+1)%c.Heads == 0 && (c.LorentzDim+1)/c.Heads >= 2,
				"LorentzDim+1 = %d must be divisible by Heads = %d with at least 2 coordinates per head", c.LorentzDim+1, c.Heads)
		}
		check(c.Aggregation != MAIM || c.BranchTemperature > 0, "BranchTemperature = %g must be > 0 for MAIM", c.BranchTemperature)
	}
	for _, w := range append(append([]float64(nil), c.EuclideanWidths...), c.LorentzWidths...) {
		check(w >= 0, "Gaussian width %g must be ≥ 0 (0 = no mask)", w)
	}
	check(c.Dropout >= 0 && c.Dropout < 1 && c.InputDropout >= 0 && c.InputDropout < 1, "dropout rates must be in [0, 1)")
	check(c.ClipLen > 0 && c.FrameLen > 1 && c.QueryLen > 0, "ClipLen, FrameLen (> 1), QueryLen must be positive")
	check(c.ClipLen == prvr.ClipCount, "ClipLen = %d: every video is pooled into prvr.ClipCount = %d clips (the official map_size), so ClipLen must be %d",
		c.ClipLen, prvr.ClipCount, prvr.ClipCount)
	check(c.Aggregation >= MAIM && c.Aggregation <= ConcatLinear, "unknown Aggregation %d (0 MAIM, 1 mean pooling, 2 concat-linear)", c.Aggregation)
	check(c.Encoder == HLFormerEncoder || c.Encoder == MSSLEncoder, "unknown Encoder %d (0 HLFormer, 1 MS-SL-like)", c.Encoder)
	check(c.Mask == MaskCode || c.Mask == MaskPaper, "unknown Mask %d (0 code, 1 paper)", c.Mask)
	check(c.LorentzLogits == LogitsCode || c.LorentzLogits == LogitsPaper, "unknown LorentzLogits %d (0 code, 1 paper)", c.LorentzLogits)
	check(c.ClipScoreWeight >= 0 && c.FrameScoreWeight >= 0 && c.ClipScoreWeight+c.FrameScoreWeight > 0,
		"score weights ClipScoreWeight = %g, FrameScoreWeight = %g must be ≥ 0, not both 0", c.ClipScoreWeight, c.FrameScoreWeight)
	check(c.Gaze || c.Glance, "at least one of the gaze (frame) and glance (clip) branches must be on")
	if errs != nil {
		return fmt.Errorf("hlformer: bad config: %s", strings.Join(errs, "; "))
	}
	return nil
}

// Validate reports the first inconsistent weight of the objective: every weight and margin ≥ 0,
// a hard-negative pool of at least one, the entailment cone's K > 0.
func (l LossConfig) Validate() error {
	switch {
	case l.ClipNCE < 0 || l.FrameNCE < 0 || l.Diversity < 0 || l.POP < 0:
		return fmt.Errorf("hlformer: loss weights ClipNCE %g, FrameNCE %g, Diversity %g, POP %g must be ≥ 0", l.ClipNCE, l.FrameNCE, l.Diversity, l.POP)
	case l.Margin < 0 || l.DiversityMargin < 0:
		return fmt.Errorf("hlformer: margins Margin %g, DiversityMargin %g must be ≥ 0", l.Margin, l.DiversityMargin)
	case l.DiversityScale <= 0 || l.DiversityFocal < 0:
		return fmt.Errorf("hlformer: DiversityScale %g must be > 0 and DiversityFocal %g ≥ 0", l.DiversityScale, l.DiversityFocal)
	case l.HardPoolSize < 1:
		return fmt.Errorf("hlformer: HardPoolSize = %d must be ≥ 1", l.HardPoolSize)
	case l.MinRadius <= 0:
		return fmt.Errorf("hlformer: MinRadius = %g must be > 0 (the entailment cone's K)", l.MinRadius)
	}
	return nil
}

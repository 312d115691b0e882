package hlformer

import (
	"math"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
)

const (
	// MaskMinWidth is the code's width.clamp(1e-2) in generate_gauss_weight (docs/official-code.md §3.2).
	MaskMinWidth = 0.01
	// MaskWidthDivisor: the code's σ is the clamped width divided by 9 (docs/official-code.md §3.2), positions being
	// normalised to [0, 1]; width 2 gives σ ≈ 0.22 of the sequence length.
	MaskWidthDivisor = 9.0
)

// GaussianMask returns the L×L Gaussian attention mask of the given width, or nil for width 0 (the
// code's wid = None: no mask). The mask multiplies the attention logits (HLFormer Eq. 10, 15).
//
// MaskCode (default, generate_gauss_weight; docs/official-code.md §3.2): with centre c_i = i/L (divided by L, not L−1),
// position p_j = j/(L−1) (torch.linspace(0, 1, L)) and σ = max(width, MaskMinWidth)/MaskWidthDivisor,
//
//	M[i, j] = N(p_j; c_i, σ) / max_j' N(p_j'; c_i, σ) = exp(−((p_j − c_i)² − min_j' (p_j' − c_i)²)/(2σ²)).
//
// We evaluate the right-hand form: the same numbers, but finite where the code's density underflows
// (σ so small that every column of a row is ≳ 38σ from its centre, giving 0/0 = NaN in the code).
//
// MaskPaper (HLFormer Eq. 10): M[i, j] = (1/2π)·exp(−(j − i)²/σ²) with σ = width, in index space.
func GaussianMask(length int, width float64, form MaskForm) [][]float64 {
	if width == 0 {
		return nil
	}
	m := make([][]float64, length)
	switch form {
	case MaskPaper:
		for i := range m {
			m[i] = make([]float64, length)
			for j := range m[i] {
				d := float64(j - i)
				m[i][j] = math.Exp(-d*d/(width*width)) / (2 * math.Pi)
			}
		}
	default:
		sigma := math.Max(width, MaskMinWidth) / MaskWidthDivisor
		for i := range m {
			m[i] = make([]float64, length)
			centre := float64(i) / float64(length)
			sq := make([]float64, length)
			nearest := math.Inf(1)
			for j := range sq {
				p := 0.0
				if length > 1 {
					p = float64(j) / float64(length-1)
				}
				sq[j] = (p - centre) * (p - centre)
				nearest = math.Min(nearest, sq[j])
			}
			// The ratio to the row maximum in the exponent, so that narrow masks on short sequences
			// (where the code's density underflows to 0/0 = NaN) stay finite.
			for j := range sq {
				m[i][j] = math.Exp(-(sq[j] - nearest) / (2 * sigma * sigma))
			}
		}
	}
	return m
}

// gaussianMaskNode is GaussianMask as a [1, 1, L, L] constant of dtype (nil for width 0), ready to
// broadcast over [batch, heads, L, L] logits.
func gaussianMaskNode(g *Graph, dtype dtypes.DType, length int, width float64, form MaskForm) *Node {
	m := GaussianMask(length, width, form)
	if m == nil {
		return nil
	}
	flat := make([]float64, 0, length*length)
	for _, row := range m {
		flat = append(flat, row...)
	}
	return ConvertDType(Reshape(Const(g, flat), 1, 1, length, length), dtype)
}

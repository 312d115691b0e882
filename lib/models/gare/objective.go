package gare

import (
	"github.com/geoalign/geoalign/lib/loss"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
)

// Objective is GARE's training loss (Eq. 28, docs/official-code.md §4.3) on a forward pass, built from lib/loss:
// the baseline minimises L_info = loss.ScaledInfoNCE(S, 100) alone; with Δ it is
// loss.GARETotal(S, 100, Δ, cfg.Loss). Two Table 6 options change only the IB term's input
// (ibInput): PriorSigma σ ≠ 1 and NormalizedIB.
//
// The returned IB, Norm and Dir terms are unweighted; they are zero nodes for the baseline.
func Objective(cfg Config, out Outputs) loss.GARETerms {
	g := out.Sim.Graph()
	scale := Scalar(g, out.Sim.DType(), cfg.LogitScale)
	if !cfg.UseDelta {
		info := loss.ScaledInfoNCE(out.Sim, scale)
		zero := ZerosLike(info)
		return loss.GARETerms{Total: info, Info: info, IB: zero, Norm: zero, Dir: zero}
	}
	return loss.GARETotalFromParts(out.Sim, scale, loss.GAREPartsOf(ibInput(cfg, out.Delta), out.Delta, cfg.Loss), cfg.Loss)
}

// ibInput is what L_IB sees of Δ [A, B, D] (pair by pair, so a block of texts at a time gives the
// same rows):
//
//   - PriorSigma σ ≠ 1: KL(N(μ, s²) ‖ N(0, σ²I)) = KL(N(μ/σ, (s/σ)²) ‖ N(0, I)), so L_IB is
//     the same function on Δ/σ (the std epsilon 1e-6 then applies to s/σ);
//   - NormalizedIB: Δ_ij/‖Δ_ij‖ (the F.normalize floor of lib/loss is not needed: ψ's output is
//     never exactly zero for LayerNorm-ed inputs with non-zero weights).
func ibInput(cfg Config, delta *Node) *Node {
	x := delta
	if cfg.NormalizedIB {
		x = Div(x, Sqrt(ReduceAndKeep(Square(x), ReduceSum, -1)))
	}
	if cfg.PriorSigma != 1 {
		x = DivScalar(x, cfg.PriorSigma)
	}
	return x
}

package gare

import (
	"github.com/geoalign/geoalign/lib/loss"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
)

// Objective is GARE's training loss (Eq. 28, spec §4.3) on a forward pass, built from lib/loss:
// the baseline minimises L_info = loss.ScaledInfoNCE(S, 100) alone; with Δ it is
// loss.GARETotal(S, 100, Δ, cfg.Loss). Two Table 6 options change only the IB term:
//
//   - PriorSigma σ ≠ 1: KL(N(μ, s²) ‖ N(0, σ²I)) = KL(N(μ/σ, (s/σ)²) ‖ N(0, I)), so L_IB is
//     loss.IBRelaxWith(Δ/σ) — the same function on rescaled increments (the std epsilon 1e-6
//     then applies to s/σ);
//   - NormalizedIB: L_IB on Δ_ij/‖Δ_ij‖ (the F.normalize floor of lib/loss is not needed: ψ's
//     output is never exactly zero for LayerNorm-ed inputs with non-zero weights).
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
	if cfg.PriorSigma == 1 && !cfg.NormalizedIB {
		return loss.GARETotal(out.Sim, scale, out.Delta, cfg.Loss)
	}
	lc := cfg.Loss
	lc.Beta = 0
	terms := loss.GARETotal(out.Sim, scale, out.Delta, lc)
	ibInput := out.Delta
	if cfg.NormalizedIB {
		ibInput = Div(ibInput, Sqrt(ReduceAndKeep(Square(ibInput), ReduceSum, -1)))
	}
	if cfg.PriorSigma != 1 {
		ibInput = DivScalar(ibInput, cfg.PriorSigma)
	}
	terms.IB = loss.IBRelaxWith(ibInput, cfg.Loss.IB)
	terms.Total = Add(terms.Total, MulScalar(terms.IB, cfg.Loss.Beta))
	return terms
}

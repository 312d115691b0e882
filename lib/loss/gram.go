package loss

import (
	"github.com/geoalign/geoalign/lib/seedrand"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
)

// GRAM and HyperGRAM losses. The volume matrices come from lib/geom (VolumeMatrix,
// HyperbolicVolumeMatrix, or a hybrid V_α = (1−α)V_hyp + αV_euc built from them); this file only turns
// them into losses.

// GRAMLabelSmoothing is the label smoothing of the official GRAM code's volume cross-entropy
// (F.cross_entropy(..., label_smoothing=0.1), docs/official-code.md §1.3 and §1.7 item 1). The paper (Eq. 5–6) has none:
// pass 0 for the paper's form.
const GRAMLabelSmoothing = 0.1

// GRAMInitialTemperature is the initial value of GRAM's learnable temperature `contra_temp`: a raw
// parameter (not log-parameterised, never clamped) that divides the volume (docs/official-code.md §1.3).
const GRAMInitialTemperature = 0.07

// DAMWeight is λ in GRAM Eq. 8 (= itm_ratio 0.1 in the code, docs/official-code.md §1.4; HyperGRAM's β = 0.1, docs/official-code.md §2).
const DAMWeight = 0.1

// DAMWeightFloor is added to every negative-sampling probability before the positive is zeroed:
// softmax(−V/τ) + 1e-4 (docs/official-code.md §1.4). It keeps every negative reachable even when the softmax underflows.
const DAMWeightFloor = 1e-4

// gumbelUniformFloor keeps the uniform sample of the Gumbel-max trick away from 0, where −log(−log u)
// would be −∞. 1e-20 is far below float32's 2⁻²⁴ sampling resolution, so it never moves a real sample.
const gumbelUniformFloor = 1e-20

// VolumeContrastive is the symmetric volume-contrastive loss as the GRAM code computes it (GRAM Eq. 5–6,
// docs/official-code.md §1.3):
//
//	½ [ CE_rows(−V/τ) + CE_rows(−Vᵀ/τ) ],  targets = the diagonal, label smoothing ε,
//
// vol [B, B] with row i = anchor (text) i and column j = data tuple j (lib/geom VolumeMatrix), tau a scalar
// node (GRAM's raw learnable temperature, GRAMInitialTemperature) -> scalar. The code uses ε =
// GRAMLabelSmoothing; the paper's form is ε = 0. Gradients here are two-sided; the official code's
// one-sided gradients are VolumeContrastiveOneSided (same value).
func VolumeContrastive(vol, tau *Node, labelSmoothing float64) *Node {
	assertSquare("VolumeContrastive", "vol", vol)
	assertScalar("VolumeContrastive", "tau", tau)
	logits := Neg(Div(vol, tau))
	return SymmetricCrossEntropy(logits, labelSmoothing)
}

// VolumeFunc is the signature of lib/geom's VolumeMatrix and HyperbolicVolumeMatrix: anchor [B1, d],
// each other [B2, d] -> [B1, B2], entry (i, j) = volume of (anchor_i, o1_j, o2_j, ...). A hybrid
// V_α is a VolumeFunc closure over both.
type VolumeFunc func(anchor *Node, others ...*Node) *Node

// VolumeContrastiveOneSided is VolumeContrastive with the official GRAM code's gradient flow (docs/official-code.md §1.3):
// the features gathered across devices carry no gradient (concat_all_gather runs under no_grad, even on one
// device), so each direction updates only its own "query" side:
//
//	½ [ CE_rows(−V(t, sg(v), sg(a))/τ) + CE_rows(−V(sg(t), v, a)ᵀ/τ) ]
//
// The value equals VolumeContrastive(volume(anchor, others...), tau, ε); the gradients differ. The volume
// matrix is computed twice (once per stop-gradient pattern). τ receives gradient from both terms.
func VolumeContrastiveOneSided(volume VolumeFunc, tau *Node, labelSmoothing float64, anchor *Node, others ...*Node) *Node {
	if volume == nil {
		panicf("VolumeContrastiveOneSided: volume function is nil")
	}
	if len(others) == 0 {
		panicf("VolumeContrastiveOneSided: needs at least one non-anchor modality, got none")
	}
	assertScalar("VolumeContrastiveOneSided", "tau", tau)
	frozenOthers := make([]*Node, len(others))
	for i, o := range others {
		frozenOthers[i] = StopGradient(o)
	}
	anchorToData := volume(anchor, frozenOthers...)         // gradient reaches the anchor only
	dataToAnchor := volume(StopGradient(anchor), others...) // gradient reaches the data side only
	assertSquare("VolumeContrastiveOneSided", "volume(anchor, others...)", anchorToData)
	return DirectionalCrossEntropy(Neg(Div(anchorToData, tau)), Neg(Div(dataToAnchor, tau)), labelSmoothing)
}

// DAMNegativeWeights are the hard-negative sampling weights of GRAM's data-anchor matching (docs/official-code.md §1.4;
// HyperGRAM's "p_hard ∝ exp(−V_α)", docs/official-code.md §2): for each row i,
//
//	w_ij = softmax_j(−V_ij/τ) + 1e-4  for j ≠ i,   w_ii = 0,
//
// computed without gradient. vol [B, B] (row = anchor i) -> [B, B], unnormalised (rows sum to ≈ 1 + 1e-4·(B−1)).
// For one negative text per data tuple (the code's weights_cond2t) pass Transpose(vol, 0, 1).
// Draw from them with SampleCategorical.
func DAMNegativeWeights(vol, tau *Node) *Node {
	assertSquare("DAMNegativeWeights", "vol", vol)
	assertScalar("DAMNegativeWeights", "tau", tau)
	vol, tau = StopGradient(vol), StopGradient(tau)
	g := vol.Graph()
	weights := AddScalar(Softmax(Neg(Div(vol, tau)), -1), DAMWeightFloor)
	offDiagonal := NotEqual(Iota(g, vol.Shape(), 0), Iota(g, vol.Shape(), 1))
	return Where(offDiagonal, weights, ZerosLike(weights))
}

// SampleCategorical draws one index per row from unnormalised non-negative weights [..., K] -> indices
// [...] (Int32), with probability w_k / Σ_k w_k, like torch.multinomial(w, 1) in the GRAM code. It runs in
// the graph with the Gumbel-max trick: argmax_k(log w_k + G_k), G_k = −log(−log U_k), U_k uniform; a zero
// weight is never drawn (log 0 = −∞). rngState is a state of lib/seedrand's counter-based generator
// (laid out as a GoMLX RNG state), which every backend evaluates identically; the updated state is
// returned, GoMLX style. The result carries no gradient.
func SampleCategorical(rngState, weights *Node) (newRNGState, indices *Node) {
	if weights.Rank() < 1 {
		panicf("SampleCategorical: weights must have rank ≥ 1 ([..., K]), got %s", weights.Shape())
	}
	assertFloat("SampleCategorical", "weights", weights)
	weights = StopGradient(weights)
	newRNGState, u := seedrand.Uniform(rngState, weights.Shape())
	u = MaxScalar(u, gumbelUniformFloor)
	gumbel := Neg(Log(Neg(Log(u))))
	return newRNGState, ArgMax(Add(Log(weights), gumbel), -1)
}

// SampleDAMNegatives draws one hard negative per row of vol: indices [B] (Int32) sampled from
// DAMNegativeWeights(vol, tau) (docs/official-code.md §1.4). Row i never draws i. For negative texts per data tuple pass
// Transpose(vol, 0, 1).
func SampleDAMNegatives(rngState, vol, tau *Node) (newRNGState, negatives *Node) {
	return SampleCategorical(rngState, DAMNegativeWeights(vol, tau))
}

// MatchingCrossEntropy is the DAM matching loss as the GRAM code computes it (docs/official-code.md §1.4): a 2-class
// softmax cross-entropy, mean over the batch. logits [N, 2] (column 1 = "matched"), matched [N] (bool or
// integer 0/1) -> scalar. The code builds N = 3B rows: (t_i, d_i) matched, (t_i, d_neg) and (t_neg, d_i)
// not matched. GRAM Eq. 7 writes a binary cross-entropy on p_dam = softmax(logits)[1]; the two are equal.
func MatchingCrossEntropy(logits, matched *Node) *Node {
	assertRank("MatchingCrossEntropy", "logits", logits, 2)
	assertFloat("MatchingCrossEntropy", "logits", logits)
	if logits.Shape().Dimensions[1] != 2 {
		panicf("MatchingCrossEntropy: logits must be [N, 2] (not matched, matched), got %s", logits.Shape())
	}
	assertRank("MatchingCrossEntropy", "matched", matched, 1)
	if matched.Shape().Dimensions[0] != logits.Shape().Dimensions[0] {
		panicf("MatchingCrossEntropy: matched has %d entries, logits %d rows", matched.Shape().Dimensions[0], logits.Shape().Dimensions[0])
	}
	var target *Node
	switch {
	case matched.DType() == dtypes.Bool:
		target = ConvertDType(matched, logits.DType())
	case matched.DType().IsInt() || matched.DType().IsFloat():
		target = ConvertDType(NotEqual(matched, ZerosLike(matched)), logits.DType())
	default:
		panicf("MatchingCrossEntropy: matched must be bool or integer, got %s", matched.DType())
	}
	logProbs := LogSoftmax(logits, -1)
	logNotMatched := Squeeze(Slice(logProbs, AxisRange(), AxisElem(0)), -1)
	logMatched := Squeeze(Slice(logProbs, AxisRange(), AxisElem(1)), -1)
	perRow := Neg(Add(Mul(target, logMatched), Mul(OneMinus(target), logNotMatched)))
	return ReduceAllMean(perRow)
}

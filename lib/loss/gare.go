package loss

import (
	"fmt"

	"github.com/geoalign/geoalign/lib/enum"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
)

// GARE losses (NeurIPS 2025; official code convention in docs/official-code.md §4.3).
// Δ ("delta") is the pair-specific increment with shape [A texts, B videos, D]; Δ_ij is added to text i
// when it is compared with video j.

// GARE constants of the official code (docs/official-code.md §4.3) and the paper.
const (
	// GARELogitScale is exp(clip.logit_scale), learnable but clamped to ≤ 100 after every step, so in
	// practice 100 (τ = 0.01 in the paper).
	GARELogitScale = 100.0
	// GAREBetaCode is the weight β of L_IB in the code, for the KL summed over the D dimensions.
	GAREBetaCode = 1e-4
	// GAREBetaPaper is the paper's β (§3 implementation details and Appendix F), which belongs to a
	// per-dimension (mean over d) KL according to the repository README (docs/official-code.md §4.3): use it with
	// IBRelaxOptions.PerDimension.
	GAREBetaPaper = 0.07
	// GARELambdaNorm is λ_ε, the weight of L_ε.
	GARELambdaNorm = 0.01
	// GARELambdaDir is λ_dir, the weight of L_dir.
	GARELambdaDir = 0.01
	// GAREAlpha is α of L_dir (Eq. 11; best in Table 8).
	GAREAlpha = 2.0
	// GARENormLowerBound is λ_lower of L_ε (Eq. 10; best in Fig. 5).
	GARENormLowerBound = 0.5
)

// ibStdEpsilon is added to the standard deviation of Δ before the KL: σ = std + 1e-6 (docs/official-code.md §4.3), so a
// constant Δ column does not give log(1/0).
const ibStdEpsilon = 1e-6

// dirLogEpsilon is added inside the log of L_dir: log(mean exp(…) + 1e-8) (docs/official-code.md §4.3).
const dirLogEpsilon = 1e-8

// squaredNormFloor is the floor on a squared norm or variance before its square root. The code has none:
// torch's std has a NaN gradient at zero spread and torch.norm a zero one at Δ = 0. With the floor both
// have a zero gradient there and the value moves by at most sqrt(1e-30) = 1e-15 (a deviation, documented
// here; 1e-30 is a normal float32). It is only ever reached by exactly constant or exactly zero Δ.
const squaredNormFloor = 1e-30

// ScaledInfoNCE is GARE's L_info (Eq. 9, docs/official-code.md §4.3): ½[CE_rows(s·S) + CE_rows(s·Sᵀ)] with the diagonal as
// targets and no label smoothing. sim [B, B] cosine similarities cos(t_i + Δ_ij, v_j), logitScale a scalar
// node (GARELogitScale) -> scalar.
func ScaledInfoNCE(sim, logitScale *Node) *Node {
	assertSquare("ScaledInfoNCE", "sim", sim)
	assertScalar("ScaledInfoNCE", "logitScale", logitScale)
	return SymmetricCrossEntropy(Mul(sim, logitScale), 0)
}

// IBAnchor says over which axis of Δ the relaxed bottleneck fits its Gaussians.
type IBAnchor int

const (
	// IBAnchorVideo fits one Gaussian per video j to {Δ_ij}_i, i.e. the statistics run over the text axis.
	// This is GARE Eq. 15 and the official code (delta.mean(dim=0)), best in Table 9.
	IBAnchorVideo IBAnchor = iota
	// IBAnchorText fits one Gaussian per text i to {Δ_ij}_j (the video axis): the Table 9 "t" ablation.
	IBAnchorText
)

func (a IBAnchor) String() string {
	switch a {
	case IBAnchorVideo:
		return "video"
	case IBAnchorText:
		return "text"
	}
	return fmt.Sprintf("IBAnchor(%d)", int(a))
}

func (a IBAnchor) MarshalJSON() ([]byte, error)  { return enum.MarshalJSON(a, IBAnchorText) }
func (a *IBAnchor) UnmarshalJSON(b []byte) error { return enum.UnmarshalJSON(a, b, IBAnchorText) }

// IBRelaxOptions selects the variant of L_IB^relax. The zero value is the official code's convention.
type IBRelaxOptions struct {
	// Anchor: IBAnchorVideo (code, Eq. 15) or IBAnchorText (Appendix C.4 ablation).
	Anchor IBAnchor
	// PerDimension averages the KL over the D dimensions instead of summing it (the code sums, via
	// torch Independent(…, 1)). It is the convention the paper's β = 0.07 belongs to (GAREBetaPaper).
	PerDimension bool
}

// IBRelax is GARE's relaxed information-bottleneck term L_IB^relax (Eq. 15) as the official code computes
// it (docs/official-code.md §4.3): for each video j, μ_j = mean_i Δ_ij and σ_j = std_i Δ_ij (unbiased) + 1e-6 over the
// text axis, then
//
//	KL_j = Σ_d [ log(1/σ_jd) + (σ_jd² + μ_jd²)/2 − ½ ]   (KL(N(μ, σ²) ‖ N(0, I)))
//
// and L = mean_j KL_j. delta [A, B, D] with A ≥ 2 -> scalar. Weight it with GAREBetaCode.
func IBRelax(delta *Node) *Node {
	return IBRelaxWith(delta, IBRelaxOptions{})
}

// IBRelaxWith is IBRelax with the anchor axis and the per-dimension convention selectable (see
// IBRelaxOptions; the zero value is IBRelax).
func IBRelaxWith(delta *Node, opts IBRelaxOptions) *Node {
	assertDelta("IBRelax", delta)
	mean, variance := IBMoments(delta, opts.Anchor)
	return IBRelaxFromMoments(mean, variance, opts.PerDimension)
}

// IBMoments are the statistics L_IB^relax fits its Gaussians with (Eq. 15, docs/official-code.md §4.3): the mean and
// the unbiased variance of delta [A, B, D] over the text axis (IBAnchorVideo, the code: one Gaussian
// per video, [B, D]) or over the video axis (IBAnchorText: [A, D]). The axis needs ≥ 2 entries.
func IBMoments(delta *Node, anchor IBAnchor) (mean, variance *Node) {
	assertDelta("IBMoments", delta)
	statAxis := 0 // over texts, one Gaussian per video
	if anchor == IBAnchorText {
		statAxis = 1 // over videos, one Gaussian per text
	} else if anchor != IBAnchorVideo {
		panicf("IBRelax: unknown anchor %d", anchor)
	}
	n := delta.Shape().Dimensions[statAxis]
	if n < 2 {
		panicf("IBRelax: the unbiased std over axis %d needs at least 2 entries, delta is %s", statAxis, delta.Shape())
	}
	mean = ReduceMean(delta, statAxis) // [anchors, D]
	centered := Sub(delta, InsertAxes(mean, statAxis))
	variance = DivScalar(ReduceSum(Square(centered), statAxis), float64(n-1))
	return mean, variance
}

// IBRelaxFromMoments is L_IB^relax from the per-anchor mean and unbiased variance [anchors, D] of
// IBMoments: σ = √variance + 1e-6 and KL_a = Σ_d [log(1/σ) + (σ² + μ²)/2 − ½] (mean over d when
// perDimension), averaged over the anchors. A training step that sees Δ a block of texts at a time
// merges the blocks' moments and calls this (lib/models/gare), so the formula lives here once.
func IBRelaxFromMoments(mean, variance *Node, perDimension bool) *Node {
	assertRank("IBRelaxFromMoments", "mean ([anchors, D])", mean, 2)
	assertRank("IBRelaxFromMoments", "variance ([anchors, D])", variance, 2)
	sigma := AddScalar(Sqrt(MaxScalar(variance, squaredNormFloor)), ibStdEpsilon)
	klPerDim := AddScalar(Add(Neg(Log(sigma)), MulScalar(Add(Square(sigma), Square(mean)), 0.5)), -0.5)
	var klPerAnchor *Node
	if perDimension {
		klPerAnchor = ReduceMean(klPerDim, -1)
	} else {
		klPerAnchor = ReduceSum(klPerDim, -1)
	}
	return ReduceAllMean(klPerAnchor)
}

// NormVariance is GARE's norm-based trust-region regulariser L_ε (Eq. 10) as the official code computes it
// (docs/official-code.md §4.3): with ε_ij = ‖Δ_ij‖₂ and var_i the unbiased variance over videos j,
//
//	raw = −mean_i var_i,    L_ε = raw if raw ≥ −λ, else 0.
//
// The hard cut-off switches the term off once the spread exceeds λ = lowerBound (GARENormLowerBound); the
// paper's max(raw, −λ) is NormVarianceClamped (same gradient, different value past the bound).
// delta [A, B, D] with B ≥ 2 -> scalar. Weight it with GARELambdaNorm.
func NormVariance(delta *Node, lowerBound float64) *Node {
	assertDelta("NormVariance", delta)
	return NormVarianceFromRows(NormVarianceRows(delta), lowerBound, false)
}

// NormVarianceClamped is the paper's form of L_ε: max(−mean_i var_j ‖Δ_ij‖, −λ) (Eq. 10 and the sentence
// after it). delta [A, B, D] with B ≥ 2 -> scalar.
func NormVarianceClamped(delta *Node, lowerBound float64) *Node {
	assertDelta("NormVarianceClamped", delta)
	return NormVarianceFromRows(NormVarianceRows(delta), lowerBound, true)
}

// NormVarianceRows is var_i = the unbiased variance over videos j of ε_ij = ‖Δ_ij‖₂, one per text:
// delta [A, B, D] with B ≥ 2 -> [A]. L_ε depends on Δ only through these.
func NormVarianceRows(delta *Node) *Node {
	assertDelta("NormVarianceRows", delta)
	b := delta.Shape().Dimensions[1]
	if b < 2 {
		panicf("NormVariance: the unbiased variance over videos needs B ≥ 2, delta is %s", delta.Shape())
	}
	radii := Sqrt(MaxScalar(ReduceSum(Square(delta), -1), squaredNormFloor)) // ε_ij, [A, B]
	centered := Sub(radii, ReduceAndKeep(radii, ReduceMean, 1))
	return DivScalar(ReduceSum(Square(centered), 1), float64(b-1)) // [A]
}

// NormVarianceFromRows is L_ε from the per-text variances of NormVarianceRows [A]: raw = −mean_i var_i,
// then the code's hard cut-off (raw if raw ≥ −λ, else 0) or, clamped, the paper's max(raw, −λ).
func NormVarianceFromRows(rows *Node, lowerBound float64, clamped bool) *Node {
	assertRank("NormVarianceFromRows", "rows ([A])", rows, 1)
	raw := Neg(ReduceAllMean(rows))
	if clamped {
		return MaxScalar(raw, -lowerBound)
	}
	keep := GreaterOrEqual(raw, Scalar(raw.Graph(), raw.DType(), -lowerBound))
	return Where(keep, raw, ZerosLike(raw))
}

// DirectionalDiversity is GARE's directional diversity regulariser L_dir (Eq. 11) as the official code
// computes it (docs/official-code.md §4.3): with z_ij = Δ_ij / max(‖Δ_ij‖, 1e-12),
//
//	L_dir = mean_i log( mean_{j,k} exp(−α (1 − ⟨z_ij, z_ik⟩)) + 1e-8 ),
//
// the inner mean over all B×B pairs including j = k. delta [A, B, D] -> scalar. α = GAREAlpha; weight
// GARELambdaDir. DirectionalDiversityOffDiagonal excludes j = k; DirectionalOrthogonality is the
// strict-orthogonality variant of Appendix C.2.
func DirectionalDiversity(delta *Node, alpha float64) *Node {
	return directionalDiversity("DirectionalDiversity", delta, alpha, false)
}

// DirectionalDiversityOffDiagonal is L_dir with the inner mean over the B(B−1) pairs j ≠ k only (the code
// includes j = k, docs/official-code.md §4.6 item 5). delta [A, B, D] with B ≥ 2 -> scalar.
func DirectionalDiversityOffDiagonal(delta *Node, alpha float64) *Node {
	return directionalDiversity("DirectionalDiversityOffDiagonal", delta, alpha, true)
}

func directionalDiversity(fn string, delta *Node, alpha float64, offDiagonal bool) *Node {
	assertDelta(fn, delta)
	return ReduceAllMean(directionalDiversityRows(fn, delta, alpha, offDiagonal))
}

// directionalDiversityRows is log(mean_{j,k} exp(−α(1 − ⟨z_ij, z_ik⟩)) + 1e-8) per text i -> [A].
func directionalDiversityRows(fn string, delta *Node, alpha float64, offDiagonal bool) *Node {
	b := delta.Shape().Dimensions[1]
	cos := directionCosines(delta) // [A, B, B]
	kernel := Exp(MulScalar(OneMinus(cos), -alpha))
	var inner *Node
	if offDiagonal {
		if b < 2 {
			panicf("%s: needs B ≥ 2 videos for a pair j ≠ k, delta is %s", fn, delta.Shape())
		}
		mask := offDiagonalMask(cos)
		inner = DivScalar(ReduceSum(Where(mask, kernel, ZerosLike(kernel)), 1, 2), float64(b*(b-1)))
	} else {
		inner = ReduceMean(kernel, 1, 2)
	}
	return Log(AddScalar(inner, dirLogEpsilon))
}

// DirectionalOrthogonality is the strict-orthogonality variant of L_dir from GARE Appendix C.2:
//
//	L_orth = mean_i (1/B²) Σ_j Σ_{k≠j} ⟨z_ij, z_ik⟩²,
//
// z_ij = Δ_ij / max(‖Δ_ij‖, 1e-12). It pushes every pair of directions under an anchor towards cosine 0.
// delta [A, B, D] -> scalar.
func DirectionalOrthogonality(delta *Node) *Node {
	assertDelta("DirectionalOrthogonality", delta)
	return ReduceAllMean(orthogonalityRows(delta))
}

// orthogonalityRows is (1/B²) Σ_j Σ_{k≠j} ⟨z_ij, z_ik⟩² per text i -> [A].
func orthogonalityRows(delta *Node) *Node {
	b := delta.Shape().Dimensions[1]
	cos := directionCosines(delta)
	squares := Square(cos)
	offDiagonal := Where(offDiagonalMask(cos), squares, ZerosLike(squares))
	return DivScalar(ReduceSum(offDiagonal, 1, 2), float64(b*b))
}

// DirectionalRows is the per-text value of the directional term of variant (L_dir = mean_i of it):
// delta [A, B, D] -> [A].
func DirectionalRows(delta *Node, alpha float64, variant DirectionalVariant) *Node {
	assertDelta("DirectionalRows", delta)
	switch variant {
	case DirectionalLogMeanExp:
		return directionalDiversityRows("DirectionalDiversity", delta, alpha, false)
	case DirectionalLogMeanExpOffDiagonal:
		return directionalDiversityRows("DirectionalDiversityOffDiagonal", delta, alpha, true)
	case DirectionalStrictOrthogonality:
		return orthogonalityRows(delta)
	}
	panicf("DirectionalRows: unknown directional variant %d", variant)
	return nil
}

// directionCosines returns ⟨z_ij, z_ik⟩ for delta [A, B, D] -> [A, B, B].
func directionCosines(delta *Node) *Node {
	z := unitRows(delta)
	return Einsum("ajd,akd->ajk", z, z)
}

// offDiagonalMask is true where the last two indices differ, for x [..., B, B].
func offDiagonalMask(x *Node) *Node {
	rank := x.Rank()
	return NotEqual(Iota(x.Graph(), x.Shape(), rank-2), Iota(x.Graph(), x.Shape(), rank-1))
}

func assertDelta(fn string, delta *Node) {
	assertRank(fn, "delta ([A texts, B videos, D])", delta, 3)
	assertFloat(fn, "delta", delta)
}

// DirectionalVariant selects the form of the directional term in GARETotal.
type DirectionalVariant int

const (
	// DirectionalLogMeanExp is L_dir of the code: DirectionalDiversity (mean including j = k).
	DirectionalLogMeanExp DirectionalVariant = iota
	// DirectionalLogMeanExpOffDiagonal is DirectionalDiversityOffDiagonal.
	DirectionalLogMeanExpOffDiagonal
	// DirectionalStrictOrthogonality is DirectionalOrthogonality (Appendix C.2).
	DirectionalStrictOrthogonality
)

func (d DirectionalVariant) String() string {
	switch d {
	case DirectionalLogMeanExp:
		return "log-mean-exp"
	case DirectionalLogMeanExpOffDiagonal:
		return "log-mean-exp-off-diagonal"
	case DirectionalStrictOrthogonality:
		return "strict-orthogonality"
	}
	return fmt.Sprintf("DirectionalVariant(%d)", int(d))
}

func (d DirectionalVariant) MarshalJSON() ([]byte, error) {
	return enum.MarshalJSON(d, DirectionalStrictOrthogonality)
}
func (d *DirectionalVariant) UnmarshalJSON(b []byte) error {
	return enum.UnmarshalJSON(d, b, DirectionalStrictOrthogonality)
}

// GAREConfig holds the weights and switches of GARE's total loss (Eq. 28, docs/official-code.md §4.3).
type GAREConfig struct {
	Beta        float64 // weight of L_IB
	LambdaNorm  float64 // weight λ_ε of L_ε
	LambdaDir   float64 // weight λ_dir of L_dir
	Alpha       float64 // α of L_dir
	LowerBound  float64 // λ_lower of L_ε
	IB          IBRelaxOptions
	NormClamped bool // use the paper's max(L_ε, −λ) (NormVarianceClamped) instead of the code's hard cut-off
	Directional DirectionalVariant
}

// DefaultGAREConfig returns the official code's configuration: β = 1e-4 (KL summed over dims, anchored on
// videos), λ_ε = 0.01 with the hard cut-off at −0.5, λ_dir = 0.01 with α = 2 including j = k.
func DefaultGAREConfig() GAREConfig {
	return GAREConfig{
		Beta:       GAREBetaCode,
		LambdaNorm: GARELambdaNorm,
		LambdaDir:  GARELambdaDir,
		Alpha:      GAREAlpha,
		LowerBound: GARENormLowerBound,
	}
}

// PaperGAREConfig returns the paper's reading: β = 0.07 on the per-dimension KL, L_ε = max(·, −λ), and
// L_dir over j ≠ k; the other weights as in the code (they agree).
func PaperGAREConfig() GAREConfig {
	cfg := DefaultGAREConfig()
	cfg.Beta = GAREBetaPaper
	cfg.IB.PerDimension = true
	cfg.NormClamped = true
	cfg.Directional = DirectionalLogMeanExpOffDiagonal
	return cfg
}

// GARETerms are the parts of GARE's loss, for logging; Total is what is minimised.
type GARETerms struct {
	Total, Info, IB, Norm, Dir *Node
}

// GAREParts are the statistics of Δ that GARE's three regularisers depend on. Each is either per text
// (a row of Δ) or a moment over texts, so a training step can compute them a block of texts at a time
// (lib/models/gare's chunked step) and feed GARETotalFromParts the same numbers GARETotal sees.
type GAREParts struct {
	// IBMean and IBVariance are IBMoments of the IB input ([B, D] for IBAnchorVideo, [A, D] for
	// IBAnchorText).
	IBMean, IBVariance *Node
	// NormRows [A] is NormVarianceRows(Δ).
	NormRows *Node
	// DirRows [A] is DirectionalRows(Δ) of the configured variant.
	DirRows *Node
}

// GAREPartsOf computes the parts from ibInput (Δ itself in the code; a rescaled or normalised Δ for
// the Table 6 variants) and delta [A, B, D].
func GAREPartsOf(ibInput, delta *Node, cfg GAREConfig) GAREParts {
	var p GAREParts
	p.IBMean, p.IBVariance = IBMoments(ibInput, cfg.IB.Anchor)
	p.NormRows = NormVarianceRows(delta)
	p.DirRows = DirectionalRows(delta, cfg.Alpha, cfg.Directional)
	return p
}

// GARETotal is GARE's training loss (Eq. 28; the code's forward, docs/official-code.md §4.3):
//
//	total = L_info + β·L_IB + λ_ε·L_ε + λ_dir·L_dir,
//
// sim [B, B] = cos(t_i + Δ_ij, v_j), logitScale a scalar node (GARELogitScale), delta [B, B, D].
// The returned IB, Norm and Dir terms are unweighted.
func GARETotal(sim, logitScale, delta *Node, cfg GAREConfig) GARETerms {
	return GARETotalFromParts(sim, logitScale, GAREPartsOf(delta, delta, cfg), cfg)
}

// GARETotalFromParts is GARETotal from the similarities and the parts of Δ (GAREPartsOf).
func GARETotalFromParts(sim, logitScale *Node, p GAREParts, cfg GAREConfig) GARETerms {
	var terms GARETerms
	terms.Info = ScaledInfoNCE(sim, logitScale)
	terms.IB = IBRelaxFromMoments(p.IBMean, p.IBVariance, cfg.IB.PerDimension)
	terms.Norm = NormVarianceFromRows(p.NormRows, cfg.LowerBound, cfg.NormClamped)
	terms.Dir = ReduceAllMean(p.DirRows)
	terms.Total = Add(terms.Info, Add(MulScalar(terms.IB, cfg.Beta),
		Add(MulScalar(terms.Norm, cfg.LambdaNorm), MulScalar(terms.Dir, cfg.LambdaDir))))
	return terms
}

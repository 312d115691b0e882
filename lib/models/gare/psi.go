package gare

import (
	"fmt"
	"math"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
)

// maskedLogit is added to the attention logit of a masked (padding) context entry. The temporal
// transformer uses the code's −1e6 (CLIP4Clip extended_video_mask, docs/official-code.md §4.1); ψ itself uses no
// mask in the code and only gets one here for padded word sequences (ContextWords).
const maskedLogit = -1e6

// PsiReference is ψ exactly as the official code computes it (GARE:tvr/models/psi_module.py,
// docs/official-code.md §4.2), materialising every per-pair tensor:
//
//	q̂ = LN1(query), ĉ = LN1(context)              (the same LayerNorm on both)
//	a_ij = softmax_f( (q̂_ij W_q + b_q)·(ĉ_jf W_k + b_k) / √D )   (one head, softmax over frames)
//	o_ij = (Σ_f a_ijf (ĉ_jf W_v + b_v)) W_o + b_o
//	x = LN2(o);  z = x + dropout(x W_1 + b_1);  Δ = LN3(z) W_mean + b_mean
//
// query [A, B, D] (the gap η(v̄_j − t_i) in the code), context [B, F, D] (video j's frames; the
// context of pair (i, j) is context[j]), contextMask [B, F] (1 = valid) or nil (the code: none),
// dropout applied to x W_1 + b_1 (nil: none) -> Δ [A, B, D]. The cost is O(A·B·D²); the model
// uses the exact factored form of psiAttention (O(A·B·F·D)) and this one for word contexts and as
// the reference in tests.
func PsiReference(w *PsiWeights, query, context, contextMask *Node, dropout func(*Node) *Node) *Node {
	if query.Rank() != 3 {
		panic(fmt.Sprintf("gare.PsiReference: query must be [A, B, D], got %s", query.Shape()))
	}
	b, d := query.Shape().Dimensions[1], query.Shape().Dimensions[2]
	if context.Rank() != 3 || context.Shape().Dimensions[0] != b || context.Shape().Dimensions[2] != d {
		panic(fmt.Sprintf("gare.PsiReference: context %s does not match query %s (want [B=%d, F, D=%d])", context.Shape(), query.Shape(), b, d))
	}
	qn := w.LN1.Apply(query)
	cn := w.LN1.Apply(context)
	q := w.Q.Apply(qn)
	k := w.K.Apply(cn)
	v := w.V.Apply(cn)
	logits := MulScalar(Einsum("abd,bfd->abf", q, k), 1/math.Sqrt(float64(d)))
	if contextMask != nil {
		logits = Add(logits, InsertAxes(maskBias(contextMask, logits.DType()), 0))
	}
	attn := Softmax(logits, -1)
	o := w.O.Apply(Einsum("abf,bfd->abd", attn, v))
	x := w.LN2.Apply(o)
	lin := w.Linear1.Apply(x)
	if dropout != nil {
		lin = dropout(lin)
	}
	return w.MeanOut.Apply(w.LN3.Apply(Add(x, lin)))
}

// PsiAttention is ψ's attention over video j's frames for every pair (GARE Eq. 7 with C =
// V_frame, the code's one-head softmax over frames; docs/official-code.md §4.2): a_ijf = softmax_f(q̂_ij W_q ·
// ĉ_jf W_k / √D) for ψ's query of pair (i, j) — η(v̄_j − t_i), or t_i for QueryText — which shows
// which frames the increment Δ_ij is assembled from. t [A, D] encoded texts, frames [B, F, D]
// after the temporal transformer -> [A, B, F], each row summing to 1. These are the weights Delta
// uses (the same factored computation); frame context only.
func PsiAttention(cfg Config, w Weights, t, frames *Node) *Node {
	if !cfg.factored() {
		panic("gare.PsiAttention: ψ attends over the video's frames only with ContextFrames")
	}
	if w.Psi == nil {
		panic("gare.PsiAttention: the weights have no ψ (UseDelta is off)")
	}
	alpha, beta := queryCoefficients(cfg)
	attn, _ := psiAttention(newPsiText(w.Psi, t), newPsiVideo(w.Psi, frames, FrameMean(frames), nil), alpha, beta)
	return attn
}

// maskBias is 0 where mask is 1 and maskedLogit where it is 0, in dtype.
func maskBias(mask *Node, dtype dtypes.DType) *Node {
	return MulScalar(OneMinus(ConvertDType(mask, dtype)), maskedLogit)
}

// centered subtracts the mean over the last axis.
func centered(x *Node) *Node { return Sub(x, ReduceAndKeep(x, ReduceMean, -1)) }

// sqNorm is Σ_d x_d² over the last axis.
func sqNorm(x *Node) *Node { return ReduceSum(Square(x), -1) }

// broadcastRow expands a vector [D] to rank r with leading singleton axes.
func broadcastRow(v *Node, r int) *Node { return ExpandLeftToRank(v, r) }

// psiVideo holds what ψ needs from each video j (the context owner) independently of the texts.
// The factorisation rests on three facts about the code's ψ: (1) LN1 of the gap v̄_j − t_i is an
// affine function of the two centred vectors divided by one per-pair scalar; (2) the attention
// weights sum to one over frames, so out_proj and everything linear after it can be applied to
// each frame's value before the weighted sum; (3) LayerNorm of a weighted sum needs only the
// weights and a per-video F×F Gram matrix. So every per-pair vector is Σ_f c_ijf X_jf + const for
// per-video bases X, and the O(D²) work is per video, not per pair (module doc, "Cost").
type psiVideo struct {
	// Query side of the video: centred frame mean and its W_q image (gap queries only).
	meanCentered *Node // cm_j [B, D]
	meanSqNorm   *Node // ‖cm_j‖² [B]
	meanQuery    *Node // (γ1 ⊙ cm_j) W_q [B, D]
	// Keys and the text-independent parts of the logits, already divided by √D.
	keys      *Node // k_jf [B, F, D]
	keyMean   *Node // (γ1 ⊙ cm_j) W_q · k_jf / √D [B, F]
	keyOffset *Node // (β1 W_q + b_q) · k_jf / √D [B, F]
	maskBias  *Node // [B, F] or nil
	// LN2 basis: the centred attention output is Σ_f a_f U_jf with U_jf = centred(v_jf W_o + b_o).
	u     *Node // [B, F, D]
	uGram *Node // U Uᵀ [B, F, F]
}

// psiText holds what ψ needs from each text i.
type psiText struct {
	centered *Node // ct_i [A, D]
	sqNorm   *Node // ‖ct_i‖² [A]
	query    *Node // (γ1 ⊙ ct_i) W_q [A, D]
}

// queryCoefficients returns (α, β) with ψ's query = α·v̄_j + β·t_i: η(v̄ − t) for QueryGap and t
// alone for QueryText.
func queryCoefficients(cfg Config) (alpha, beta float64) {
	if cfg.Query == QueryText {
		return 0, 1
	}
	return cfg.eta(), -cfg.eta()
}

// newPsiVideo computes the per-video part of ψ. frames [B, F, D] after the temporal transformer,
// frameMean [B, D] the unmasked frame mean (the gap's v̄_j, docs/official-code.md §4.1), contextMask [B, F] or nil.
func newPsiVideo(w *PsiWeights, frames, frameMean, contextMask *Node) psiVideo {
	d := frames.Shape().Dimensions[2]
	invSqrtD := 1 / math.Sqrt(float64(d))
	var pv psiVideo
	cn := w.LN1.Apply(frames)
	pv.keys = w.K.Apply(cn)
	pv.meanCentered = centered(frameMean)
	pv.meanSqNorm = sqNorm(pv.meanCentered)
	pv.meanQuery = MatMul(Mul(pv.meanCentered, broadcastRow(w.LN1.Gain, 2)), w.Q.W)
	pv.keyMean = MulScalar(Einsum("bd,bfd->bf", pv.meanQuery, pv.keys), invSqrtD)
	q0 := Add(MatMul(InsertAxes(w.LN1.Bias, 0), w.Q.W), broadcastRow(w.Q.B, 2)) // [1, D]
	pv.keyOffset = MulScalar(Einsum("d,bfd->bf", Reshape(q0, d), pv.keys), invSqrtD)
	if contextMask != nil {
		pv.maskBias = maskBias(contextMask, frames.DType())
	}
	values := w.O.Apply(w.V.Apply(cn)) // v_jf W_o + b_o: out_proj commutes with the weighted sum
	pv.u = centered(values)
	pv.uGram = Einsum("bfd,bgd->bfg", pv.u, pv.u)
	return pv
}

// newPsiText computes the per-text part of ψ for texts t [A, D].
func newPsiText(w *PsiWeights, t *Node) psiText {
	var pt psiText
	pt.centered = centered(t)
	pt.sqNorm = sqNorm(pt.centered)
	pt.query = MatMul(Mul(pt.centered, broadcastRow(w.LN1.Gain, 2)), w.Q.W)
	return pt
}

// psiAttention returns ψ's attention weights a [A, B, F] for every pair and c = a / σ2 [A, B, F],
// σ2 the standard deviation (with LN eps) of the pair's attention output, so that
//
//	LN2(o_ij) = Σ_f c_ijf (γ2 ⊙ U_jf) + β2.
func psiAttention(pt psiText, pv psiVideo, alpha, beta float64) (attn, coef *Node) {
	d := pt.centered.Shape().Dimensions[1]
	a := pt.centered.Shape().Dimensions[0]
	b, f := pv.keys.Shape().Dimensions[0], pv.keys.Shape().Dimensions[1]
	invSqrtD := 1 / math.Sqrt(float64(d))
	// ‖centred query‖² = α²‖cm_j‖² + 2αβ cm_j·ct_i + β²‖ct_i‖².
	qVar := ZerosLike(InsertAxes(pt.sqNorm, 1)) // [A, 1]
	if beta != 0 {
		qVar = MulScalar(InsertAxes(pt.sqNorm, 1), beta*beta)
	}
	if alpha != 0 {
		cross := MatMul(pt.centered, Transpose(pv.meanCentered, 0, 1)) // [A, B]
		qVar = Add(Add(qVar, MulScalar(InsertAxes(pv.meanSqNorm, 0), alpha*alpha)), MulScalar(cross, 2*alpha*beta))
	}
	sigma1 := Sqrt(AddScalar(DivScalar(qVar, float64(d)), layerNormEpsilon)) // [A, B] (or [A, 1])
	// logits = (α·keyMean_jf + β·query_i·k_jf/√D) / σ1_ij + keyOffset_jf.
	textKeys := Reshape(MatMul(pt.query, Transpose(Reshape(pv.keys, b*f, d), 0, 1)), a, b, f)
	num := MulScalar(textKeys, beta*invSqrtD)
	if alpha != 0 {
		num = Add(num, MulScalar(InsertAxes(pv.keyMean, 0), alpha))
	}
	logits := Add(Div(num, InsertAxes(sigma1, -1)), InsertAxes(pv.keyOffset, 0))
	if pv.maskBias != nil {
		logits = Add(logits, InsertAxes(pv.maskBias, 0))
	}
	attn = Softmax(logits, -1)
	// ‖Σ_f a_f U_jf‖² = aᵀ G_j a.
	oVar := ReduceSum(Mul(Einsum("abf,bfg->abg", attn, pv.uGram), attn), -1)
	sigma2 := Sqrt(AddScalar(DivScalar(oVar, float64(d)), layerNormEpsilon))
	coef = Div(attn, InsertAxes(sigma2, -1))
	return attn, coef
}

// psiOutputBasis is the per-video basis of ψ's output when no dropout is applied: with
// e = c/σ3 and r = 1/σ3,
//
//	ψ_ij = Σ_f e_ijf R_jf + r_ij E + δ0,
//
// and σ3 (LN3's standard deviation) follows from the F×F Gram matrix zGram, zCross and zSqNorm.
type psiOutputBasis struct {
	r       *Node // (γ3 ⊙ centred Z_jf) W_mean [B, F, D]
	e       *Node // (γ3 ⊙ centred z0) W_mean [D]
	offset  *Node // β3 W_mean + b_mean [D]
	zGram   *Node // cZ cZᵀ [B, F, F]
	zCross  *Node // cZ_jf · cz0 [B, F]
	zSqNorm *Node // ‖cz0‖² scalar
}

// newPsiOutputBasis: with x = LN2(o) = Σ_f c_f (γ2 ⊙ U_f) + β2 and z = x + x W_1 + b_1, z is
// Σ_f c_f Z_f + z0 with Z_f = (γ2 ⊙ U_f)(I + W_1) and z0 = β2 (I + W_1) + b_1.
func newPsiOutputBasis(w *PsiWeights, pv psiVideo) psiOutputBasis {
	x := Mul(pv.u, broadcastRow(w.LN2.Gain, 3))
	z := Add(x, MatMul(x, w.Linear1.W))
	z0 := Add(Add(w.LN2.Bias, Reshape(MatMul(InsertAxes(w.LN2.Bias, 0), w.Linear1.W), -1)), w.Linear1.B)
	cz := centered(z)
	cz0 := centered(z0)
	var ob psiOutputBasis
	ob.zGram = Einsum("bfd,bgd->bfg", cz, cz)
	ob.zCross = Einsum("bfd,d->bf", cz, cz0)
	ob.zSqNorm = ReduceAllSum(Square(cz0))
	ob.r = MatMul(Mul(cz, broadcastRow(w.LN3.Gain, 3)), w.MeanOut.W)
	ob.e = Reshape(MatMul(InsertAxes(Mul(cz0, w.LN3.Gain), 0), w.MeanOut.W), -1)
	ob.offset = Add(Reshape(MatMul(InsertAxes(w.LN3.Bias, 0), w.MeanOut.W), -1), w.MeanOut.B)
	return ob
}

// outputCoefficients returns e = c/σ3 [A, B, F] and r = 1/σ3 [A, B] for coefficients c.
func (ob psiOutputBasis) outputCoefficients(coef *Node) (e, r *Node) {
	d := ob.r.Shape().Dimensions[2]
	quad := ReduceSum(Mul(Einsum("abf,bfg->abg", coef, ob.zGram), coef), -1)
	lin := ReduceSum(Mul(coef, InsertAxes(ob.zCross, 0)), -1)
	zVar := Add(Add(quad, MulScalar(lin, 2)), ob.zSqNorm)
	r = Inverse(Sqrt(AddScalar(DivScalar(zVar, float64(d)), layerNormEpsilon)))
	return Mul(coef, InsertAxes(r, -1)), r
}

// materialize returns ψ_ij [A, B, D] = Σ_f e_ijf R_jf + r_ij E + δ0.
func (ob psiOutputBasis) materialize(e, r *Node) *Node {
	out := Einsum("abf,bfd->abd", e, ob.r)
	out = Add(out, Mul(InsertAxes(r, -1), ExpandLeftToRank(ob.e, 3)))
	return Add(out, ExpandLeftToRank(ob.offset, 3))
}

// psiWithDropout materialises ψ_ij [A, B, D] from the attention coefficients when a dropout acts on
// x W_1 + b_1 (training): x and x W_1 + b_1 are still weighted sums of per-video bases, the rest is
// per pair (one D×D product per pair instead of the reference's four).
func psiWithDropout(w *PsiWeights, pv psiVideo, coef *Node, dropout func(*Node) *Node) *Node {
	xb := Mul(pv.u, broadcastRow(w.LN2.Gain, 3)) // [B, F, D]
	x := Add(Einsum("abf,bfd->abd", coef, xb), broadcastRow(w.LN2.Bias, 3))
	linOffset := Add(Reshape(MatMul(InsertAxes(w.LN2.Bias, 0), w.Linear1.W), -1), w.Linear1.B)
	lin := Add(Einsum("abf,bfd->abd", coef, MatMul(xb, w.Linear1.W)), broadcastRow(linOffset, 3))
	if dropout != nil {
		lin = dropout(lin)
	}
	return w.MeanOut.Apply(w.LN3.Apply(Add(x, lin)))
}

package gare

import (
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
)

// videoSide is everything the inference scores need from a block of B encoded videos, independent
// of the texts (computed once per video block, then reused for every block of texts). With Δ, ψ's
// output for pair (i, j) is Σ_f e_ijf X_jf + r_ij Y + O_j (psi.go), so the similarity needs only
// dot products of t_i with X, Y, O and the frames, and per-video Gram matrices of {X_jf, Y, O_j,
// h_jf}: the scores of a block cost O(A·B·F·(D + F)) with no [A, B, D] tensor.
type videoSide struct {
	frames    *Node // h [B, F, D]
	mask      *Node // [B, F]
	frameGram *Node // h hᵀ [B, F, F]

	// With Δ (nil for the baseline).
	meanCentered, meanSqNorm *Node // ψ's query side of the video
	keys, keyMean, keyOffset *Node // ψ's keys and the text-independent logit terms
	uGram                    *Node // LN2 Gram [B, F, F]
	zGram, zCross, zSqNorm   *Node // LN3 Gram and cross terms
	basis                    *Node // X_jf [B, F, D]
	extra                    *Node // Y [D]
	offset                   *Node // O_j [B, D]
	basisFrames              *Node // X hᵀ [B, F, F]
	extraFrames              *Node // Y·h_jf [B, F]
	offsetFrames             *Node // O_j·h_jf [B, F]
	basisGram                *Node // X Xᵀ [B, F, F]
	basisExtra, basisOffset  *Node // X·Y, X·O_j [B, F]
	extraSq                  *Node // ‖Y‖² scalar
	offsetSq, extraOffset    *Node // ‖O_j‖², Y·O_j [B]
}

// newVideoSide computes the video side of the scores for encoded frames h [B, F, D] and mask
// [B, F]; psi is nil for the baseline. Only frame contexts factor this way (cfg.factored()).
func newVideoSide(cfg Config, psi *PsiWeights, frames, mask *Node) videoSide {
	vs := videoSide{frames: frames, mask: ConvertDType(mask, frames.DType())}
	vs.frameGram = Einsum("bfd,bgd->bfg", frames, frames)
	if psi == nil {
		return vs
	}
	mean := FrameMean(frames)
	pv := newPsiVideo(psi, frames, mean, nil)
	ob := newPsiOutputBasis(psi, pv)
	vs.meanCentered, vs.meanSqNorm = pv.meanCentered, pv.meanSqNorm
	vs.keys, vs.keyMean, vs.keyOffset, vs.uGram = pv.keys, pv.keyMean, pv.keyOffset, pv.uGram
	vs.zGram, vs.zCross, vs.zSqNorm = ob.zGram, ob.zCross, ob.zSqNorm
	b, d := frames.Shape().Dimensions[0], frames.Shape().Dimensions[2]
	offset := BroadcastToDims(InsertAxes(ob.offset, 0), b, d)
	if cfg.Query == QueryText {
		// Δ = v̄_j − ψ: negate the basis and add the frame mean to the offset.
		vs.basis, vs.extra, vs.offset = Neg(ob.r), Neg(ob.e), Sub(mean, offset)
	} else {
		vs.basis, vs.extra, vs.offset = ob.r, ob.e, offset
	}
	vs.basisFrames = Einsum("bfd,bgd->bfg", vs.basis, frames)
	vs.extraFrames = Einsum("bfd,d->bf", frames, vs.extra)
	vs.offsetFrames = Einsum("bfd,bd->bf", frames, vs.offset)
	vs.basisGram = Einsum("bfd,bgd->bfg", vs.basis, vs.basis)
	vs.basisExtra = Einsum("bfd,d->bf", vs.basis, vs.extra)
	vs.basisOffset = Einsum("bfd,bd->bf", vs.basis, vs.offset)
	vs.extraSq = ReduceAllSum(Square(vs.extra))
	vs.offsetSq = sqNorm(vs.offset)
	vs.extraOffset = Einsum("bd,d->b", vs.offset, vs.extra)
	return vs
}

// list flattens the video side (in a fixed order) to pass it between executables.
func (vs videoSide) list() []*Node {
	l := []*Node{vs.frames, vs.mask, vs.frameGram}
	if vs.keys == nil {
		return l
	}
	return append(l, vs.meanCentered, vs.meanSqNorm, vs.keys, vs.keyMean, vs.keyOffset, vs.uGram,
		vs.zGram, vs.zCross, vs.zSqNorm, vs.basis, vs.extra, vs.offset, vs.basisFrames, vs.extraFrames,
		vs.offsetFrames, vs.basisGram, vs.basisExtra, vs.basisOffset, vs.extraSq, vs.offsetSq, vs.extraOffset)
}

// videoSideFromList is the inverse of list.
func videoSideFromList(l []*Node) videoSide {
	vs := videoSide{frames: l[0], mask: l[1], frameGram: l[2]}
	if len(l) == 3 {
		return vs
	}
	r := l[3:]
	vs.meanCentered, vs.meanSqNorm, vs.keys, vs.keyMean, vs.keyOffset, vs.uGram = r[0], r[1], r[2], r[3], r[4], r[5]
	vs.zGram, vs.zCross, vs.zSqNorm, vs.basis, vs.extra, vs.offset = r[6], r[7], r[8], r[9], r[10], r[11]
	vs.basisFrames, vs.extraFrames, vs.offsetFrames, vs.basisGram = r[12], r[13], r[14], r[15]
	vs.basisExtra, vs.basisOffset, vs.extraSq, vs.offsetSq, vs.extraOffset = r[16], r[17], r[18], r[19], r[20]
	return vs
}

// quadratic is Σ_fg x_abf M_bfg y_abg for x, y [A, B, F] and M [B, F, F] -> [A, B].
func quadratic(x, m, y *Node) *Node {
	return ReduceSum(Mul(Einsum("abf,bfg->abg", x, m), y), -1)
}

// linearTerm is Σ_f x_abf v_bf for x [A, B, F], v [B, F] -> [A, B].
func linearTerm(x, v *Node) *Node { return ReduceSum(Mul(x, InsertAxes(v, 0)), -1) }

// factoredScores is S_ij for encoded texts t [A, D] against a video side: the same numbers as
// Forward(...).Sim without dropout (tested against it), from dot products and F×F Gram matrices.
//
//	text-corrected:  S = (t·v + Δ·v) / √(‖t + Δ‖² ‖v‖²),   ‖t + Δ‖² = ‖t‖² + 2 t·Δ + ‖Δ‖²
//	video-corrected: S = (t·v + t·Δ) / √(‖t‖² ‖v + Δ‖²),   ‖v + Δ‖² = ‖v‖² + 2 Δ·v + ‖Δ‖²
//	baseline:        S = t·v / √(‖t‖² ‖v‖²)
//
// with v = Σ_f π_f h_f the pooled video and Δ = Σ_f e_f X_f + r Y + O.
func factoredScores(cfg Config, psi *PsiWeights, t *Node, vs videoSide) *Node {
	a, d := t.Shape().Dimensions[0], t.Shape().Dimensions[1]
	b, f := vs.frames.Shape().Dimensions[0], vs.frames.Shape().Dimensions[1]
	pool, dots := PoolingWeights(t, vs.frames, vs.mask, cfg.PoolTemperature)
	tv := ReduceSum(Mul(pool, dots), -1)      // t·v [A, B]
	vv := quadratic(pool, vs.frameGram, pool) // ‖v‖² [A, B]
	tt := InsertAxes(sqNorm(t), 1)            // ‖t‖² [A, 1]
	if psi == nil {
		return Div(tv, Sqrt(Mul(tt, vv)))
	}
	alpha, beta := queryCoefficients(cfg)
	pv := psiVideo{meanCentered: vs.meanCentered, meanSqNorm: vs.meanSqNorm, keys: vs.keys,
		keyMean: vs.keyMean, keyOffset: vs.keyOffset, uGram: vs.uGram}
	_, coef := psiAttention(newPsiText(psi, t), pv, alpha, beta)
	ob := psiOutputBasis{r: vs.basis, zGram: vs.zGram, zCross: vs.zCross, zSqNorm: vs.zSqNorm}
	e, r := ob.outputCoefficients(coef) // [A, B, F], [A, B]

	// Δ·v = Σ_fg e_f (X hᵀ)_fg π_g + r Σ_g π_g Y·h_g + Σ_g π_g O·h_g.
	dv := Add(Add(quadratic(e, vs.basisFrames, pool), Mul(r, linearTerm(pool, vs.extraFrames))),
		linearTerm(pool, vs.offsetFrames))
	// t·Δ = Σ_f e_f t·X_f + r t·Y + t·O.
	tX := Reshape(MatMul(t, Transpose(Reshape(vs.basis, b*f, d), 0, 1)), a, b, f)
	tY := InsertAxes(ReduceSum(Mul(t, InsertAxes(vs.extra, 0)), -1), 1) // [A, 1]
	tO := MatMul(t, Transpose(vs.offset, 0, 1))                         // [A, B]
	td := Add(Add(ReduceSum(Mul(e, tX), -1), Mul(r, tY)), tO)
	// ‖Δ‖² = eᵀ(X Xᵀ)e + r²‖Y‖² + ‖O‖² + 2r e·(X·Y) + 2 e·(X·O) + 2r Y·O.
	dd := quadratic(e, vs.basisGram, e)
	dd = Add(dd, Mul(Square(r), vs.extraSq))
	dd = Add(dd, InsertAxes(vs.offsetSq, 0))
	dd = Add(dd, MulScalar(Mul(r, linearTerm(e, vs.basisExtra)), 2))
	dd = Add(dd, MulScalar(linearTerm(e, vs.basisOffset), 2))
	dd = Add(dd, MulScalar(Mul(r, InsertAxes(vs.extraOffset, 0)), 2))
	if cfg.Corrected == CorrectVideo {
		return Div(Add(tv, td), Sqrt(Mul(tt, Add(Add(vv, MulScalar(dv, 2)), dd))))
	}
	return Div(Add(tv, dv), Sqrt(Mul(Add(Add(tt, MulScalar(td, 2)), dd), vv)))
}

package loss

import (
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
)

// normalizeEpsilon is the floor on ‖x‖ when a vector is scaled to unit length: x / max(‖x‖, 1e-12).
// It is PyTorch's F.normalize default, which the GRAM, GARE and HLFormer code all use
// (docs/official-code.md §1.1 contra head, §4.3 L_dir, §3.3 query diversity). An all-zero vector maps to zero.
const normalizeEpsilon = 1e-12

// DiagonalCrossEntropy is the mean over rows i of the cross-entropy of softmax(logits[i, :]) against
// target class i (the diagonal), with PyTorch's label-smoothing convention:
//
//	CE_i = −Σ_k q_ik · log softmax(logits_i)_k,   q_ik = (1−ε)·[k = i] + ε/K,
//
// K the number of columns. This is F.cross_entropy(logits, arange(B), label_smoothing=ε) as the GRAM code
// calls it (docs/official-code.md §1.3). logits [B, B] -> scalar.
func DiagonalCrossEntropy(logits *Node, labelSmoothing float64) *Node {
	assertSquare("DiagonalCrossEntropy", "logits", logits)
	assertLabelSmoothing("DiagonalCrossEntropy", labelSmoothing)
	g := logits.Graph()
	dtype := logits.DType()
	logProbs := LogSoftmax(logits, -1)
	diagonal := ConvertDType(Equal(Iota(g, logits.Shape(), 0), Iota(g, logits.Shape(), 1)), dtype)
	targetLogProb := ReduceSum(Mul(logProbs, diagonal), -1) // [B]
	perRow := Neg(MulScalar(targetLogProb, 1-labelSmoothing))
	if labelSmoothing > 0 {
		meanLogProb := ReduceMean(logProbs, -1) // (1/K)·Σ_k log p_ik
		perRow = Sub(perRow, MulScalar(meanLogProb, labelSmoothing))
	}
	return ReduceAllMean(perRow)
}

// DirectionalCrossEntropy is the two-direction contrastive loss with diagonal targets:
//
//	½ [ DiagonalCrossEntropy(anchorToData) + DiagonalCrossEntropy(dataToAnchorᵀ) ]
//
// Both inputs are [B, B] logits with row i = anchor i and column j = data item j. The first is read along
// rows (anchor → data), the second along columns (data → anchor). Passing the same matrix twice gives the
// ordinary symmetric loss (SymmetricCrossEntropy); passing two matrices computed with the opposite side
// stop-gradiented gives the official GRAM code's one-sided gradients (docs/official-code.md §1.3), with the same value.
func DirectionalCrossEntropy(anchorToData, dataToAnchor *Node, labelSmoothing float64) *Node {
	assertSquare("DirectionalCrossEntropy", "anchorToData", anchorToData)
	assertSquare("DirectionalCrossEntropy", "dataToAnchor", dataToAnchor)
	assertSameShape("DirectionalCrossEntropy", "anchorToData", anchorToData, "dataToAnchor", dataToAnchor)
	rows := DiagonalCrossEntropy(anchorToData, labelSmoothing)
	cols := DiagonalCrossEntropy(Transpose(dataToAnchor, 0, 1), labelSmoothing)
	return MulScalar(Add(rows, cols), 0.5)
}

// SymmetricCrossEntropy is ½[CE_rows(L) + CE_rows(Lᵀ)] with diagonal targets and label smoothing ε: the
// CLIP-style symmetric InfoNCE on given logits. logits [B, B] -> scalar. Every contrastive loss of this
// package (GRAM volume loss, pairwise-cosine baseline, GARE L_info) is this function on its own logits.
func SymmetricCrossEntropy(logits *Node, labelSmoothing float64) *Node {
	return DirectionalCrossEntropy(logits, logits, labelSmoothing)
}

// InfoNCE is the symmetric InfoNCE on a similarity matrix with a temperature: SymmetricCrossEntropy(sim/τ, ε).
// sim [B, B] (row = anchor, column = data), tau a scalar node -> scalar.
func InfoNCE(sim, tau *Node, labelSmoothing float64) *Node {
	assertScalar("InfoNCE", "tau", tau)
	return SymmetricCrossEntropy(Div(sim, tau), labelSmoothing)
}

// CosineSimilarityMatrix returns cos(a_i, b_j) for a [B1, d], b [B2, d] -> [B1, B2]. Rows are scaled to unit
// length with the F.normalize floor normalizeEpsilon, so zero vectors give cosine 0 and finite gradients.
func CosineSimilarityMatrix(a, b *Node) *Node {
	assertRank("CosineSimilarityMatrix", "a", a, 2)
	assertRank("CosineSimilarityMatrix", "b", b, 2)
	return MatMul(unitRows(a), Transpose(unitRows(b), 0, 1))
}

// PairwiseCosineInfoNCE is the pairwise-cosine baseline that GRAM replaces (GRAM Table 6 "TV, TA" rows;
// docs/official-code.md §1.3 and the `tv`/`ta` tasks of GRAM:model/gram.py): for every non-anchor modality m,
// the symmetric InfoNCE on cos(anchor_i, m_j)/τ with label smoothing ε, averaged over the modalities.
// anchor (text) [B, d], each other [B, d], tau a scalar node -> scalar. Gradients are two-sided; see
// PairwiseCosineInfoNCEOneSided for the official code's stop-gradient convention.
func PairwiseCosineInfoNCE(anchor *Node, others []*Node, tau *Node, labelSmoothing float64) *Node {
	return pairwiseCosineInfoNCE("PairwiseCosineInfoNCE", anchor, others, tau, labelSmoothing, false)
}

// PairwiseCosineInfoNCEOneSided has the value of PairwiseCosineInfoNCE, but, like the official GRAM code
// (all-gathered features carry no gradient, docs/official-code.md §1.3), the anchor→data term reaches only the anchor and
// the data→anchor term reaches only the data modality.
func PairwiseCosineInfoNCEOneSided(anchor *Node, others []*Node, tau *Node, labelSmoothing float64) *Node {
	return pairwiseCosineInfoNCE("PairwiseCosineInfoNCEOneSided", anchor, others, tau, labelSmoothing, true)
}

func pairwiseCosineInfoNCE(fn string, anchor *Node, others []*Node, tau *Node, labelSmoothing float64, oneSided bool) *Node {
	if len(others) == 0 {
		panicf("%s: needs at least one non-anchor modality, got none", fn)
	}
	assertScalar(fn, "tau", tau)
	var total *Node
	for m, other := range others {
		assertSameShape(fn, "anchor", anchor, "others["+itoa(m)+"]", other)
		var term *Node
		if oneSided {
			anchorToData := Div(CosineSimilarityMatrix(anchor, StopGradient(other)), tau)
			dataToAnchor := Div(CosineSimilarityMatrix(StopGradient(anchor), other), tau)
			term = DirectionalCrossEntropy(anchorToData, dataToAnchor, labelSmoothing)
		} else {
			term = InfoNCE(CosineSimilarityMatrix(anchor, other), tau, labelSmoothing)
		}
		if total == nil {
			total = term
		} else {
			total = Add(total, term)
		}
	}
	return DivScalar(total, float64(len(others)))
}

// unitRows scales each row of x (last axis) to unit length: x / max(‖x‖, normalizeEpsilon), written as
// x / sqrt(max(‖x‖², normalizeEpsilon²)) so that a zero row has a zero (not NaN) gradient.
func unitRows(x *Node) *Node {
	squaredNorm := ReduceAndKeep(Square(x), ReduceSum, -1)
	return Div(x, Sqrt(MaxScalar(squaredNorm, normalizeEpsilon*normalizeEpsilon)))
}

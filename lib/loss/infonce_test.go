package loss

import (
	"math"
	"testing"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck
	"github.com/gomlx/gomlx/core/tensors"
)

// refPairwiseInfoNCE: mean over modalities of ½[CE_rows(C/τ) + CE_rows(Cᵀ/τ)], C_ij = cos(anchor_i, m_j).
// part selects the terms: "both", "rows" (anchor → data), "cols" (data → anchor).
func refPairwiseInfoNCE(anchor mat, others []mat, tau, eps float64, part string) float64 {
	n := anchor.dims[0]
	total := 0.0
	for _, m := range others {
		c := func(i, j int) float64 { return refCos(anchor.row(i), m.row(j)) / tau }
		if part != "cols" {
			total += 0.5 * refRowsCE(n, c, eps)
		}
		if part != "rows" {
			total += 0.5 * refRowsCE(n, func(i, j int) float64 { return c(j, i) }, eps)
		}
	}
	return total / float64(len(others))
}

func TestPairwiseCosineInfoNCE(t *testing.T) {
	rng := newRand(5)
	const n, d = 4, 3
	eps := GRAMLabelSmoothing
	text, video, audio, tau, inputs, wrt := threeModalBatch(rng, n, d, 0.1)
	others := []mat{video, audio}

	two, g2 := evalLoss(t, func(in []*Node) *Node {
		return PairwiseCosineInfoNCE(in[0], []*Node{in[1], in[2]}, in[3], eps)
	}, wrt, inputs...)
	full := func() float64 { return refPairwiseInfoNCE(text, others, tau[0], eps, "both") }
	assertClose(t, "PairwiseCosineInfoNCE", two, full(), valueTolerance)
	names, xs := []string{"text", "video", "audio", "tau"}, [][]float64{text.data, video.data, audio.data, tau}
	for k, x := range xs {
		assertAllClose(t, "d/d"+names[k], g2[k], finiteDifference(full, x), gradTolerance)
	}

	one, g1 := evalLoss(t, func(in []*Node) *Node {
		return PairwiseCosineInfoNCEOneSided(in[0], []*Node{in[1], in[2]}, in[3], eps)
	}, wrt, inputs...)
	rows := func() float64 { return refPairwiseInfoNCE(text, others, tau[0], eps, "rows") }
	cols := func() float64 { return refPairwiseInfoNCE(text, others, tau[0], eps, "cols") }
	assertClose(t, "PairwiseCosineInfoNCEOneSided", one, full(), valueTolerance)
	// The text gradient comes from the rows' terms, the others' from the columns', τ's from both.
	for k, ref := range []func() float64{rows, cols, cols, full} {
		assertAllClose(t, "one-sided d/d"+names[k], g1[k], finiteDifference(ref, xs[k]), gradTolerance)
	}
}

// TestInfoNCEIsVolumeContrastiveOnNegatedSimilarity: one formula, two names — InfoNCE(S) equals
// VolumeContrastive(−S) for the same τ and ε.
func TestInfoNCEIsVolumeContrastiveOnNegatedSimilarity(t *testing.T) {
	rng := newRand(6)
	s := randMat(rng, -1, 1, 5, 5)
	a, _ := evalLoss(t, func(in []*Node) *Node { return InfoNCE(in[0], in[1], 0.1) }, nil, s.tensor(), tensors.FromScalar(0.05))
	b, _ := evalLoss(t, func(in []*Node) *Node { return VolumeContrastive(Neg(in[0]), in[1], 0.1) }, nil, s.tensor(), tensors.FromScalar(0.05))
	assertClose(t, "InfoNCE vs VolumeContrastive(−S)", a, b, 1e-14)
}

// TestCosineOfZeroVector: the F.normalize floor gives cosine 0 and finite gradients for a zero row.
func TestCosineOfZeroVector(t *testing.T) {
	a := mat{data: []float64{0, 0, 0, 1, 2, 3}, dims: []int{2, 3}}
	b := mat{data: []float64{1, 0, 0, 0, 1, 0}, dims: []int{2, 3}}
	value, grads := evalLoss(t, func(in []*Node) *Node { return ReduceAllSum(CosineSimilarityMatrix(in[0], in[1])) },
		[]int{0, 1}, a.tensor(), b.tensor())
	want := (1 + 2) / math.Sqrt(14)
	assertClose(t, "Σ cos", value, want, 1e-12)
	if !allFinite(grads[0]) || !allFinite(grads[1]) {
		t.Errorf("non-finite gradient with a zero row: %v %v", grads[0], grads[1])
	}
}

package loss

import (
	"math"
	"testing"

	"github.com/geoalign/geoalign/lib/geom"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck
	"github.com/gomlx/gomlx/core/tensors"
)

func (m mat) tensor32() *tensors.Tensor {
	f := make([]float32, len(m.data))
	for i, v := range m.data {
		f[i] = float32(v)
	}
	return tensors.FromFlatDataAndDimensions(f, m.dims...)
}

// TestFloat32Path runs every loss in float32 on realistic sizes and scales (B = 64, logits up to 100,
// near-zero volumes, tiny and large Δ), checks that values and gradients are finite, and that each value
// agrees with the float64 run of the same graph to float32 accuracy.
func TestFloat32Path(t *testing.T) {
	rng := newRand(41)
	const b, d, q = 64, 16, 96
	labels := make([]int, q)
	for i := range labels {
		labels[i] = i * b / q // contiguous caption blocks; some videos get 2 queries, some 1
	}
	unitRowsOf := func(m mat) mat {
		for i := 0; i < m.dims[0]; i++ {
			copy(m.row(i), refUnit(m.row(i)))
		}
		return m
	}
	text, video, audio := unitRowsOf(randMat(rng, -1, 1, b, d)), unitRowsOf(randMat(rng, -1, 1, b, d)), unitRowsOf(randMat(rng, -1, 1, b, d))
	// A few perfectly aligned tuples: volume 0 exactly, the sqrt's infinite-slope point.
	for i := 0; i < 4; i++ {
		copy(video.row(i), text.row(i))
		copy(audio.row(i), text.row(i))
	}
	sim := randMat(rng, -1, 1, b, b)
	scores := randMat(rng, -20, 20, q, b)
	deltaSmall := randMat(rng, -1e-3, 1e-3, b, b, d)
	deltaLarge := randMat(rng, -30, 30, b, b, d)
	apex := randMat(rng, -2, 2, q, d)
	x := randMat(rng, -2, 2, q, d)

	cases := []struct {
		name   string
		fn     func(in []*Node) *Node
		inputs []any // mat (float) or []int (labels)
		wrt    []int
		tol    float64 // relative float32-vs-float64 agreement; 0 means 1e-4
	}{
		{"VolumeContrastive", func(in []*Node) *Node {
			return VolumeContrastive(geom.VolumeMatrix(in[0], in[1], in[2]), Scalar(in[0].Graph(), in[0].DType(), 0.01), GRAMLabelSmoothing)
		}, []any{text, video, audio}, []int{0, 1, 2}, 0},
		{"VolumeContrastiveOneSided", func(in []*Node) *Node {
			return VolumeContrastiveOneSided(geom.HyperbolicVolumeMatrix, Scalar(in[0].Graph(), in[0].DType(), 0.07), GRAMLabelSmoothing, in[0], in[1], in[2])
		}, []any{text, video, audio}, []int{0, 1, 2},
			// Hyperbolic Gram determinants of lifted unit vectors (|det| ≈ 5) lose ~1e-4 absolute in float32
			// (lib/geom's precision; the GRAM code also takes det in fp32), amplified by 1/τ ≈ 14 in the logits.
			2e-3},
		{"PairwiseCosineInfoNCEOneSided", func(in []*Node) *Node {
			return PairwiseCosineInfoNCEOneSided(in[0], []*Node{in[1], in[2]}, Scalar(in[0].Graph(), in[0].DType(), 0.01), GRAMLabelSmoothing)
		}, []any{text, video, audio}, []int{0, 1, 2}, 0},
		{"GARETotal (small Δ)", func(in []*Node) *Node {
			return GARETotal(in[0], Scalar(in[0].Graph(), in[0].DType(), GARELogitScale), in[1], DefaultGAREConfig()).Total
		}, []any{sim, deltaSmall}, []int{0, 1}, 0},
		{"GARETotal paper (large Δ)", func(in []*Node) *Node {
			return GARETotal(in[0], Scalar(in[0].Graph(), in[0].DType(), GARELogitScale), in[1], PaperGAREConfig()).Total
		}, []any{sim, deltaLarge}, []int{0, 1}, 0},
		{"DirectionalOrthogonality", func(in []*Node) *Node { return DirectionalOrthogonality(in[0]) }, []any{deltaLarge}, []int{0}, 0},
		{"MultiPositiveNCE", func(in []*Node) *Node { return MultiPositiveNCE(in[0], in[1]) }, []any{scores, labels}, []int{0}, 0},
		{"TripletRanking", func(in []*Node) *Node {
			_, l := TripletRanking(Const(in[0].Graph(), must(RNGStateFromSeed(5))), in[0], in[1], TripletOptions{Margin: 0.2, HardNegatives: true})
			return l
		}, []any{scores, labels}, []int{0}, 0},
		{"QueryDiversity", func(in []*Node) *Node {
			return QueryDiversity(in[0], in[1], 0.2, HLFormerDiversityScale, HLFormerFocal)
		}, []any{x, labels}, []int{0}, 0},
		{"EntailmentCone", func(in []*Node) *Node {
			return EntailmentCone(in[0], in[1], Scalar(in[0].Graph(), in[0].DType(), 0.1), geom.MinRadius)
		}, []any{apex, x}, []int{0, 1}, 0},
	}
	for _, tc := range cases {
		var in32, in64 []*tensors.Tensor
		for _, v := range tc.inputs {
			switch v := v.(type) {
			case mat:
				in32, in64 = append(in32, v.tensor32()), append(in64, v.tensor())
			case []int:
				in32, in64 = append(in32, labelsTensor(v)), append(in64, labelsTensor(v))
			}
		}
		v32, g32 := evalLoss(t, tc.fn, tc.wrt, in32...)
		v64, _ := evalLoss(t, tc.fn, nil, in64...)
		if math.IsNaN(v32) || math.IsInf(v32, 0) {
			t.Errorf("%s: float32 value %g", tc.name, v32)
		}
		for i, g := range g32 {
			if !allFinite(g) {
				t.Errorf("%s: non-finite float32 gradient for input %d", tc.name, tc.wrt[i])
			}
		}
		tol := tc.tol
		if tol == 0 {
			tol = 1e-4
		}
		if math.Abs(v32-v64) > tol*math.Max(1, math.Abs(v64)) {
			t.Errorf("%s: float32 %g vs float64 %g", tc.name, v32, v64)
		}
	}
}

package loss_test

// The printed values were computed independently (a plain-Python float64 transcription of each formula),
// not copied from this package's output.

import (
	"fmt"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/geom"
	"github.com/geoalign/geoalign/lib/loss"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// The GRAM code's loss (label smoothing 0.1) and the paper's (none) on a 2×2 volume matrix:
// row i = text i, column j = data tuple j; small volumes on the diagonal mean aligned tuples.
func ExampleVolumeContrastive() {
	vol := [][]float32{{0.1, 0.9}, {0.8, 0.2}}
	for _, eps := range []float64{loss.GRAMLabelSmoothing, 0} {
		l := graph.MustExecOnce(backend.MustNew(), func(vol, tau *graph.Node) *graph.Node {
			return loss.VolumeContrastive(vol, tau, eps)
		}, vol, float32(loss.GRAMInitialTemperature))
		fmt.Printf("ε = %.1f: %.4f\n", eps, tensors.ToScalar[float32](l))
	}
	// Output:
	// ε = 0.1: 0.5001
	// ε = 0.0: 0.0001
}

// The official code's one-sided gradients: each direction differentiates only its own side. The value is
// the two-sided loss's. With k = 2 modalities the volume is |sin θ|.
func ExampleVolumeContrastiveOneSided() {
	text := [][]float64{{1, 0}, {0, 1}}
	video := [][]float64{{0.8, 0.6}, {0.6, 0.8}} // volumes [[0.6, 0.8], [0.8, 0.6]]
	l := graph.MustExecOnce(backend.MustNew(), func(t, v *graph.Node) *graph.Node {
		tau := graph.Scalar(t.Graph(), t.DType(), loss.GRAMInitialTemperature)
		return loss.VolumeContrastiveOneSided(geom.VolumeMatrix, tau, loss.GRAMLabelSmoothing, t, v)
	}, text, video)
	fmt.Printf("%.4f\n", tensors.ToScalar[float64](l))
	// Output: 0.1987
}

// DAM hard negatives: one draw per text from softmax(−V/τ) + 1e-4 with the positive excluded.
func ExampleSampleDAMNegatives() {
	vol := [][]float32{{0.1, 0.3, 0.9}, {0.9, 0.1, 0.3}, {0.3, 0.9, 0.1}}
	neg := graph.MustExecOnce(backend.MustNew(), func(vol, tau *graph.Node) *graph.Node {
		rng := graph.Const(vol.Graph(), must(graph.RNGStateFromSeed(42)))
		_, negatives := loss.SampleDAMNegatives(rng, vol, tau)
		return negatives
	}, vol, float32(0.07))
	ok := true
	for i, j := range tensors.MustCopyFlatData[int32](neg) {
		ok = ok && int(j) != i
	}
	fmt.Println("no text drew its own tuple:", ok)
	// Output: no text drew its own tuple: true
}

// The three GARE regularisers on a tiny Δ [2 texts, 2 videos, 2 dims], in the code's conventions, plus
// the paper's per-dimension KL.
func ExampleIBRelax() {
	delta := [][][]float64{{{0.1, 0.2}, {0.3, -0.1}}, {{0.0, 0.4}, {-0.2, 0.1}}}
	out := graph.MustExecOnceN(backend.MustNew(), func(d *graph.Node) []*graph.Node {
		return []*graph.Node{
			loss.IBRelax(d),
			loss.IBRelaxWith(d, loss.IBRelaxOptions{PerDimension: true}),
			loss.NormVariance(d, loss.GARENormLowerBound),
			loss.DirectionalDiversity(d, loss.GAREAlpha),
		}
	}, delta)
	fmt.Printf("L_IB %.4f, per-dim %.4f, L_ε %.4f, L_dir %.4f\n", tensors.ToScalar[float64](out[0]),
		tensors.ToScalar[float64](out[1]), tensors.ToScalar[float64](out[2]), tensors.ToScalar[float64](out[3]))
	// Output: L_IB 2.8667, per-dim 1.4333, L_ε -0.0099, L_dir -0.4676
}

// HLFormer's NCE: queries 0 and 1 describe video 0, query 2 video 1.
func ExampleMultiPositiveNCE() {
	scores := [][]float32{{2.0, 0.5}, {1.0, 0.0}, {0.2, 1.5}}
	labels := []int32{0, 0, 1}
	l := graph.MustExecOnce(backend.MustNew(), loss.MultiPositiveNCE, scores, labels)
	fmt.Printf("%.4f\n", tensors.ToScalar[float32](l))
	// Output: 0.5411
}

// The triplet loss with the hard-negative curriculum on (epoch ≥ 20) and a pool of 1: deterministic.
func ExampleTripletRanking() {
	scores := [][]float32{{0.5, 0.4}, {0.3, 0.6}, {0.2, 0.7}}
	labels := []int32{0, 0, 1}
	l := graph.MustExecOnce(backend.MustNew(), func(s, l *graph.Node) *graph.Node {
		rng := graph.Const(s.Graph(), must(graph.RNGStateFromSeed(1)))
		_, value := loss.TripletRanking(rng, s, l, loss.TripletOptions{Margin: 0.2, HardNegatives: true, HardPoolSize: 1})
		return value
	}, scores, labels)
	fmt.Printf("%.4f\n", tensors.ToScalar[float32](l))
	// Output: 0.2500
}

// Query diversity, the code's form (focal factor, pairs i ≠ j) and the paper's Eq. 32.
func ExampleQueryDiversity() {
	queries := [][]float64{{1, 0}, {1, 1}, {0, 1}}
	labels := []int32{0, 0, 1}
	out := graph.MustExecOnceN(backend.MustNew(), func(q, l *graph.Node) []*graph.Node {
		return []*graph.Node{
			loss.QueryDiversity(q, l, 0.2, loss.HLFormerDiversityScale, loss.HLFormerFocal),
			loss.QueryDiversityPaper(q, l, 0.2, loss.HLFormerDiversityScale),
		}
	}, queries, labels)
	fmt.Printf("code %.4f, paper %.4f\n", tensors.ToScalar[float64](out[0]), tensors.ToScalar[float64](out[1]))
	// Output: code 33.0353, paper 57.7516
}

// POP loss with the video as apex (c = 1): a query farther out along the video's direction is inside its
// cone (loss 0); a query off to the side is not.
func ExampleEntailmentCone() {
	apex := [][]float64{{1, 0}}
	for _, x := range [][][]float64{{{2, 0}}, {{0, 2}}} {
		l := graph.MustExecOnce(backend.MustNew(), func(a, x *graph.Node) *graph.Node {
			return loss.EntailmentCone(a, x, graph.Scalar(a.Graph(), a.DType(), 1.0), geom.MinRadius)
		}, apex, x)
		fmt.Printf("%.4f\n", tensors.ToScalar[float64](l))
	}
	// Output:
	// 0.0000
	// 2.2105
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

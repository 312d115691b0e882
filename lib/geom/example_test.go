package geom_test

import (
	"fmt"
	"math"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/geom"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
)

// Two unit vectors 30° apart span a parallelogram of area sin 30° = 0.5; three orthonormal vectors
// span the unit cube. GRAM ranks (text, video, audio) triples by this volume: smaller = better aligned.
func ExampleGramVolume() {
	s := math.Sin(math.Pi / 6)
	v := [][][]float64{{{1, 0, 0}, {math.Sqrt(1 - s*s), s, 0}}} // k = 2
	cube := [][][]float64{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}    // k = 3
	b := backend.MustNew()
	fmt.Printf("%.4f\n", MustExecOnce(b, geom.GramVolume, v).Value())
	fmt.Printf("%.4f\n", MustExecOnce(b, geom.GramVolume, cube).Value())
	// Output:
	// [0.5000]
	// [1.0000]
}

// Lifted to the hyperboloid, π(x) = [√(1+‖x‖²), x], three orthonormal vectors have the Lorentzian Gram
// matrix I − 2J, so HyperGRAM's pseudo-volume is √5 ≈ 2.2361 while the Euclidean one is 1.
func ExampleHyperbolicGramVolume() {
	cube := [][][]float64{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}
	fmt.Printf("%.4f\n", MustExecOnce(backend.MustNew(), geom.HyperbolicGramVolume, cube).Value())
	// Output:
	// [2.2361]
}

// Entry (i, j) of the volume matrix is the volume of (text_i, video_j, audio_j). Here each text equals its
// own video, so the matched triples on the diagonal have volume 0 and the mismatched ones 0.8.
func ExampleVolumeMatrix() {
	text := [][]float64{{1, 0, 0}, {0, 1, 0}}
	video := [][]float64{{1, 0, 0}, {0, 1, 0}}
	audio := [][]float64{{0.6, 0, 0.8}, {0, 0.6, 0.8}}
	vol := MustExecOnce(backend.MustNew(), func(t, v, a *Node) *Node { return geom.VolumeMatrix(t, v, a) },
		text, video, audio)
	fmt.Printf("%.4f\n", vol.Value())
	// Output:
	// [[0.0000 0.8000] [0.8000 0.0000]]
}

// HyperGRAM's V_α mixes the two volumes: α = 0.5 on the unit cube gives (√5 + 1)/2.
func ExampleHybridVolume() {
	cube := [][][]float64{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}
	v := MustExecOnce(backend.MustNew(), func(v *Node) *Node { return geom.HybridVolume(ConstAs(v, 0.5), v) }, cube)
	fmt.Printf("%.4f\n", v.Value())
	// Output:
	// [1.6180]
}

// The exponential map at the origin sends a tangent vector u to the point at geodesic distance ‖u‖
// (here ‖u‖ = 2.5, curvature −c with c = 2), and the logarithmic map brings it back.
func ExampleExpMap0() {
	u := [][]float64{{1.5, 2, 0}}
	b := backend.MustNew()
	out := MustExecOnceN(b, func(u, c *Node) []*Node {
		x := geom.ExpMap0(u, c)
		return []*Node{geom.LorentzDistance(ZerosLike(x), x, c), geom.LogMap0(x, c), geom.LorentzInner(x, x, c)}
	}, u, 2.0)
	fmt.Printf("distance %.4f\n", out[0].Value())
	fmt.Printf("log map  %.4f\n", out[1].Value())
	fmt.Printf("<x,x>_L  %.4f\n", out[2].Value())
	// Output:
	// distance [2.5000]
	// log map  [[1.5000 2.0000 0.0000]]
	// <x,x>_L  [-0.5000]
}

// HLFormer's POP loss (and MERU's entailment loss) penalises max(0, ExteriorAngle − HalfAperture): a text
// straight "behind" its video (further along the same ray from the origin) is inside the video's cone
// (angle 0), one off to the side is outside (2.048 > 0.201).
func ExampleExteriorAngle() {
	video := [][]float64{{1, 0}}
	texts := [][]float64{{3, 0}, {1, 2}}
	out := MustExecOnceN(backend.MustNew(), func(v, t, c *Node) []*Node {
		v = BroadcastToDims(v, 2, 2)
		return []*Node{geom.ExteriorAngle(v, t, c), geom.HalfAperture(v, c, geom.MinRadius)}
	}, video, texts, 1.0)
	fmt.Printf("exterior angles %.3f\n", out[0].Value())
	fmt.Printf("half-aperture   %.3f\n", out[1].Value())
	// Output:
	// exterior angles [0.000 2.048]
	// half-aperture   [0.201 0.201]
}

// Float16 is a storage dtype: Acosh converts to float32, computes, and rounds the value and the
// gradient back, so it is finite over float16's whole range (acosh(65504) ≈ 11.78), and its slope at 1
// is the AcoshGradFloor cap 1/√1e-9 ≈ 31623, rounded to 31616.
func ExampleAcosh_float16() {
	xs := []float64{1, 256, 65504}
	out := MustExecOnceN(backend.MustNew(), func(x *Node) []*Node {
		x16 := ConvertDType(x, dtypes.Float16)
		y := geom.Acosh(x16)
		slope := Gradient(ReduceAllSum(y), x16)[0]
		return []*Node{ConvertDType(y, dtypes.Float64), ConvertDType(slope, dtypes.Float64)}
	}, xs)
	fmt.Printf("acosh  %.4g\n", out[0].Value())
	fmt.Printf("slope  %.4g\n", out[1].Value())
	// Output:
	// acosh  [0 6.238 11.78]
	// slope  [3.162e+04 0.003906 1.526e-05]
}

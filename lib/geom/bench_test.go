package geom

import (
	"math/rand/v2"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/bench"
	. "github.com/gomlx/gomlx/core/graph"
)

// Paired benchmarks (make bench): the same computation as lib/bench/torch/VolumeMatrix.py and
// HyperbolicVolumeMatrix.py. B1 = B2 = 256, k = 3, d = 512, float32, L2-normalised inputs; one step is
// the mean volume and its gradient with respect to the anchor and both data modalities. The compiled
// executable is reused across iterations.
const benchB, benchD = 256, 512

func benchmarkVolumeStep(b *testing.B, volume func(anchor *Node, others ...*Node) *Node) {
	rng := rand.New(rand.NewPCG(35, 36))
	anchor, video, audio := bench.UnitRows(rng, benchB, benchD), bench.UnitRows(rng, benchB, benchD), bench.UnitRows(rng, benchB, benchD)
	exec := MustNewExec(backend.MustNew(), func(a, v, au *Node) []*Node {
		loss := ReduceAllMean(volume(a, v, au))
		return append([]*Node{loss}, Gradient(loss, a, v, au)...)
	})
	defer exec.Finalize()
	step := func() {
		for _, t := range exec.MustExec(anchor, video, audio) {
			t.FinalizeAll()
		}
	}
	step() // compile
	if bench.Checking() {
		out := exec.MustExec(anchor, video, audio)
		bench.Dump(b, bench.Tensor("anchor", anchor), bench.Tensor("video", video), bench.Tensor("audio", audio),
			bench.Tensor("loss", out[0]), bench.Tensor("grad_anchor", out[1]))
	}
	b.ResetTimer()
	for b.Loop() {
		step()
	}
}

func BenchmarkPairedVolumeMatrix(b *testing.B) { benchmarkVolumeStep(b, VolumeMatrix) }

func BenchmarkPairedHyperbolicVolumeMatrix(b *testing.B) {
	benchmarkVolumeStep(b, HyperbolicVolumeMatrix)
}

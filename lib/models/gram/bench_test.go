package gram

import (
	"math/rand/v2"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/bench"
	"github.com/geoalign/geoalign/lib/geom"
	"github.com/geoalign/geoalign/lib/loss"
	"github.com/gomlx/gomlx/core/graph"
)

// Paired benchmarks (make bench, issue 11's GRAM rows), twins of lib/bench/torch/GramLoss.py and
// GramVolumeMatrix1024.py. Inputs are L2-normalised float32 rows; compiled executables are reused.

// BenchmarkPairedGramLoss is one forward+backward of GRAM's volume-contrastive loss as the code
// computes it (docs/official-code.md §1.3): B = 256, k = 3 (text anchor, video, audio), d = 512, one-sided
// gradients, label smoothing 0.1, τ = 0.07; gradients with respect to the three inputs and τ.
func BenchmarkPairedGramLoss(b *testing.B) {
	const n, d = 256, 512
	rng := rand.New(rand.NewPCG(61, 62))
	text, video, audio := bench.UnitRows(rng, n, d), bench.UnitRows(rng, n, d), bench.UnitRows(rng, n, d)
	tau := float32(loss.GRAMInitialTemperature)
	exec := graph.MustNewExec(backend.MustNew(), func(t, v, a, tau *graph.Node) []*graph.Node {
		l := loss.VolumeContrastiveOneSided(geom.VolumeMatrix, tau, loss.GRAMLabelSmoothing, t, v, a)
		return append([]*graph.Node{l}, graph.Gradient(l, t, v, a, tau)...)
	})
	defer exec.Finalize()
	step := func() {
		for _, o := range exec.MustExec(text, video, audio, tau) {
			o.FinalizeAll()
		}
	}
	step() // compile
	if bench.Checking() {
		out := exec.MustExec(text, video, audio, tau)
		bench.Dump(b, bench.Tensor("text", text), bench.Tensor("video", video), bench.Tensor("audio", audio),
			bench.Floats("tau", []float32{tau}), bench.Tensor("loss", out[0]), bench.Tensor("grad_text", out[1]))
	}
	b.ResetTimer()
	for b.Loop() {
		step()
	}
}

// BenchmarkPairedGramVolumeMatrix1024 is GRAM's B×B volume matrix forward, B = 1024, k = 3, d = 512
// (the retrieval score of a 1k test set, docs/official-code.md §1.6).
func BenchmarkPairedGramVolumeMatrix1024(b *testing.B) {
	const n, d = 1024, 512
	rng := rand.New(rand.NewPCG(63, 64))
	text, video, audio := bench.UnitRows(rng, n, d), bench.UnitRows(rng, n, d), bench.UnitRows(rng, n, d)
	exec := graph.MustNewExec(backend.MustNew(), func(t, v, a *graph.Node) *graph.Node {
		return geom.VolumeMatrix(t, v, a)
	})
	defer exec.Finalize()
	step := func() { exec.MustExec(text, video, audio)[0].FinalizeAll() }
	step()
	if bench.Checking() {
		bench.Dump(b, bench.Tensor("text", text), bench.Tensor("video", video), bench.Tensor("audio", audio),
			bench.Tensor("volume", exec.MustExec(text, video, audio)[0]))
	}
	b.ResetTimer()
	for b.Loop() {
		step()
	}
}

package retrieval

import (
	"math/rand/v2"
	"testing"

	"github.com/geoalign/geoalign/lib/bench"
)

// randomSquare fills an n × n float32 matrix with uniform scores and lifts the
// diagonal a little, so ranks spread over the whole range like a half-trained model's.
func randomSquare(n int) Matrix[float32] {
	m := Matrix[float32]{Rows: n, Cols: n, Data: make([]float32, n*n)}
	parallelRanges(n, n*n, func(lo, hi int) {
		rng := rand.New(rand.NewPCG(uint64(lo), 1))
		for r := lo; r < hi; r++ {
			row := m.Data[r*n : (r+1)*n]
			for j := range row {
				row[j] = rng.Float32()
			}
			row[r] += 0.4
		}
	})
	return m
}

// BenchmarkPairedRank20k: text→video ranks of the ground truth (the diagonal) in a
// 20,000 × 20,000 float32 score matrix already in memory, plus R@1/5/10, MdR, MnR.
// Paired with lib/bench/torch/Rank20k.py (the official codes' argsort ranking).
func BenchmarkPairedRank20k(b *testing.B) {
	m := randomSquare(20000)
	if bench.Checking() {
		res, err := Evaluate[float32](m, nil, Options{})
		if err != nil {
			b.Fatal(err)
		}
		bench.Dump(b, bench.Floats("scores", m.Data, m.Rows, m.Cols), bench.Ints("ranks", res.T2VRanks))
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Evaluate[float32](m, nil, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRank20kBothDirections adds the video→text pass (per-column counters).
func BenchmarkRank20kBothDirections(b *testing.B) {
	m := randomSquare(20000)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Evaluate[float32](m, nil, Options{VideoToText: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRank2kTop100: a 2,000 × 2,000 matrix with the top-100 kept per query.
func BenchmarkRank2kTop100(b *testing.B) {
	m := randomSquare(2000)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Evaluate[float32](m, nil, Options{TopK: 100, VideoToText: true}); err != nil {
			b.Fatal(err)
		}
	}
}

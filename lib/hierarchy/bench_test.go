package hierarchy

import (
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
)

// BenchmarkEpochLorentz10 times one training epoch, Lorentz d = 10, paper settings, on a complete
// ternary tree of depth 6 (1,093 nodes, 6,015 closure edges), the size of the WordNet mammal
// closure (1,181 nodes, 6,541 edges): ~600 steps of batch 10 with 10 negatives.
func BenchmarkEpochLorentz10(b *testing.B) {
	benchmarkEpoch(b, Lorentz, 10)
}

// BenchmarkEpochPoincare10 is BenchmarkEpochLorentz10 in the Poincaré ball.
func BenchmarkEpochPoincare10(b *testing.B) {
	benchmarkEpoch(b, Poincare, 10)
}

func benchmarkEpoch(b *testing.B, m Manifold, dim int) {
	tree := treeClosure(b, 3, 6)
	cfg := PaperConfig(m, dim)
	cfg.Epochs = 1 << 30
	tr, err := NewTrainer(backend.MustNew(), tree, cfg)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := tr.RunEpoch(); err != nil { // compiles the step graph
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := tr.RunEpoch(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(tree.NumEdges()), "edges/epoch")
}

// BenchmarkEvaluateMammalSize times the reconstruction metrics on the same tree, Lorentz d = 10.
func BenchmarkEvaluateMammalSize(b *testing.B) {
	tree := treeClosure(b, 3, 6)
	tr, err := NewTrainer(backend.MustNew(), tree, PaperConfig(Lorentz, 10))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := Evaluate(backend.MustNew(), tr.Emb, tree); err != nil {
			b.Fatal(err)
		}
	}
}

package gram_test

import (
	"fmt"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/models/gram"
)

// Evaluating hand-built embeddings with the GRAM protocol: anchor i, video i and audio i all lean
// towards e_i, so the matched tuple spans the smallest volume and every query finds its own tuple.
func ExampleEvaluate() {
	const n, dim = 4, 8
	emb := &gram.Embeddings{N: n, Dim: dim}
	for m := 0; m < 3; m++ {
		rows := make([][]float32, n)
		for i := range rows {
			rows[i] = make([]float32, dim)
			rows[i][i] = 1
			rows[i][dim-1-m] = 0.3 // keeps video and audio apart
		}
		emb.Heads = append(emb.Heads, rows)
	}
	ev, err := gram.Evaluate(backend.MustNew(), emb, gram.Score{Kind: gram.VolumeScore, Geometry: gram.Euclidean})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: T→V+A R@1 %.0f%%, V+A→T R@1 %.0f%%\n", ev.Score, ev.T2V.R(1), ev.V2T.R(1))
	// Output: −V_euc: T→V+A R@1 100%, V+A→T R@1 100%
}

// The configurations the papers compare, and the behaviour each one records in its tables.
func ExampleConfig_Behavior() {
	for _, c := range []gram.Config{gram.DefaultConfig(), gram.PairwiseConfig(), gram.HyperGRAMConfig()} {
		fmt.Println(c.Name())
	}
	fmt.Println(gram.DefaultConfig().Behavior())
	// Output:
	// GRAM
	// pairwise cosine
	// HyperGRAM
	// euclidean volume loss (both directions); one-sided gradients (code); label smoothing 0.1 (code); learnable raw τ (init 0.07, code); DAM λ = 0.1 on an MLP matching head (replaces the BERT cross-encoder); AdamW lr 0.001 wd 0.01 warmup_linear 0.1, batch 64; model of the best validation T→V+A SumR (the dataset's validation split, else 0.1 of train carved out; the code has none)
}

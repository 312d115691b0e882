package bench

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/nn"
)

func randomTensor(rng *rand.Rand, scale float32, dims ...int) *tensors.Tensor {
	t := tensors.FromShape(shapes.Make(dtypes.Float32, dims...))
	tensors.MustMutableFlatData(t, func(flat []float32) {
		for i := range flat {
			flat[i] = scale * float32(rng.NormFloat64())
		}
	})
	return t
}

// BenchmarkPairedMatMul1024 is one 1024³ float32 matmul (2.15 GFLOP per op).
func BenchmarkPairedMatMul1024(b *testing.B) {
	const n = 1024
	rng := rand.New(rand.NewPCG(1, 2))
	x, y := randomTensor(rng, 1, n, n), randomTensor(rng, 1, n, n)
	exec := graph.MustNewExec(backend.MustNew(), graph.MatMul)
	out := exec.MustExec(x, y)[0]
	if Checking() {
		Dump(b, Tensor("x", x), Tensor("y", y), Tensor("out", out))
	}
	out.FinalizeAll()
	b.ResetTimer()
	for b.Loop() {
		exec.MustExec(x, y)[0].FinalizeAll()
	}
	b.ReportMetric(2*n*n*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// Transformer block shapes (docs/toolchain.md §3).
const (
	blockBatch, blockSeq, blockDim, blockHeads, blockLayers = 128, 32, 384, 6, 2
)

// preLNLayer is x + MHA(LN(x)) followed by x + MLP(LN(x)); w holds wq, wk, wv, wo, w1, w2.
func preLNLayer(x *graph.Node, w []*graph.Node) *graph.Node {
	bsz, seq, d := x.Shape().Dimensions[0], x.Shape().Dimensions[1], x.Shape().Dimensions[2]
	hd := d / blockHeads
	h := nn.LayerNorm(x, []int{-1}, 1e-5, nil, nil, nil)
	proj := func(w *graph.Node) *graph.Node {
		return graph.Reshape(graph.Einsum("bsd,de->bse", h, w), bsz, seq, blockHeads, hd)
	}
	q, k, v := proj(w[0]), proj(w[1]), proj(w[2])
	logits := graph.MulScalar(graph.Einsum("bqhd,bkhd->bhqk", q, k), 1/float64(hd))
	att := graph.Einsum("bhqk,bkhd->bqhd", graph.Softmax(logits, -1), v)
	x = graph.Add(x, graph.Einsum("bsd,de->bse", graph.Reshape(att, bsz, seq, d), w[3]))
	h = nn.LayerNorm(x, []int{-1}, 1e-5, nil, nil, nil)
	mlp := graph.Einsum("bsf,fd->bsd", activation.Gelu(graph.Einsum("bsd,df->bsf", h, w[4])), w[5])
	return graph.Add(x, mlp)
}

// transformerBlockFLOPs is the nominal matmul work of one BenchmarkPairedTransformerBlock step:
// per layer and forward pass, the four D×D projections (8·B·S·D²), the two attention products
// (4·B·S²·D) and the 4× MLP (16·B·S·D²); the backward pass counted as twice the forward, the usual
// convention (it also computes the first layer's unneeded input gradient). ≈ 88.2 GFLOP.
func transformerBlockFLOPs() float64 {
	bs, s, d := float64(blockBatch*blockSeq), float64(blockSeq), float64(blockDim)
	forward := 24*bs*d*d + 4*bs*s*d
	return 3 * blockLayers * forward
}

// BenchmarkPairedTransformerBlock is one training step (loss, gradients of every weight)
// of 2 pre-LN transformer layers; it reports the nominal matmul rate (transformerBlockFLOPs).
func BenchmarkPairedTransformerBlock(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	d, f := blockDim, 4*blockDim
	inputs := []*tensors.Tensor{
		randomTensor(rng, 1, blockBatch, blockSeq, d), // x
		randomTensor(rng, 1, blockBatch, blockSeq, d), // target
	}
	for range blockLayers {
		for _, dims := range [][2]int{{d, d}, {d, d}, {d, d}, {d, d}, {d, f}, {f, d}} {
			inputs = append(inputs, randomTensor(rng, 0.02, dims[0], dims[1]))
		}
	}
	step := func(in []*graph.Node) []*graph.Node {
		x, target, weights := in[0], in[1], in[2:]
		for l := range blockLayers {
			x = preLNLayer(x, weights[6*l:6*l+6])
		}
		loss := graph.ReduceAllMean(graph.Square(graph.Sub(x, target)))
		return append([]*graph.Node{loss}, graph.Gradient(loss, weights...)...)
	}
	exec := graph.MustNewExec(backend.MustNew(), step)
	args := make([]any, len(inputs))
	for i, t := range inputs {
		args[i] = t
	}
	run := func() {
		for _, t := range exec.MustExec(args...) {
			t.FinalizeAll()
		}
	}
	if Checking() {
		out := exec.MustExec(args...)
		arrays := []Array{Tensor("x", inputs[0]), Tensor("target", inputs[1]), Tensor("loss", out[0]), Tensor("grad_w0", out[1])}
		for i, w := range inputs[2:] {
			arrays = append(arrays, Tensor(fmt.Sprintf("w%d", i), w))
		}
		Dump(b, arrays...)
	}
	run()
	b.ResetTimer()
	for b.Loop() {
		run()
	}
	b.ReportMetric(transformerBlockFLOPs()*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

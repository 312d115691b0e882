package hlformer

import (
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
	"github.com/gomlx/gomlx/ml/model"
)

// BlockTrace exposes what one HLFormer block computes (HLFormer §3.3, Fig. 2(b)), for figures and
// tests. Branches are in the block's order: the Euclidean ones, then the Lorentz ones, each in
// Config order.
type BlockTrace struct {
	// Branches are the branch outputs before fusion, [N_O, N, L, d].
	Branches *Node
	// Attention are the branches' attention weights, each [N, h, L, L] (query position × key
	// position, a softmax over keys after the Gaussian mask and the key mask, before dropout):
	// HLFormer Eq. 10 for a Euclidean branch, Eq. 15–16 for a Lorentz one.
	Attention []*Node
	// Lorentz are the Lorentz branches' traces, in Config order.
	Lorentz []LorentzTrace
	// Fusion is MAIM's branch weights [N, L, N_O] (Eq. 17: at every position a softmax over the
	// branches); nil for MeanPooling and ConcatLinear.
	Fusion *Node
}

// TraceFn receives the trace of every HLFormer block while a graph is built (name = the block's scope).
type TraceFn func(name string, t BlockTrace)

// HLFormerBlock is the code's HLFormerBlock (HLFormer §3.3, Fig. 2(b); docs/official-code.md §3.2): c.EuclideanWidths
// Euclidean blocks and c.LorentzWidths Lorentz blocks run in parallel on x [N, L, d] (keyMask [N, L] or
// nil), and their outputs [N_O, N, L, d] (branch-major) are fused by c.Aggregation → [N, L, d]. trace (may
// be nil) receives the block's trace.
func HLFormerBlock(scope *model.Scope, x, keyMask *Node, c Config, trace TraceFn) *Node {
	var outputs []*Node
	var t BlockTrace
	for i, w := range c.EuclideanWidths {
		out, weights := euclideanBlock(scope.In("euclidean_%d", i), x, keyMask, w, c)
		outputs, t.Attention = append(outputs, out), append(t.Attention, weights)
	}
	for i, w := range c.LorentzWidths {
		out, lt := LorentzBlock(scope.In("lorentz_%d", i), x, keyMask, w, c)
		outputs, t.Attention, t.Lorentz = append(outputs, out), append(t.Attention, lt.Weights), append(t.Lorentz, lt)
	}
	if len(outputs) == 0 {
		panicf("HLFormerBlock: no branches configured")
	}
	t.Branches = Stack(outputs, 0)
	var fused *Node
	switch c.Aggregation {
	case MeanPooling:
		fused = ReduceMean(t.Branches, 0)
	case ConcatLinear:
		fused = linear(scope.In("concat_linear"), Concatenate(outputs, -1), x.Shape().Dim(-1), true)
	default:
		t.Fusion = MAIMWeights(scope.In("maim"), t.Branches, keyMask, c)
		fused = maimFuse(t.Branches, t.Fusion)
	}
	if trace != nil {
		trace(scope.Scope(), t)
	}
	return fused
}

// MAIMWeights returns the Mean-Guided Adaptive Interaction Module's branch weights (HLFormer Eq. 17;
// docs/official-code.md §3.2) for branches [B, N, L, d] (branch-major):
//
//  1. φ = mean over branches and over all L positions (padding included, as in the code) → [N, 1, d];
//  2. for each branch i, the shared CrossAttentionBlock(φ, branch i, keyMask) → [N, 1, d];
//  3. the B results [N, B, d] → Linear(d, d) → ReLU → Dropout → Linear(d, L) → [N, B, L];
//  4. softmax over the B branches of w/τ at every position (τ = c.BranchTemperature) → [N, L, B].
func MAIMWeights(scope *model.Scope, branches, keyMask *Node, c Config) *Node {
	b, n, length, d := branches.Shape().Dim(0), branches.Shape().Dim(1), branches.Shape().Dim(2), branches.Shape().Dim(3)
	phi := ReduceMean(branches, 0, 2) // [N, d]
	// The cross-attention weights are shared by all branches, so the B calls are one call on a batch of
	// N·B sequences, video-major: lib/seedrand keys the dropout masks by video, so a block of videos
	// (the chunked step) draws the single graph's masks.
	perBranch := Reshape(TransposeAllDims(branches, 1, 0, 2, 3), n*b, length, d)
	query := Reshape(BroadcastToDims(Reshape(phi, n, 1, 1, d), n, b, 1, d), n*b, 1, d)
	var mask *Node
	if keyMask != nil {
		mask = Reshape(BroadcastToDims(Reshape(keyMask, n, 1, length), n, b, length), n*b, length)
	}
	tokens := CrossAttentionBlock(scope.In("cross_attention"), query, perBranch, mask, c) // [N·B, 1, d]
	tokens = Reshape(tokens, n, b, d)                                                     // [N, B, d]
	h := dropout(scope, torchRelu(linear(scope.In("layer1"), tokens, d, true)), c.Dropout)
	w := linear(scope.In("layer2"), h, length, true) // [N, B, L]
	return Softmax(DivScalar(TransposeAllDims(w, 0, 2, 1), c.BranchTemperature), -1)
}

// MAIMFusion is MAIM's output (HLFormer Eq. 17): x̃_j = Σ_i w̃_ij · x_{σ_i, j}, branches [B, N, L, d] → [N, L, d].
func MAIMFusion(scope *model.Scope, branches, keyMask *Node, c Config) *Node {
	return maimFuse(branches, MAIMWeights(scope, branches, keyMask, c))
}

// maimFuse is Eq. 17's weighted sum of branches [B, N, L, d] with MAIM's weights [N, L, B].
func maimFuse(branches, weights *Node) *Node {
	w := TransposeAllDims(weights, 2, 0, 1) // [B, N, L]
	return ReduceSum(Mul(branches, InsertAxes(w, -1)), 0)
}

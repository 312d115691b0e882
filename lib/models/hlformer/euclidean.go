package hlformer

import (
	"math"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
	"github.com/gomlx/gomlx/ml/model"
)

// AttentionMaskFill is what the Euclidean attention adds to the logits of padded keys: the code's
// (1 − mask)·(−10000) (BERT convention; docs/official-code.md §3.2).
const AttentionMaskFill = -10000.0

// EuclideanAttentionOptions configure EuclideanAttention.
type EuclideanAttentionOptions struct {
	Heads   int
	Width   float64  // Gaussian mask width; 0 = no mask (the code's wid = None)
	Mask    MaskForm // mask formula
	Dropout float64  // attention-probability dropout (attention_probs_dropout_prob = config.drop)
}

// EuclideanAttention is the code's EuclideanGaussianAttention (HLFormer Eq. 10; docs/official-code.md §3.2): multi-head
// attention whose scaled logits are multiplied by the Gaussian mask M_σ,
//
//	A = softmax( (Q Kᵀ/√d_h) ⊙ M_σ + (1 − keyMask)·AttentionMaskFill ),  out = dropout(A) V,
//
// with Q, K, V linear projections (with bias) of query [N, Lq, d], key and value [N, L, d]. keyMask
// [N, L] (1 = valid, 0 = padding; nil = all valid). The mask needs Lq = L; there is no output
// projection (as in the code). Returns [N, Lq, d].
func EuclideanAttention(scope *model.Scope, query, key, value, keyMask *Node, opts EuclideanAttentionOptions) *Node {
	out, _ := euclideanAttention(scope, query, key, value, keyMask, opts)
	return out
}

// euclideanAttention is EuclideanAttention that also returns the attention weights A [N, h, Lq, L]
// before dropout.
func euclideanAttention(scope *model.Scope, query, key, value, keyMask *Node, opts EuclideanAttentionOptions) (out, weights *Node) {
	n, lq, d := query.Shape().Dim(0), query.Shape().Dim(1), query.Shape().Dim(2)
	lk := key.Shape().Dim(1)
	if opts.Heads <= 0 || d%opts.Heads != 0 {
		panicf("EuclideanAttention: hidden size %d is not a multiple of %d heads", d, opts.Heads)
	}
	dh := d / opts.Heads
	split := func(x *Node, length int) *Node { return Reshape(x, n, length, opts.Heads, dh) }
	q := split(linear(scope.In("query"), query, d, true), lq)
	k := split(linear(scope.In("key"), key, d, true), lk)
	v := split(linear(scope.In("value"), value, d, true), lk)

	logits := DivScalar(Einsum("nqhd,nkhd->nhqk", q, k), math.Sqrt(float64(dh)))
	if opts.Width > 0 {
		if lq != lk {
			panicf("EuclideanAttention: a Gaussian mask needs query length = key length, got %d and %d", lq, lk)
		}
		logits = Mul(logits, gaussianMaskNode(query.Graph(), logits.DType(), lk, opts.Width, opts.Mask))
	}
	if keyMask != nil {
		fill := MulScalar(OneMinus(keyMask), AttentionMaskFill) // [N, L]
		logits = Add(logits, Reshape(fill, n, 1, 1, lk))
	}
	weights = Softmax(logits, -1)
	probs := dropout(scope, weights, opts.Dropout)
	return Reshape(Einsum("nhqk,nkhd->nqhd", probs, v), n, lq, d), weights
}

// EuclideanBlock is the code's EuclideanAttentionBlock (the Euclidean Attention Block of HLFormer §3.3;
// docs/official-code.md §3.2): self-attention → dropout → residual → LayerNorm → FFN(d → 4d → d) → dropout → residual →
// LayerNorm. x [N, L, d], keyMask [N, L] or nil → [N, L, d].
func EuclideanBlock(scope *model.Scope, x, keyMask *Node, width float64, c Config) *Node {
	out, _ := euclideanBlock(scope, x, keyMask, width, c)
	return out
}

// euclideanBlock is EuclideanBlock that also returns its attention weights [N, h, L, L].
func euclideanBlock(scope *model.Scope, x, keyMask *Node, width float64, c Config) (out, weights *Node) {
	att, weights := euclideanAttention(scope.In("attention"), x, x, x, keyMask,
		EuclideanAttentionOptions{Heads: c.Heads, Width: width, Mask: c.Mask, Dropout: c.Dropout})
	return residualFFN(scope, x, att, 4*x.Shape().Dim(-1), c.Dropout), weights
}

// residualFFN is the Transformer wrapper shared by every block of the code: LN(x + dropout(att)), then
// LN(h + dropout(FFN(h))).
func residualFFN(scope *model.Scope, x, att *Node, hidden int, rate float64) *Node {
	h := layerNorm(scope.In("norm1"), Add(x, dropout(scope, att, rate)))
	ffn := FeedForward(scope.In("ffn"), h, hidden, rate)
	return layerNorm(scope.In("norm2"), Add(h, dropout(scope, ffn, rate)))
}

// CrossAttentionBlock is the code's CrossAttention of MAIM (HLFormer Eq. 17, CA + FC; docs/official-code.md §3.2):
// query [N, Lq, d] attends (no Gaussian mask) to x [N, L, d] under keyMask, then the block wrapper with
// an FFN(d → d → d). Returns [N, Lq, d].
func CrossAttentionBlock(scope *model.Scope, query, x, keyMask *Node, c Config) *Node {
	att := EuclideanAttention(scope.In("attention"), query, x, x, keyMask,
		EuclideanAttentionOptions{Heads: c.Heads, Dropout: c.Dropout})
	return residualFFN(scope, query, att, query.Shape().Dim(-1), c.Dropout)
}

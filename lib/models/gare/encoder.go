package gare

import (
	"math"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
)

// quickGELUScale is CLIP's QuickGELU constant: x·σ(1.702·x).
const quickGELUScale = 1.702

// EncodeText maps given text features x [..., TextInputDim] (the [CLS]/EOT embedding t_i, or
// word features) to the shared space [..., D]: the learned projection when the widths differ, the
// identity otherwise (CLIP features, docs/official-code.md §4.1).
func EncodeText(w Weights, x *Node) *Node {
	if w.TextProj != nil {
		return w.TextProj.Apply(x)
	}
	return x
}

// EncodeVideo is the video tower after the frame encoder (docs/official-code.md §4.1, CLIP4Clip "seqTransf"):
// frames [B, F, VideoInputDim] (projected to D when needed), plus frame position embeddings, through
// the temporal transformer (CLIP residual attention blocks, padding keys masked with −1e6), plus
// the input (residual). mask [B, F] is 1 for real frames. With no temporal layers the frames are
// returned as given (projected).
func EncodeVideo(w Weights, frames, mask *Node) *Node {
	x := frames
	if w.VideoProj != nil {
		x = w.VideoProj.Apply(x)
	}
	if len(w.Temporal) == 0 {
		return x
	}
	original := x
	h := Add(x, InsertAxes(w.FramePositions, 0))
	keyBias := InsertAxes(maskBias(mask, x.DType()), 1, 1) // [B, 1, 1, F]
	for _, layer := range w.Temporal {
		h = temporalBlock(layer, h, keyBias)
	}
	return Add(h, original)
}

// temporalBlock is CLIP's ResidualAttentionBlock: x + MHA(LN1(x)), then x + MLP(LN2(x)) with a
// QuickGELU MLP of width 4·D.
func temporalBlock(l TemporalLayer, x, keyBias *Node) *Node {
	b, f, d := x.Shape().Dimensions[0], x.Shape().Dimensions[1], x.Shape().Dimensions[2]
	nh := l.Heads
	hd := d / nh
	h := l.LN1.Apply(x)
	split := func(y *Node) *Node { return Reshape(y, b, f, nh, hd) }
	q, k, v := split(l.Q.Apply(h)), split(l.K.Apply(h)), split(l.V.Apply(h))
	logits := MulScalar(Einsum("bqhd,bkhd->bhqk", q, k), 1/math.Sqrt(float64(hd)))
	attn := Softmax(Add(logits, keyBias), -1)
	out := Reshape(Einsum("bhqk,bkhd->bqhd", attn, v), b, f, d)
	x = Add(x, l.O.Apply(out))
	m := l.FC.Apply(l.LN2.Apply(x))
	m = Mul(m, Logistic(MulScalar(m, quickGELUScale)))
	return Add(x, l.Proj.Apply(m))
}

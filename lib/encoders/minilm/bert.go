package minilm

import (
	"fmt"
	"math"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/nn"
)

// Numerical constants of sentence-transformers' pooling and normalisation (lib/encoders/minilm/README.md):
const (
	// poolCountFloor is the floor of the token count in mean pooling: models.Pooling divides the
	// masked sum by torch.clamp(mask.sum(1), min=1e-9) (only a sequence without tokens reaches it;
	// Encode never makes one: [CLS] and [SEP] are always there).
	poolCountFloor = 1e-9
	// normFloor is the floor of the norm in the final L2 normalisation: models.Normalize calls
	// torch.nn.functional.normalize(p=2, dim=1), whose default eps is 1e-12.
	normFloor = 1e-12
)

// weight returns the node of the safetensors tensor name in the graph being built.
func weight(store *model.Store, g *Graph, name string) *Node {
	v := store.GetVariable(variablePath(name))
	if v == nil {
		panic(fmt.Sprintf("minilm: variable %q not loaded", name))
	}
	return v.NodeValue(g)
}

// linear is torch's nn.Linear with Hugging Face's weight name: x·Wᵀ + b, W [out, in].
func linear(store *model.Store, x *Node, name string) *Node {
	g := x.Graph()
	return nn.Dense(x, weight(store, g, name+".weight"), weight(store, g, name+".bias"), compute.DenseLayoutOutputsInput)
}

// layerNorm is torch's nn.LayerNorm over the last axis with Hugging Face's weight name.
func layerNorm(store *model.Store, x *Node, name string, eps float64) *Node {
	g := x.Graph()
	return nn.LayerNorm(x, []int{-1}, eps, weight(store, g, name+".weight"), weight(store, g, name+".bias"), nil)
}

// encoderGraph is BertModel's forward pass in inference (Devlin et al. 2019; Hugging Face
// modeling_bert.py; lib/encoders/minilm/README.md): ids [B, L] int32 token ids, lengths [B] int32 (tokens
// 0…lengths[b]−1 of row b are real, the rest padding). It returns
//
//	hidden    [B, L, H]  the last layer's hidden states (padding rows hold values that mean nothing)
//	sentences [B, H]     mean of hidden over the real tokens, L2-normalised (sentence-transformers'
//	                     Pooling(mean) then Normalize)
//
// Embeddings: word + position (0…L−1) + token type 0, LayerNorm. Each of the NumHiddenLayers
// post-LN layers: x ← LN(x + Attention(x)), x ← LN(x + W₂·GELU(W₁·x)), GELU exact (erf).
// Attention: heads of size H/heads, scores q·kᵀ/√(H/heads), the padded keys masked out of the
// softmax (Hugging Face adds the float32 minimum to their scores, which gives them weight 0 too).
func encoderGraph(store *model.Store, c Config, ids, lengths *Node) (hidden, sentences *Node) {
	g := ids.Graph()
	batch, length := ids.Shape().Dim(0), ids.Shape().Dim(1)
	h, heads := c.HiddenSize, c.NumAttentionHeads
	headDim := h / heads
	if length > c.MaxPositionEmbeddings {
		panic(fmt.Sprintf("minilm: sequence length %d exceeds the %d position embeddings", length, c.MaxPositionEmbeddings))
	}

	// mask[b, k]: token k of row b is real.
	positions := Iota(g, shapes.Make(dtypes.Int32, batch, length), 1)
	mask := LessThan(positions, InsertAxes(lengths, -1)) // [B, L]

	words := Gather(weight(store, g, "embeddings.word_embeddings.weight"), InsertAxes(ids, -1)) // [B, L, H]
	pos := Slice(weight(store, g, "embeddings.position_embeddings.weight"), AxisRange(0, length))
	tokenType := Slice(weight(store, g, "embeddings.token_type_embeddings.weight"), AxisRange(0, 1)) // type 0
	x := Add(Add(words, InsertAxes(pos, 0)), InsertAxes(tokenType, 0))
	x = layerNorm(store, x, "embeddings.LayerNorm", c.LayerNormEps)

	// scoreMask [B, heads, Lq, Lk]: key k of row b is real.
	scoreMask := BroadcastToDims(Reshape(mask, batch, 1, 1, length), batch, heads, length, length)
	scale := 1 / math.Sqrt(float64(headDim))
	for l := range c.NumHiddenLayers {
		p := fmt.Sprintf("encoder.layer.%d.", l)
		split := func(t *Node) *Node { return Reshape(t, batch, length, heads, headDim) }
		q := split(linear(store, x, p+"attention.self.query"))
		k := split(linear(store, x, p+"attention.self.key"))
		v := split(linear(store, x, p+"attention.self.value"))
		scores := MulScalar(Einsum("bqhd,bkhd->bhqk", q, k), scale)
		probs := MaskedSoftmax(scores, scoreMask, -1)
		ctx := Reshape(Einsum("bhqk,bkhd->bqhd", probs, v), batch, length, h)
		x = layerNorm(store, Add(linear(store, ctx, p+"attention.output.dense"), x), p+"attention.output.LayerNorm", c.LayerNormEps)
		inter := activation.Gelu(linear(store, x, p+"intermediate.dense"))
		x = layerNorm(store, Add(linear(store, inter, p+"output.dense"), x), p+"output.LayerNorm", c.LayerNormEps)
	}
	hidden = x

	// Mean pooling over the real tokens, then L2 normalisation.
	maskF := InsertAxes(ConvertDType(mask, x.DType()), -1)                         // [B, L, 1]
	sum := ReduceSum(Mul(x, maskF), 1)                                             // [B, H]
	count := MaxScalar(ReduceSum(maskF, 1), poolCountFloor)                        // [B, 1]
	mean := Div(sum, count)                                                        // [B, H]
	norm := MaxScalar(Sqrt(ReduceAndKeep(Square(mean), ReduceSum, -1)), normFloor) // [B, 1]
	return hidden, Div(mean, norm)
}

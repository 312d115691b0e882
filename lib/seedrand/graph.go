package seedrand

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train/optimizer"
)

// The draws made inside a training graph (dropout masks, sampled negatives) come from a counter-based
// generator computed with uint32 integer ops (Xor, Add, Mul, logical shifts), which every backend
// evaluates identically: element i of a draw is Hash(k0, k1, c + i), c the state's counter. A state
// is a Uint64 [3] node laid out as GoMLX's RNG state (graph.RNGStateShape), read as [k0, k1, c]
// (the low 32 bits of each), so a function written for graph.RandomUniform takes it unchanged.

// fmix is murmur3's 32-bit finalizer, a bijection that mixes every input bit into every output bit.
func fmix(x uint32) uint32 {
	x ^= x >> 16
	x *= 0x85ebca6b
	x ^= x >> 13
	x *= 0xc2b2ae35
	x ^= x >> 16
	return x
}

// Hash is the generator's value for keys k0, k1 and counter c: fmix(fmix(c ^ k0) + k1), on the host.
func Hash(k0, k1, c uint32) uint32 { return fmix(fmix(c^k0) + k1) }

// UniformFromBits maps a hash to [0, 1) as Uniform does: its top 24 bits over 2^24.
func UniformFromBits(h uint32) float32 { return float32(h>>8) / (1 << 24) }

func fmixNode(x *Node) *Node {
	x = BitwiseXor(x, BitwiseShiftRightLogicalScalar(x, 16))
	x = MulScalar(x, uint32(0x85ebca6b))
	x = BitwiseXor(x, BitwiseShiftRightLogicalScalar(x, 13))
	x = MulScalar(x, uint32(0xc2b2ae35))
	return BitwiseXor(x, BitwiseShiftRightLogicalScalar(x, 16))
}

func u32(x *Node) *Node { return ConvertDType(x, dtypes.Uint32) }

// Bits draws Uint32 [shape] from state: element i (row-major) is Hash(k0, k1, c + offset + i), with
// offset a scalar integer node (nil: 0). It returns the state with its counter advanced by the
// shape's size.
func Bits(state, offset *Node, shape shapes.Shape) (newState, bits *Node) {
	if !state.Shape().Equal(RNGStateShape) {
		panic(fmt.Sprintf("seedrand: a generator state is %s, got %s", RNGStateShape, state.Shape()))
	}
	g := state.Graph()
	k0, k1 := u32(Slice(state, AxisElem(0))), u32(Slice(state, AxisElem(1)))
	c := u32(Slice(state, AxisElem(2)))
	if offset != nil {
		c = Add(c, u32(Reshape(offset)))
	}
	counters := Add(Iota(g, shapes.Make(dtypes.Uint32, shape.Size()), 0), c)
	bits = fmixNode(Add(fmixNode(BitwiseXor(counters, k0)), k1))
	bits = Reshape(bits, shape.Dimensions...)
	next := Add(Slice(state, AxisElem(2)), Const(g, []uint64{uint64(shape.Size())}))
	newState = Concatenate([]*Node{Slice(state, AxisRange(0, 2)), next}, 0)
	return newState, bits
}

// Uniform is graph.RandomUniform with the counter-based generator: values in [0, 1) of shape
// (float dtype) and the advanced state.
func Uniform(state *Node, shape shapes.Shape) (newState, values *Node) {
	newState, bits := Bits(state, nil, shape)
	values = MulScalar(ConvertDType(BitwiseShiftRightLogicalScalar(bits, 8), shape.DType), 1.0/(1<<24))
	return newState, values
}

// SiteKey is the host half of a draw's key: sha256 of the seed and the name of the place that draws
// (a scope path), as two uint32.
func SiteKey(seed int64, site string) (uint32, uint32) {
	h := sha256.New()
	binary.Write(h, binary.LittleEndian, seed)
	h.Write([]byte(site))
	sum := h.Sum(nil)
	return binary.LittleEndian.Uint32(sum[0:4]), binary.LittleEndian.Uint32(sum[4:8])
}

// StepState is the generator state of a draw at site in a training graph: k0 from the seed and site
// (SiteKey, k1 ^ the global step), counter 0. The global step is the store's
// (optimizer.GetGlobalStepVar) as the graph reads it before the optimizer's update, so every step
// draws anew and a resumed run draws what an uninterrupted one does.
func StepState(scope *model.Scope, g *Graph, site string) *Node {
	k0, k1 := SiteKey(Seed(scope), site)
	step := u32(optimizer.GetGlobalStepVar(scope).NodeValue(g))
	k1node := BitwiseXor(Const(g, k1), step)
	parts := []*Node{Const(g, []uint64{uint64(k0)}), Reshape(ConvertDType(k1node, dtypes.Uint64), 1), Const(g, []uint64{0})}
	return Concatenate(parts, 0)
}

const (
	// exampleOffsetParam holds a graph's examplesBlock (SetExampleBlock).
	exampleOffsetParam = "seedrand_example_block"
	// drawsParam counts the dropout draws of each scope in a graph.
	drawsParam = "seedrand_draws"
)

type examplesBlock struct {
	first *Node // scalar: the index of the block's first example in the batch
	rows  int   // examples in the block
}

// SetExampleBlock says that graph g computes rows consecutive examples of the batch, the first at
// index first (a scalar integer node): Dropout then draws each example's mask as the graph of the
// whole batch would, so a step that runs the batch a block at a time (HLFormer's chunked step) draws
// the masks of the single graph.
func SetExampleBlock(scope *model.Scope, g *Graph, first *Node, rows int) {
	scope.Store().RootScope().SetGraphParam(g, exampleOffsetParam, examplesBlock{first: first, rows: rows})
}

// Dropout is torch's nn.Dropout(rate) in a training graph: x where a uniform draw is ≥ rate, scaled by
// 1/(1 − rate), else 0. The draw of element i of x is keyed by the seed, scope's path, the count of
// Dropout calls on scope in the graph so far, the global step (StepState) and i's index in the whole
// batch (SetExampleBlock; x's leading axis, or its outermost merged axes, are the examples).
func Dropout(scope *model.Scope, x *Node, rate float64) *Node {
	if rate <= 0 {
		return x
	}
	g := x.Graph()
	n := model.GetGraphParamOr(scope, g, drawsParam, 0)
	scope.SetGraphParam(g, drawsParam, n+1)
	state := StepState(scope, g, fmt.Sprintf("%s#dropout%d", scope.Scope(), n))
	var offset *Node
	if v, found := scope.Store().RootScope().GetGraphParam(g, exampleOffsetParam); found {
		b := v.(examplesBlock)
		perExample := x.Shape().Size() / b.rows
		offset = MulScalar(u32(b.first), uint32(perExample))
	}
	_, bits := Bits(state, offset, x.Shape())
	u := MulScalar(ConvertDType(BitwiseShiftRightLogicalScalar(bits, 8), x.DType()), 1.0/(1<<24))
	keep := GreaterOrEqual(u, Scalar(g, x.DType(), rate))
	return Where(keep, DivScalar(x, 1-rate), ZerosLike(x))
}

package seedrand

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// NewStore returns a store whose variables draw their initial values from seed (Normal, He). Its
// random state, which what still samples in graph uses, is seeded too (model.Store.SetRNGStateFromSeed).
func NewStore(seed int64) (*model.Store, error) {
	store := model.NewStore()
	store.SetParam(model.ParamInitialSeed, seed)
	return store, store.SetRNGStateFromSeed(seed)
}

// Seed is the seed NewStore gave the store of scope, 0 for another store.
func Seed(scope *model.Scope) int64 {
	if v, ok := scope.GetParam(model.ParamInitialSeed); ok {
		if s, ok := v.(int64); ok {
			return s
		}
	}
	return 0
}

// Stream is the generator of one variable: ChaCha8 keyed by sha256 of the seed, the scope path and
// the shape's dimensions.
func Stream(seed int64, path string, dims ...int) *rand.Rand {
	h := sha256.New()
	binary.Write(h, binary.LittleEndian, seed)
	h.Write([]byte(path))
	for _, d := range dims {
		binary.Write(h, binary.LittleEndian, int64(d))
	}
	var key [32]byte
	copy(key[:], h.Sum(nil))
	return rand.New(rand.NewChaCha8(key))
}

// NormalTensor is a tensor of shape (float32 or float64) of N(0, std²) draws from rng, each drawn in
// float64 (rand.Rand.NormFloat64) and rounded to the dtype, in row-major order.
func NormalTensor(rng *rand.Rand, std float64, shape shapes.Shape) *tensors.Tensor {
	t := tensors.FromShape(shape)
	switch shape.DType {
	case dtypes.Float32:
		tensors.MustMutableFlatData(t, func(flat []float32) {
			for i := range flat {
				flat[i] = float32(std * rng.NormFloat64())
			}
		})
	case dtypes.Float64:
		tensors.MustMutableFlatData(t, func(flat []float64) {
			for i := range flat {
				flat[i] = std * rng.NormFloat64()
			}
		})
	default:
		panic(fmt.Sprintf("seedrand: normal draws of dtype %s: only float32 and float64", shape.DType))
	}
	return t
}

// Normal returns scope with an initializer of N(0, std²) draws keyed by the seed, scope's path and
// the variable's shape: the random variables under one Normal scope must differ in shape.
func Normal(scope *model.Scope, std float64) *model.Scope {
	seed, path := Seed(scope), scope.Scope()
	return scope.WithInitializer(func(g *graph.Graph, shape shapes.Shape) *graph.Node {
		return graph.Const(g, NormalTensor(Stream(seed, path, shape.Dimensions...), std, shape))
	})
}

// He returns scope with GoMLX's default initializer (model.DefaultInitializer, He et al.: zeros for
// rank ≤ 1 and for non-float variables, N(0, 2/fan_in) with fan_in the first axis of a matrix or the
// product of all but the last axis of a kernel) drawn as Normal draws: keyed by the seed, scope's
// path and the shape. layers.Dense and DenseWithBias under it create the same weights on every backend.
func He(scope *model.Scope) *model.Scope {
	seed, path := Seed(scope), scope.Scope()
	return scope.WithInitializer(func(g *graph.Graph, shape shapes.Shape) *graph.Node {
		if !shape.DType.IsFloat() || shape.Rank() <= 1 {
			return graph.Zeros(g, shape)
		}
		fanIn := shape.Dimensions[0]
		if shape.Rank() > 2 {
			fanIn = shape.Size() / shape.Dimensions[shape.Rank()-1]
		}
		std := math.Sqrt(2 / max(1, float64(fanIn)))
		return graph.Const(g, NormalTensor(Stream(seed, path, shape.Dimensions...), std, shape))
	})
}

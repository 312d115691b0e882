package hlformer

import (
	"github.com/geoalign/geoalign/lib/seedrand"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
	"github.com/gomlx/gomlx/ml/layers/norm"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/initializer"
	"github.com/gomlx/gomlx/ml/nn"
)

// Building blocks shared by the query, clip and frame encoders (HLF src/Models/HLFormer/model_components.py;
// docs/official-code.md §3.2). Every function takes the scope that owns its variables and returns a *Node, GoMLX style.

// linear is torch's nn.Linear as HLFormer initialises it: y = x·W (+ b) over the last axis, W [in, out]
// drawn from N(0, InitStd²) (lib/seedrand: from the seed and scope alone), b = 0. It creates "weights" (and "biases") in scope.
func linear(scope *model.Scope, x *Node, out int, bias bool) *Node {
	in := x.Shape().Dim(-1)
	w := seedrand.Normal(scope, InitStd).VariableWithShape("weights", shapes.Make(x.DType(), in, out)).NodeValue(x.Graph())
	var b *Node
	if bias {
		b = scope.WithInitializer(initializer.Zero).VariableWithShape("biases", shapes.Make(x.DType(), out)).NodeValue(x.Graph())
	}
	return nn.Dense(x, w, b, compute.DenseLayoutInputOutputs)
}

// layerNorm is torch's nn.LayerNorm over the last axis (gain 1, offset 0, eps LayerNormEpsilon).
func layerNorm(scope *model.Scope, x *Node) *Node {
	return norm.LayerNorm(scope, x, -1).Epsilon(LayerNormEpsilon).Done()
}

// inferenceParam is a graph parameter that marks a graph as inference although the store says it is
// training. The Evaluator sets both: the Go backend embeds the variables of non-training graphs as
// constants (PreferConstantsForVariables), which would freeze the weights of an executable reused across
// epochs, so evaluation graphs are built as "training" graphs with dropout and in-place clamps off.
const inferenceParam = "hlformer_inference"

// trainingPass reports whether g is a training pass: dropout and the in-place clamps are active.
func trainingPass(scope *model.Scope, g *Graph) bool {
	return scope.IsTraining(g) && !model.GetGraphParamOr(scope, g, inferenceParam, false)
}

// dropout is torch's nn.Dropout(rate): active only in a training pass.
func dropout(scope *model.Scope, x *Node, rate float64) *Node {
	if rate <= 0 || !trainingPass(scope, x.Graph()) {
		return x
	}
	return seedrand.Dropout(scope, x, rate)
}

// torchRelu is torch's ReLU with torch's derivative at 0: x where x > 0, else 0, with ∂/∂x = 1 where x > 0
// and 0 elsewhere (ReLU'(0) = 0, as threshold_backward). GoMLX's activation.Relu has no single
// derivative at 0: the pure-Go backend runs it as a fused op whose gradient is 0 at x = 0, XLA as the
// decomposed Max(x, 0), whose gradient takes the tie, 1 (found by lib/parity's backend comparison).
// Exact zeros are not rare here: a padded frame (all-zero features) gives LayerNorm(0)·W + b = 0
// before the first update, so the float64 gradients of the two backends differed by 1e-7 relative.
func torchRelu(x *Node) *Node {
	zero := ZerosLike(x)
	return Where(GreaterThan(x, zero), x, zero)
}

// LinearLayer is the code's LinearLayer (docs/official-code.md §3.2): LayerNorm(in) → Dropout → Linear(in, out) → ReLU,
// the input projection of every branch and the in/out projections of the Lorentz attention.
func LinearLayer(scope *model.Scope, x *Node, out int, dropoutRate float64) *Node {
	x = layerNorm(scope.In("norm"), x)
	x = dropout(scope, x, dropoutRate)
	return torchRelu(linear(scope.In("linear"), x, out, true))
}

// PositionalEncoding is the code's TrainablePositionalEncoding (docs/official-code.md §3.2): x [N, L, d] plus a learned
// embedding of the positions 0…L−1 (table [maxLen, d], N(0, InitStd²)), then LayerNorm and Dropout.
func PositionalEncoding(scope *model.Scope, x *Node, maxLen int, dropoutRate float64) *Node {
	length, d := x.Shape().Dim(1), x.Shape().Dim(2)
	if length > maxLen {
		panicf("PositionalEncoding: sequence length %d exceeds the %d embedded positions", length, maxLen)
	}
	table := seedrand.Normal(scope, InitStd).VariableWithShape("embeddings", shapes.Make(x.DType(), maxLen, d)).NodeValue(x.Graph())
	positions := Slice(table, AxisRange(0, length)) // [L, d]
	x = Add(x, InsertAxes(positions, 0))
	return dropout(scope, layerNorm(scope.In("norm"), x), dropoutRate)
}

// FeedForward is the code's FeedForward(d, hidden): Linear(d, hidden) → ReLU → Dropout → Linear(hidden, d).
func FeedForward(scope *model.Scope, x *Node, hidden int, dropoutRate float64) *Node {
	d := x.Shape().Dim(-1)
	h := torchRelu(linear(scope.In("layer1"), x, hidden, true))
	return linear(scope.In("layer2"), dropout(scope, h, dropoutRate), d, true)
}

// scalarVariable is a learnable scalar of dtype initialised to init.
func scalarVariable(scope *model.Scope, g *Graph, dtype dtypes.DType, name string, init float64) *Node {
	constant := func(g *Graph, shape shapes.Shape) *Node { return Scalar(g, shape.DType, init) }
	return scope.WithInitializer(constant).VariableWithShape(name, shapes.Make(dtype)).NodeValue(g)
}

// clampedScalar is a learnable scalar that the official code clamps in place before every forward pass
// (`p.data = clamp(p.data, lo, hi)`; HLFormer's scale_alpha, video_alpha, textual_alpha and curv, docs/official-code.md
// §3.2). The returned node is the clamped value; in a training graph it is also written back as the
// variable's value, so the optimizer differentiates with respect to it and steps from it — exactly the
// official sequence clamp → forward → backward → step. lo or hi may be ±Inf.
func clampedScalar(scope *model.Scope, g *Graph, dtype dtypes.DType, name string, init, lo, hi float64) *Node {
	x := scalarVariable(scope, g, dtype, name, init)
	v := scope.GetVariable(name)
	clamped := MinScalar(MaxScalar(x, lo), hi)
	if trainingPass(scope, g) {
		v.SetNodeValue(clamped)
	}
	return clamped
}

package train

import (
	"fmt"
	"strings"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/initializer"
	"github.com/gomlx/gomlx/ml/train/optimizer"
)

// ClipEpsilon is added to a gradient norm before dividing by it, as torch.nn.utils.clip_grad_norm_
// does (1e-6), so that clipping a zero gradient is well defined.
const ClipEpsilon = 1e-6

// Adam is the Adam family used by the papers' official code. Build it with BertAdam or AdamW
// and adjust fields before the first step; it implements GoMLX's optimizer.Interface.
//
// One step, for each trainable variable p with gradient g (t = steps taken so far, from 0):
//
//	g ← g · min(1, MaxGlobalGradNorm / (‖all g‖ + 1e-6))      if MaxGlobalGradNorm > 0
//	g ← g · min(1, MaxTensorGradNorm / (‖g‖ + 1e-6))          if MaxTensorGradNorm > 0 (BertAdam)
//	m ← β1 m + (1−β1) g;  v ← β2 v + (1−β2) g²
//	u ← m̂ / (sqrt(v̂) + ε)   with m̂, v̂ bias-corrected only if BiasCorrection
//	u ← u + WeightDecay · p  unless NoDecay(path)             (decoupled, scaled by the lr below)
//	p ← p − LearningRate · LRMultiplier(path) · Schedule(t / TotalSteps) · u
type Adam struct {
	LearningRate      float64
	Beta1, Beta2      float64
	Epsilon           float64
	WeightDecay       float64
	BiasCorrection    bool
	MaxTensorGradNorm float64 // 0: off
	MaxGlobalGradNorm float64 // 0: off
	Schedule          Schedule
	TotalSteps        int
	// NoDecay reports variables exempt from weight decay (default: DefaultNoDecay).
	NoDecay func(path string) bool
	// LRMultiplier scales the learning rate per variable (nil: 1 for all), e.g. GARE's 1e-3
	// for the pretrained backbone.
	LRMultiplier func(path string) float64
	// ScopeName holds the optimizer's own variables (moments, step counter).
	ScopeName string
}

// DefaultNoDecay exempts biases and normalisation parameters, as the official codes' parameter
// groups do ("bias", "LayerNorm.bias", "LayerNorm.weight").
func DefaultNoDecay(path string) bool {
	p := strings.ToLower(path)
	return strings.Contains(p, "bias") || strings.Contains(p, "norm") || strings.HasSuffix(p, "/gain") ||
		strings.HasSuffix(p, "/offset") || strings.HasSuffix(p, "/gamma") || strings.HasSuffix(p, "/beta")
}

// BertAdam is HLFormer's and GARE's optimizer: β = (0.9, 0.999), ε = 1e-6, no bias
// correction, weight decay 0.01 (not on biases/LayerNorm), per-tensor gradient-norm clipping at
// 1.0, warmup_linear with warm-up 1% (docs/official-code.md §3.5). GARE changes betas to (0.9, 0.98), weight
// decay to 0.2, the schedule to WarmupCosine{0.1} and adds global clipping at 1.0 (docs/official-code.md §4.4).
func BertAdam(learningRate float64, totalSteps int) *Adam {
	return &Adam{
		LearningRate: learningRate, Beta1: 0.9, Beta2: 0.999, Epsilon: 1e-6, WeightDecay: 0.01,
		MaxTensorGradNorm: 1, Schedule: WarmupLinear{Warmup: 0.01}, TotalSteps: totalSteps,
		NoDecay: DefaultNoDecay, ScopeName: "bertadam",
	}
}

// AdamW is GRAM's optimizer: β = (0.9, 0.98), ε = 1e-8, weight decay 0.01, bias correction,
// warmup_linear with 10% warm-up, gradient clipping disabled (docs/official-code.md §1.5).
func AdamW(learningRate float64, totalSteps int) *Adam {
	return &Adam{
		LearningRate: learningRate, Beta1: 0.9, Beta2: 0.98, Epsilon: 1e-8, WeightDecay: 0.01,
		BiasCorrection: true, Schedule: WarmupLinear{Warmup: 0.1}, TotalSteps: totalSteps,
		NoDecay: DefaultNoDecay, ScopeName: "adamw",
	}
}

// UpdateGraph implements optimizer.Interface.
func (o *Adam) UpdateGraph(scope *model.Scope, g *graph.Graph, loss *graph.Node) {
	if !loss.Shape().IsScalar() {
		panic(fmt.Sprintf("train.Adam: the loss must be a scalar, got %s", loss.Shape()))
	}
	vars := TrainableIn(scope.IterVariables(), g)
	if len(vars) == 0 {
		panic("train.Adam: no trainable variables are used by the loss")
	}
	grads := graph.Gradient(loss, VariableNodes(vars, g)...)
	o.apply(scope, g, vars, grads)
}

// ApplyGradients adds to g the update of vars by their gradients grads (same order): UpdateGraph for a
// step that computes its gradients itself, e.g. a block of the batch at a time (lib/models/gare).
// Global clipping, per-tensor clipping, weight decay and the schedule apply as in UpdateGraph.
func (o *Adam) ApplyGradients(scope *model.Scope, g *graph.Graph, vars []*model.Variable, grads []*graph.Node) {
	if len(vars) != len(grads) || len(vars) == 0 {
		panic(fmt.Sprintf("train.Adam.ApplyGradients: %d variables and %d gradients (need the same, ≥ 1)", len(vars), len(grads)))
	}
	for i, v := range vars {
		if !grads[i].Shape().EqualDimensions(v.Shape()) {
			panic(fmt.Sprintf("train.Adam.ApplyGradients: gradient of %s has shape %s, the variable %s", v.Path(), grads[i].Shape(), v.Shape()))
		}
	}
	o.apply(scope, g, vars, grads)
}

func (o *Adam) apply(scope *model.Scope, g *graph.Graph, vars []*model.Variable, grads []*graph.Node) {
	dtype := dtypes.Float32
	if len(vars) > 0 && vars[0].DType() == dtypes.Float64 {
		dtype = dtypes.Float64
	}
	optScope := scope.Store().Scope("/" + optimizer.Scope + "/" + o.ScopeName)
	// t counts the steps already taken (0 on the first step): the schedule sees t/T as in
	// pytorch-pretrained-bert, the bias correction uses t+1.
	stepVar := optScope.WithInitializer(initializer.Zero).VariableWithValue("step", int64(0)).SetTrainable(false)
	step := stepVar.NodeValue(g)
	stepVar.SetNodeValue(graph.AddScalar(step, 1))
	_ = optimizer.IncrementGlobalStep(g, dtype)
	t := graph.ConvertDType(step, dtype)

	sched := o.Schedule
	if sched == nil {
		sched = Constant{}
	}
	total := float64(max(o.TotalSteps, 1))
	lr := graph.MulScalar(sched.Graph(graph.DivScalar(t, total)), o.LearningRate)

	for i := range grads {
		if grads[i].DType() != dtype {
			grads[i] = graph.ConvertDType(grads[i], dtype)
		}
	}
	if o.MaxGlobalGradNorm > 0 {
		sq := graph.ScalarZero(g, dtype)
		for _, gr := range grads {
			sq = graph.Add(sq, graph.ReduceAllSum(graph.Square(gr)))
		}
		factor := clipFactor(graph.Sqrt(sq), o.MaxGlobalGradNorm)
		for i := range grads {
			grads[i] = graph.Mul(grads[i], factor)
		}
	}
	beta1 := graph.Scalar(g, dtype, o.Beta1)
	beta2 := graph.Scalar(g, dtype, o.Beta2)
	tNext := graph.AddScalar(t, 1)
	mScope := optScope.In("m").WithInitializer(initializer.Zero)
	vScope := optScope.In("v").WithInitializer(initializer.Zero)
	for i, v := range vars {
		gr := grads[i]
		if o.MaxTensorGradNorm > 0 {
			gr = graph.Mul(gr, clipFactor(graph.Sqrt(graph.ReduceAllSum(graph.Square(gr))), o.MaxTensorGradNorm))
		}
		mVar := mScope.VariableWithShape(momentName(v), v.Shape()).SetTrainable(false)
		vVar := vScope.VariableWithShape(momentName(v), v.Shape()).SetTrainable(false)
		m := graph.Add(graph.Mul(beta1, mVar.NodeValue(g)), graph.MulScalar(gr, 1-o.Beta1))
		s := graph.Add(graph.Mul(beta2, vVar.NodeValue(g)), graph.MulScalar(graph.Square(gr), 1-o.Beta2))
		mVar.SetNodeValue(m)
		vVar.SetNodeValue(s)
		if o.BiasCorrection {
			m = graph.Div(m, graph.OneMinus(graph.Pow(beta1, tNext)))
			s = graph.Div(s, graph.OneMinus(graph.Pow(beta2, tNext)))
		}
		p := v.NodeValue(g)
		update := graph.Div(m, graph.AddScalar(graph.Sqrt(s), o.Epsilon))
		noDecay := o.NoDecay
		if noDecay == nil {
			noDecay = DefaultNoDecay
		}
		if o.WeightDecay > 0 && !noDecay(v.Path()) {
			update = graph.Add(update, graph.MulScalar(p, o.WeightDecay))
		}
		varLR := lr
		if o.LRMultiplier != nil {
			varLR = graph.MulScalar(lr, o.LRMultiplier(v.Path()))
		}
		v.SetNodeValue(graph.Sub(p, graph.Mul(varLR, update)))
	}
}

// clipFactor is min(1, maxNorm / (norm + ClipEpsilon)), torch's clip_grad_norm_ coefficient.
func clipFactor(norm *graph.Node, maxNorm float64) *graph.Node {
	return graph.MinScalar(graph.Div(graph.ConstAs(norm, maxNorm), graph.AddScalar(norm, ClipEpsilon)), 1)
}

func momentName(v *model.Variable) string {
	return strings.ReplaceAll(strings.TrimPrefix(v.Path(), "/"), "/", "|")
}

// Clear implements optimizer.Interface: it deletes the optimizer's moments and step counter.
func (o *Adam) Clear(scope *model.Scope) error {
	return scope.Store().DeleteVariablesInScope("/" + optimizer.Scope + "/" + o.ScopeName)
}

var _ optimizer.Interface = (*Adam)(nil)

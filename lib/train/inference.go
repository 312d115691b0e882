package train

import (
	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
)

// inferenceParam is the graph parameter MarkInference sets.
const inferenceParam = "/geoalign_inference"

// MarkInference marks g, being built by a model.Exec, as an inference graph whose variables stay
// graph parameters. Call it first in the graph function of an executable that is compiled once
// and run again after the weights change (evaluation during training, a scorer kept across
// epochs), or use NewInferenceExec.
//
// Why: in a graph that is not marked as training, GoMLX embeds every variable as a constant when
// the backend prefers constants for variables (Capabilities().PreferConstantsForVariables, as the
// Go backend does); the executable then keeps the weights of the moment it was compiled and every
// later call computes with stale weights, silently. So the graph is marked as training
// (Store.SetTraining), which keeps variables as parameters, and as inference through a graph
// parameter: model code must switch dropout and other training-only behaviour with TrainingPass,
// not Store.IsTraining.
func MarkInference(scope *model.Scope, g *graph.Graph) {
	scope.Store().SetTraining(g, true)
	model.SetGraphParam(g, inferenceParam, true)
}

// TrainingPass reports whether g is a training pass: training mode and not marked by
// MarkInference. Dropout and other training-only behaviour must test this.
func TrainingPass(scope *model.Scope, g *graph.Graph) bool {
	inference, _ := model.GetGraphParam(g, inferenceParam)
	return scope.Store().IsTraining(g) && inference != true
}

// NewInferenceExec is model.NewExec for an inference function over a slice of (at least one)
// inputs, with the graph marked by MarkInference before fn builds it (see there why).
func NewInferenceExec(backend compute.Backend, store *model.Store, fn func(scope *model.Scope, inputs []*graph.Node) []*graph.Node) (*model.Exec, error) {
	return model.NewExec(backend, store, func(scope *model.Scope, inputs []*graph.Node) []*graph.Node {
		MarkInference(scope, inputs[0].Graph())
		return fn(scope, inputs)
	})
}

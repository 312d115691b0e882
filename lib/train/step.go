package train

import (
	"fmt"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train/optimizer"
)

// LossFn builds a model's training objective from a batch: it returns the scalar loss first,
// followed by any auxiliary outputs the caller wants back (e.g. the learned α, a temperature).
type LossFn func(scope *model.Scope, inputs []*graph.Node) []*graph.Node

// Step is a compiled training step: loss, gradients and optimizer update in one executable per
// input shape (GoMLX caches them, so fixed batch shapes compile once).
type Step struct {
	store *model.Store
	exec  *model.Exec
}

// NewStep compiles lazily (at the first Run) the step of fn under opt on the store's variables.
// Dropout and other training-only behaviour see Store.IsTraining(g) = true.
func NewStep(backend compute.Backend, store *model.Store, opt optimizer.Interface, fn LossFn) (*Step, error) {
	exec, err := model.NewExec(backend, store, func(scope *model.Scope, inputs []*graph.Node) []*graph.Node {
		g := inputs[0].Graph()
		store.SetTraining(g, true)
		outs := fn(scope, inputs)
		if len(outs) == 0 || !outs[0].Shape().IsScalar() {
			panic("train.Step: the loss function must return the scalar loss first")
		}
		opt.UpdateGraph(scope, g, outs[0])
		return outs
	})
	if err != nil {
		return nil, fmt.Errorf("train: building step: %w", err)
	}
	return &Step{store: store, exec: exec}, nil
}

// Run executes one step on a batch and returns the loss and the auxiliary outputs.
func (s *Step) Run(inputs ...any) ([]*tensors.Tensor, error) {
	return s.exec.Exec(inputs...)
}

// GlobalStep is the number of optimizer steps the store has taken (0 for a fresh model).
func GlobalStep(store *model.Store) int64 { return optimizer.GetGlobalStep(store) }

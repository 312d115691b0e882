package nb

import (
	"github.com/geoalign/geoalign/lib/backend"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// Exec builds fn on the variables of a model's store and runs it once on inputs (tensors or Go
// values, one per graph input): a look at any intermediate tensor of a model (an embedding, a
// volume matrix, a loss term) for a cell. The graph is built in GoMLX's default inference mode
// (no dropout); a variable fn creates is created in the store, initialised as training would.
//
//	out := nb.Exec(store, func(scope *model.Scope, x []*graph.Node) []*graph.Node {
//		_, head := gram.Encode(scope, cfg, 0, x[0])
//		return []*graph.Node{head}
//	}, texts)
func Exec(store *model.Store, fn func(scope *model.Scope, inputs []*graph.Node) []*graph.Node, inputs ...any) []*tensors.Tensor {
	exec := Must1(model.NewExec(backend.MustNew(), store, fn))
	return Must1(exec.Exec(inputs...))
}

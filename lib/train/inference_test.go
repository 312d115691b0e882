package train

import (
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// TestInferenceExecSeesNewWeights compiles an inference executable once, changes the weight, and
// runs it again: it must compute with the new weight (a graph GoMLX builds as inference may embed
// the old one as a constant), and it must not be a training pass.
func TestInferenceExecSeesNewWeights(t *testing.T) {
	store := model.NewStore()
	w := store.RootScope().VariableWithValue("w", []float32{2})
	sawTraining := true
	exec, err := NewInferenceExec(backend.MustNew(), store, func(scope *model.Scope, in []*graph.Node) []*graph.Node {
		sawTraining = TrainingPass(scope, in[0].Graph())
		return []*graph.Node{graph.Mul(in[0], scope.GetVariable("w").NodeValue(in[0].Graph()))}
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, weight := range []float32{2, 5} {
		w.MustSetValue(tensors.FromValue([]float32{weight}))
		out, err := exec.Exec([]float32{3})
		if err != nil {
			t.Fatal(err)
		}
		if got := out[0].Value().([]float32)[0]; got != 3*weight {
			t.Fatalf("weight %v: got %v, want %v", weight, got, 3*weight)
		}
	}
	if sawTraining {
		t.Fatal("an inference graph must not be a training pass")
	}
	var stepTraining bool
	step, err := NewStep(backend.MustNew(), store, AdamW(0.1, 1), func(scope *model.Scope, in []*graph.Node) []*graph.Node {
		stepTraining = TrainingPass(scope, in[0].Graph())
		return []*graph.Node{graph.ReduceAllSum(graph.Mul(in[0], scope.GetVariable("w").NodeValue(in[0].Graph())))}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := step.Run([]float32{1}); err != nil || !stepTraining {
		t.Fatalf("a training step must be a training pass (%v)", err)
	}
}

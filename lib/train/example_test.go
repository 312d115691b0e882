package train_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
)

// A toy model on the loop: fit y = 2x + 1 with a learned line. The model supplies its step (here
// one compiled train.Step), the plan of its epochs and a validation; the loop does the rest —
// epochs, progress, the NaN guard, early stopping on the validation, checkpoints and resume when
// Config.Dir is set, and the history.
func ExampleLoop() {
	line := func(scope *model.Scope, x *graph.Node) *graph.Node {
		g := x.Graph()
		w := scope.VariableWithValue("w", float32(0)).NodeValue(g)
		b := scope.VariableWithValue("b", float32(0)).NodeValue(g)
		return graph.Add(graph.Mul(x, w), b)
	}
	sample := func(n int, rng *rand.Rand) (x, y []float32) {
		for range n {
			xi := float32(rng.NormFloat64())
			x, y = append(x, xi), append(y, 2*xi+1)
		}
		return x, y
	}
	data := rand.New(rand.NewPCG(1, 2))
	x, y := sample(64, data)
	vx, vy := sample(16, data)

	store := model.NewStore()
	step, err := train.NewStep(backend.MustNew(), store, train.AdamW(0.2, 160), func(scope *model.Scope, in []*graph.Node) []*graph.Node {
		return []*graph.Node{graph.ReduceAllMean(graph.Square(graph.Sub(line(scope, in[0]), in[1])))}
	})
	if err != nil {
		panic(err)
	}
	mse, err := train.NewInferenceExec(backend.MustNew(), store, func(scope *model.Scope, in []*graph.Node) []*graph.Node {
		return []*graph.Node{graph.ReduceAllMean(graph.Square(graph.Sub(line(scope, in[0]), in[1])))}
	})
	if err != nil {
		panic(err)
	}
	gather := func(v []float32, idx []int) []float32 {
		out := make([]float32, len(idx))
		for i, j := range idx {
			out[i] = v[j]
		}
		return out
	}
	task := train.Task[[]int]{
		Store: store,
		Plan:  train.Shuffled(len(x), 8),
		Step: func(batch []int) ([]float64, error) {
			outs, err := step.Run(gather(x, batch), gather(y, batch))
			if err != nil {
				return nil, err
			}
			return []float64{float64(outs[0].Value().(float32))}, nil
		},
		Validate: func() (map[string]float64, error) {
			outs, err := mse.Exec(vx, vy)
			if err != nil {
				return nil, err
			}
			return map[string]float64{"mse": float64(outs[0].Value().(float32))}, nil
		},
	}
	loop, err := train.NewLoop(task, train.Config{Epochs: 20, Seed: 1, Metric: "mse", Minimize: true, Patience: 3, Quiet: true})
	if err != nil {
		panic(err)
	}
	res, err := loop.Run()
	if err != nil {
		panic(err)
	}
	w := store.GetVariable("/w").MustValue().Value().(float32)
	b := store.GetVariable("/b").MustValue().Value().(float32)
	fmt.Printf("best validation mse below 1e-4: %v; y = %.2f x + %.2f\n", res.Best.Val["mse"] < 1e-4, w, b)
	// Output:
	// best validation mse below 1e-4: true; y = 2.00 x + 1.00
}

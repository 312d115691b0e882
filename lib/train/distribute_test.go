package train

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
)

// TestDistributedStepEqualsOneDevice trains a contrastive two-tower model (a text and a video
// projection, a symmetric InfoNCE loss over the global batch's similarity matrix: every text against
// every video, so a device needs the other device's half) for several BertAdam steps on one device
// and data-parallel on two, from the same weights on the same global batches. The loss curves and the
// final weights agree to float64 rounding: the two programs are the same computation, partitioned.
// It needs a backend with ≥ 2 devices: GOMLX_BACKEND's when it has them, else XLA on the checkout's
// CPU plugin (4 devices), created here, so that `go test` on the Go backend runs it too.
func TestDistributedStepEqualsOneDevice(t *testing.T) {
	b := backend.MustNew()
	if b.NumDevices() < 2 {
		plugin, err := backend.CPUPlugin()
		if err != nil {
			t.Skipf("backend %s has %d device and %v", b.Name(), b.NumDevices(), err)
		}
		if b, err = backend.NewNamed(backend.XLACPUConfig(plugin)); err != nil {
			t.Fatal(err)
		}
		defer b.Finalize()
	}
	const (
		batch, textDim, videoDim, dim, steps = 8, 6, 5, 4, 6
		// tol: float64 sums in another order (the partitioned matmuls and the all-reduce of the
		// gradients) differ in the last bits; Adam divides by √v, so relative changes stay ~1e-15 per step.
		tol = 1e-10
	)
	rng := rand.New(rand.NewPCG(7, 8))
	gauss := func(n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = rng.NormFloat64()
		}
		return out
	}
	wText, wVideo := gauss(textDim*dim), gauss(videoDim*dim)
	batches := make([][2][]float64, steps)
	for i := range batches {
		batches[i] = [2][]float64{gauss(batch * textDim), gauss(batch * videoDim)}
	}
	run := func(devices int) (losses []float64, weights []float64) {
		store := model.NewStore()
		fn := func(scope *model.Scope, in []*graph.Node) []*graph.Node {
			g := in[0].Graph()
			text := graph.Reshape(in[0], batch, textDim)
			video := graph.Reshape(in[1], batch, videoDim)
			wt := graph.Reshape(scope.In("text").VariableWithValue("w", wText).NodeValue(g), textDim, dim)
			wv := graph.Reshape(scope.In("video").VariableWithValue("w", wVideo).NodeValue(g), videoDim, dim)
			sim := graph.MatMul(graph.MatMul(text, wt), graph.Transpose(graph.MatMul(video, wv), 0, 1)) // [batch, batch]
			eye := graph.DiagonalWithValue(graph.Scalar(g, sim.DType(), 1), batch)
			nll := graph.Add(graph.LogSoftmax(sim, -1), graph.LogSoftmax(sim, 0)) // t2v + v2t
			return []*graph.Node{graph.Neg(graph.ReduceAllSum(graph.Mul(nll, eye)))}
		}
		step, err := NewStep(b, store, BertAdam(0.05, steps), fn)
		if err != nil {
			t.Fatal(err)
		}
		if err := step.Distribute(devices); err != nil {
			t.Fatal(err)
		}
		if step.Devices() != devices {
			t.Fatalf("Devices() = %d, want %d", step.Devices(), devices)
		}
		for _, bt := range batches {
			outs, err := step.Run(bt[0], bt[1])
			if err != nil {
				t.Fatal(err)
			}
			losses = append(losses, outs[0].Value().(float64))
		}
		for _, name := range []string{"/text/w", "/video/w"} {
			weights = append(weights, store.GetVariable(name).MustValue().Value().([]float64)...)
		}
		return losses, weights
	}
	l1, w1 := run(1)
	l2, w2 := run(2)
	maxDiff := 0.0
	for i := range l1 {
		d := math.Abs(l1[i] - l2[i])
		maxDiff = max(maxDiff, d)
		if !(d <= tol*math.Max(1, math.Abs(l1[i]))) {
			t.Errorf("step %d: loss %.17g on 1 device, %.17g on 2", i, l1[i], l2[i])
		}
	}
	for i := range w1 {
		d := math.Abs(w1[i] - w2[i])
		maxDiff = max(maxDiff, d)
		if !(d <= tol*math.Max(1, math.Abs(w1[i]))) {
			t.Errorf("weight %d: %.17g on 1 device, %.17g on 2", i, w1[i], w2[i])
		}
	}
	if l1[len(l1)-1] >= l1[0] {
		t.Errorf("the loss did not fall (%g → %g): the comparison would be vacuous", l1[0], l1[len(l1)-1])
	}
	t.Logf("%d steps, losses %.6g → %.6g; max |1 device − 2 devices| over losses and weights: %.3g", steps, l1[0], l1[len(l1)-1], maxDiff)
}

// TestDistributeNeedsDevices: asking for more devices than the backend has is an error naming both.
func TestDistributeNeedsDevices(t *testing.T) {
	b := backend.MustNew()
	store := model.NewStore()
	step, err := NewStep(b, store, BertAdam(0.1, 1), func(scope *model.Scope, in []*graph.Node) []*graph.Node {
		return []*graph.Node{graph.ReduceAllSum(in[0])}
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := step.Distribute(b.NumDevices() + 1); err == nil {
		t.Fatalf("Distribute(%d) on a backend with %d devices: no error", b.NumDevices()+1, b.NumDevices())
	}
	if err := step.Distribute(1); err != nil || step.Devices() != 1 {
		t.Fatalf("Distribute(1): %v, %d devices", err, step.Devices())
	}
}

package parity

import (
	"fmt"
	"math"
	"os"
	"sort"
	"sync"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// The two backends every test compares, created once for the package (an XLA client is expensive)
// and finalized by TestMain.
var (
	backendsOnce sync.Once
	goBackend    compute.Backend
	xlaBackend   compute.Backend
	xlaSkip      string // why the XLA backend is unavailable ("" when it is)
	backendsErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if goBackend != nil {
		goBackend.Finalize()
	}
	if xlaBackend != nil {
		xlaBackend.Finalize()
	}
	os.Exit(code)
}

// OtherBackendEnv, when set, is the backend configuration compared with the Go backend instead of
// XLA's CPU plugin (make gpu-check sets it to the CUDA plugin: xla:/abs/path/xla_cuda_plugin.so).
const OtherBackendEnv = "GEOALIGN_PARITY_BACKEND"

// backends returns the pure-Go backend and XLA on the checkout's CPU plugin (or $GEOALIGN_PARITY_BACKEND),
// both created here whatever GOMLX_BACKEND says. A missing plugin skips the test (make setup installs it).
func backends(t *testing.T) (goB, xlaB compute.Backend) {
	t.Helper()
	if os.Getenv(OtherBackendEnv) == "" {
		backend.SkipOnXLA(t, "this package creates both backends itself whatever GOMLX_BACKEND says, so under make test-xla "+
			"it would repeat exactly make gotest's run of it (Go backend vs XLA's CPU plugin)")
	}
	backendsOnce.Do(func() {
		if goBackend, backendsErr = backend.NewNamed("go"); backendsErr != nil {
			return
		}
		// make gpu-check compares the Go backend with the GPU's plugin instead.
		if config := os.Getenv(OtherBackendEnv); config != "" {
			xlaBackend, backendsErr = backend.NewNamed(config)
			return
		}
		plugin, err := backend.CPUPlugin()
		if err != nil {
			xlaSkip = err.Error()
			return
		}
		xlaBackend, backendsErr = backend.NewNamed(backend.XLACPUConfig(plugin))
	})
	if xlaSkip != "" {
		t.Skip(xlaSkip)
	}
	if backendsErr != nil {
		t.Fatal(backendsErr)
	}
	return goBackend, xlaBackend
}

// pair holds what one test computed on each backend.
type pair[T any] struct{ Go, XLA T }

// flat64 copies a float32 or float64 tensor into a []float64 (nil for other dtypes).
func flat64(t *tensors.Tensor) []float64 {
	switch t.DType() {
	case dtypes.Float32:
		f := tensors.MustCopyFlatData[float32](t)
		out := make([]float64, len(f))
		for i, v := range f {
			out[i] = float64(v)
		}
		return out
	case dtypes.Float64:
		return tensors.MustCopyFlatData[float64](t)
	}
	return nil
}

// copyStore copies every variable of src (value and trainability) into dst, creating the ones dst
// lacks: the XLA run then starts from the Go backend's initialisation. GoMLX's initializers draw
// their random bits from the backend's RNGBitGenerator, which is PCG on the Go backend and Philox on
// XLA (go-xla's stablehlo.RNGBitGenerator), so the same seed gives other initial weights.
func copyStore(dst, src *model.Store) error {
	for v := range src.IterVariables() {
		value, err := v.Value()
		if err != nil {
			return fmt.Errorf("copying %s: %w", v.Path(), err)
		}
		clone, err := value.LocalClone()
		if err != nil {
			return fmt.Errorf("copying %s: %w", v.Path(), err)
		}
		if d := dst.GetVariable(v.Path()); d != nil {
			if err := d.SetValue(clone); err != nil {
				return fmt.Errorf("copying %s: %w", v.Path(), err)
			}
			d.SetTrainable(v.Trainable)
			continue
		}
		d, err := dst.CreateVariable(v.Path(), clone)
		if err != nil {
			return fmt.Errorf("copying %s: %w", v.Path(), err)
		}
		d.SetTrainable(v.Trainable)
	}
	return nil
}

// weights returns the values of the store's trainable floating-point variables by path.
func weights(store *model.Store) map[string][]float64 {
	out := map[string][]float64{}
	for v := range store.IterVariables() {
		if !v.Trainable || !v.HasValue() {
			continue
		}
		if f := flat64(v.MustValue()); f != nil {
			out[v.Path()] = f
		}
	}
	return out
}

// lossAndGradients compiles, on backend, the scalar loss that build returns from the store's
// variables and the inputs, in a training graph (as train.Step builds it), together with its
// gradient with respect to every trainable variable the loss reads (train.TrainableIn), and runs it
// once. It returns the loss and the gradients by variable path.
func lossAndGradients(b compute.Backend, store *model.Store, build func(scope *model.Scope, in []*graph.Node) *graph.Node, inputs ...any) (float64, map[string][]float64, error) {
	var vars []*model.Variable
	exec, err := model.NewExec(b, store, func(scope *model.Scope, in []*graph.Node) []*graph.Node {
		g := in[0].Graph()
		store.SetTraining(g, true)
		loss := build(scope, in)
		vars = train.TrainableIn(store.IterVariables(), g)
		return append([]*graph.Node{loss}, graph.Gradient(loss, train.VariableNodes(vars, g)...)...)
	})
	if err != nil {
		return 0, nil, err
	}
	defer exec.Finalize()
	outs, err := exec.Exec(inputs...)
	if err != nil {
		return 0, nil, err
	}
	defer train.FinalizeAll(outs)
	grads := map[string][]float64{}
	for i, v := range vars {
		grads[v.Path()] = flat64(outs[i+1])
	}
	return flat64(outs[0])[0], grads, nil
}

// tolerance of one model and dtype (doc.go says where each number comes from).
type tolerance struct {
	// Loss bounds the relative difference |a − b| / |a| of a loss.
	Loss float64
	// Grad bounds a gradient tensor's max |Δg| / scale, where scale is its own max |g|, or
	// GradFloor × the largest |g| of the whole gradient when that is larger (see doc.go: a gradient
	// that is exactly 0, such as an attention key bias's, is pure rounding noise of the larger terms).
	Grad, GradFloor float64
	// Weight bounds a weight tensor's max |Δw| after the optimizer steps / scale, where scale is
	// the largest move of one of its elements from the initial value (Go run), or WeightFloor × the
	// largest move of any element of the model when that is larger; on top, every step may round
	// the stored weight differently: one unit in the last place (Epsilon × max |w|) per step.
	Weight, WeightFloor float64
	// Epsilon is the dtype's machine epsilon (2⁻²³, 2⁻⁵²).
	Epsilon float64
}

// float32Tolerance and float64Tolerance: see doc.go.
var (
	float32Tolerance = tolerance{Loss: 1e-5, Grad: 1e-4, GradFloor: 1e-3, Weight: 1e-2, WeightFloor: 0.1, Epsilon: 0x1p-23}
	float64Tolerance = tolerance{Loss: 1e-12, Grad: 1e-10, GradFloor: 1e-3, Weight: 1e-8, WeightFloor: 0.1, Epsilon: 0x1p-52}
)

func toleranceOf(dt dtypes.DType) tolerance {
	if dt == dtypes.Float64 {
		return float64Tolerance
	}
	return float32Tolerance
}

// maxAbs is max |x|.
func maxAbs(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

// maxDiff is max |a − b|, +Inf on a length mismatch or a NaN.
func maxDiff(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	m := 0.0
	for i := range a {
		d := math.Abs(a[i] - b[i])
		if math.IsNaN(d) {
			return math.Inf(1)
		}
		m = math.Max(m, d)
	}
	return m
}

// relDiff is |a − b| / |a| (|a − b| when a = 0).
func relDiff(a, b float64) float64 {
	d := math.Abs(a - b)
	if math.IsNaN(d) {
		return math.Inf(1)
	}
	if a != 0 {
		d /= math.Abs(a)
	}
	return d
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// checkLoss compares a loss of both backends.
func checkLoss(t *testing.T, what string, l pair[float64], tol float64) {
	t.Helper()
	d := relDiff(l.Go, l.XLA)
	t.Logf("%s: Go %.9g, XLA %.9g, |Δ| %.3g, relative %.3g (tolerance %.0e)", what, l.Go, l.XLA, math.Abs(l.Go-l.XLA), d, tol)
	if !(d <= tol) {
		t.Errorf("%s differs: Go %.12g, XLA %.12g, relative %.3g > %.0e", what, l.Go, l.XLA, d, tol)
	}
}

// compareTensors checks every tensor of got against want (same paths): max |Δ| ≤ tol × scale +
// slack(path), where scale is max(scaleOf(path), floor × the largest scaleOf over all paths). It logs
// the largest absolute difference and the largest (max |Δ| − slack) / scale, and returns them.
func compareTensors(t *testing.T, what string, want, got map[string][]float64, scaleOf, slack func(path string) float64, tol, floor float64) (worstAbs, worstRel float64) {
	t.Helper()
	if len(want) == 0 || len(want) != len(got) {
		t.Fatalf("%s: %d tensors on Go, %d on XLA", what, len(want), len(got))
	}
	global := 0.0
	for path := range want {
		global = math.Max(global, scaleOf(path))
	}
	worst := ""
	for _, path := range sortedKeys(want) {
		d := maxDiff(want[path], got[path])
		scale := math.Max(scaleOf(path), floor*global)
		rel := math.Max(d-slack(path), 0)
		if scale > 0 {
			rel /= scale
		}
		worstAbs = math.Max(worstAbs, d)
		if rel >= worstRel {
			worstRel, worst = rel, path
		}
		if !(rel <= tol) {
			t.Errorf("%s: %s differs: max |Δ| %.3g, slack %.3g, scale %.3g (own %.3g, all %.3g), relative %.3g > %.0e", what, path, d, slack(path), scale, scaleOf(path), global, rel, tol)
		}
	}
	t.Logf("%s (%d tensors, largest scale %.3g): max |Δ| %.3g, max (|Δ| − slack)/scale %.3g (%s) (tolerance %.0e)", what, len(want), global, worstAbs, worstRel, worst, tol)
	return worstAbs, worstRel
}

// checkGradients compares every gradient tensor on the scale of its largest element (floored).
func checkGradients(t *testing.T, g pair[map[string][]float64], tol tolerance) {
	t.Helper()
	compareTensors(t, "gradients", g.Go, g.XLA, func(path string) float64 { return maxAbs(g.Go[path]) }, func(string) float64 { return 0 }, tol.Grad, tol.GradFloor)
}

// checkWeights compares the trainable weights after step steps on the scale of the largest move of
// a tensor's elements from init (the Go run's; floored), with a slack of one ulp of the largest
// weight per step.
func checkWeights(t *testing.T, step int, init map[string][]float64, w pair[map[string][]float64], tol tolerance) {
	t.Helper()
	compareTensors(t, fmt.Sprintf("weights after step %d", step), w.Go, w.XLA, func(path string) float64 { return maxDiff(w.Go[path], init[path]) },
		func(path string) float64 { return float64(step) * tol.Epsilon * maxAbs(w.Go[path]) }, tol.Weight, tol.WeightFloor)
}

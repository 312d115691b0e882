package geom

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/dtypes/bfloat16"
	"github.com/gomlx/compute/dtypes/float16"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// array is a float64 tensor in plain Go: flat row-major data plus dimensions.
type array struct {
	data []float64
	dims []int
}

func newArray(data []float64, dims ...int) array {
	n := 1
	for _, d := range dims {
		n *= d
	}
	if n != len(data) {
		panic(fmt.Sprintf("newArray: %d values for dims %v", len(data), dims))
	}
	return array{data: data, dims: dims}
}

func scalarArray(v float64) array { return array{data: []float64{v}} }

func (a array) clone() array {
	return array{data: append([]float64(nil), a.data...), dims: a.dims}
}

// tensor converts to a GoMLX tensor of dtype float64 or float32.
func (a array) tensor(float32Mode bool) *tensors.Tensor {
	if float32Mode {
		f := make([]float32, len(a.data))
		for i, v := range a.data {
			f[i] = float32(v)
		}
		return tensors.FromFlatDataAndDimensions(f, a.dims...)
	}
	return tensors.FromFlatDataAndDimensions(append([]float64(nil), a.data...), a.dims...)
}

// tensorIn converts to a GoMLX tensor of any float dtype (float16 and bfloat16 round to nearest even).
func (a array) tensorIn(dt dtypes.DType) *tensors.Tensor {
	switch dt {
	case dtypes.Float16:
		return tensors.FromFlatDataAndDimensions(convertSlice(a.data, float16.FromFloat64), a.dims...)
	case dtypes.BFloat16:
		return tensors.FromFlatDataAndDimensions(convertSlice(a.data, bfloat16.FromFloat64), a.dims...)
	}
	return a.tensor(dt == dtypes.Float32)
}

// roundedTo returns the value that a dt tensor built from x holds.
func roundedTo(x float64, dt dtypes.DType) float64 {
	switch dt {
	case dtypes.Float16:
		return float16.FromFloat64(x).Float64()
	case dtypes.BFloat16:
		return bfloat16.FromFloat64(x).Float64()
	case dtypes.Float32:
		return float64(float32(x))
	}
	return x
}

func convertSlice[S, T any](in []S, convert func(S) T) []T {
	out := make([]T, len(in))
	for i, v := range in {
		out[i] = convert(v)
	}
	return out
}

func flat(t *tensors.Tensor) []float64 {
	switch t.DType() {
	case dtypes.Float32:
		return convertSlice(tensors.MustCopyFlatData[float32](t), func(v float32) float64 { return float64(v) })
	case dtypes.Float16:
		return convertSlice(tensors.MustCopyFlatData[float16.Float16](t), float16.Float16.Float64)
	case dtypes.BFloat16:
		return convertSlice(tensors.MustCopyFlatData[bfloat16.BFloat16](t), bfloat16.BFloat16.Float64)
	default:
		return tensors.MustCopyFlatData[float64](t)
	}
}

// eval runs fn once on the inputs (float64) and returns the flat output.
func eval(t testing.TB, fn func(in []*Node) *Node, inputs ...array) []float64 {
	t.Helper()
	args := make([]any, len(inputs))
	for i, a := range inputs {
		args[i] = a.tensor(false)
	}
	out := MustExecOnce(backend.MustNew(), fn, args...)
	return flat(out)
}

// objectiveWeights returns fixed, non-uniform weights w of the shape of y, so that Σ w·y has a
// gradient that mixes all outputs differently.
func objectiveWeights(y *Node) *Node {
	i := IotaFull(y.Graph(), y.Shape())
	return AddScalar(Cos(MulScalar(i, 0.7)), 1.5)
}

// gradExec compiles fn into an executable returning [Σ w·fn(in), ∂/∂in₀, ∂/∂in₁, ...].
// Inputs listed in constant (by index) are not differentiated.
func gradExec(fn func(in []*Node) *Node) *Exec {
	return MustNewExec(backend.MustNew(), func(in []*Node) []*Node {
		y := fn(in)
		obj := ReduceAllSum(Mul(y, objectiveWeights(y)))
		grads := Gradient(obj, in...)
		return append([]*Node{obj}, grads...)
	})
}

// checkGradients compares fn's autodiff gradients (of Σ w·fn) with central finite differences,
// input by input and coordinate by coordinate, in float64. Inputs with skip[i] = true are not checked
// (e.g. a curvature shared by many outputs is checked separately).
func checkGradients(t *testing.T, name string, fn func(in []*Node) *Node, inputs []array, skip ...int) {
	t.Helper()
	exec := gradExec(fn)
	defer exec.Finalize()
	call := func(in []array) []*tensors.Tensor {
		args := make([]any, len(in))
		for i, a := range in {
			args[i] = a.tensor(false)
		}
		return exec.MustCall(args...)
	}
	base := call(inputs)
	skipped := map[int]bool{}
	for _, s := range skip {
		skipped[s] = true
	}
	maxErr := 0.0
	for i := range inputs {
		if skipped[i] {
			continue
		}
		g := flat(base[1+i])
		for j := range inputs[i].data {
			x := inputs[i].data[j]
			h := 1e-6 * math.Max(1, math.Abs(x))
			plus, minus := cloneAll(inputs), cloneAll(inputs)
			plus[i].data[j] = x + h
			minus[i].data[j] = x - h
			fp := flat(call(plus)[0])[0]
			fm := flat(call(minus)[0])[0]
			fd := (fp - fm) / (2 * h)
			err := math.Abs(fd-g[j]) / (1 + math.Abs(fd))
			maxErr = math.Max(maxErr, err)
			if err > 2e-5 || math.IsNaN(g[j]) {
				t.Errorf("%s: ∂/∂input%d[%d]: autodiff %.10g, finite difference %.10g", name, i, j, g[j], fd)
				return
			}
		}
	}
	t.Logf("%s: max relative gradient error vs finite differences %.2g", name, maxErr)
}

func cloneAll(in []array) []array {
	out := make([]array, len(in))
	for i, a := range in {
		out[i] = a.clone()
	}
	return out
}

// randomVectors returns n×d standard normal values scaled by scale.
func randomVectors(rng *rand.Rand, n, d int, scale float64) array {
	data := make([]float64, n*d)
	for i := range data {
		data[i] = scale * rng.NormFloat64()
	}
	return newArray(data, n, d)
}

// row returns row i of a 2-D array.
func (a array) row(i int) []float64 {
	d := a.dims[len(a.dims)-1]
	return a.data[i*d : (i+1)*d]
}

func assertClose(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > tol*(1+math.Abs(want)) {
		t.Errorf("%s: got %.12g, want %.12g (tol %.1g)", what, got, want, tol)
	}
}

// Plain-Go float64 references, written independently of the graph code.

func timeRef(x []float64, c float64) float64 { return math.Sqrt(1/c + floats.Dot(x, x)) }

func lorentzInnerRef(x, y []float64, c float64) float64 {
	return floats.Dot(x, y) - timeRef(x, c)*timeRef(y, c)
}

func lorentzDistRef(x, y []float64, c float64) float64 {
	return math.Acosh(math.Max(1, -c*lorentzInnerRef(x, y, c))) / math.Sqrt(c)
}

// detRef is the determinant by gonum's LU factorisation with partial pivoting (mat.Det): an algorithm
// unrelated to the cofactor/adjugate evaluation under test.
func detRef(m [][]float64) float64 {
	a := mat.NewDense(len(m), len(m), nil)
	for i, row := range m {
		a.SetRow(i, row)
	}
	return mat.Det(a)
}

// gramVolumeRef is √|det| of the Euclidean Gram matrix of vs.
func gramVolumeRef(vs [][]float64) float64 { return gramRootDetRef(vs, floats.Dot) }

// hyperbolicVolumeRef lifts each vector to [√(1+‖x‖²), x] and takes √|det| of the Minkowski Gram.
func hyperbolicVolumeRef(vs [][]float64) float64 {
	return gramRootDetRef(vs, func(a, b []float64) float64 {
		return -math.Sqrt(1+floats.Dot(a, a))*math.Sqrt(1+floats.Dot(b, b)) + floats.Dot(a, b)
	})
}

// gramRootDetRef is √|det| of the Gram matrix G[p][q] = inner(vs[p], vs[q]).
func gramRootDetRef(vs [][]float64, inner func(a, b []float64) float64) float64 {
	g := make([][]float64, len(vs))
	for p := range g {
		g[p] = make([]float64, len(vs))
		for q := range g[p] {
			g[p][q] = inner(vs[p], vs[q])
		}
	}
	return math.Sqrt(math.Abs(detRef(g)))
}

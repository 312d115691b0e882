package loss

// Test harness: run a loss graph on float64 inputs, read its value and its gradients, and compare them with
// an independent float64 reference written in plain Go (loops, math.Exp/math.Log) and with central finite
// differences of that reference.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats"

	"github.com/geoalign/geoalign/lib/backend"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck
	"github.com/gomlx/gomlx/core/tensors"
)

// fdStep is the central finite-difference step; with float64 references the truncation error is
// O(h²) ≈ 1e-12 and the rounding error O(ε/h) ≈ 1e-10.
const fdStep = 1e-6

// gradTolerance is the absolute tolerance between graph gradients and finite differences, relative to
// max(1, |gradient|).
const gradTolerance = 1e-6

// valueTolerance is the relative tolerance between float64 graph values and float64 references.
const valueTolerance = 1e-10

// mat is a float64 tensor for tests: row-major data and its dimensions.
type mat struct {
	data []float64
	dims []int
}

func (m mat) tensor() *tensors.Tensor { return tensors.FromFlatDataAndDimensions(m.data, m.dims...) }

func (m mat) clone() mat {
	return mat{data: append([]float64(nil), m.data...), dims: append([]int(nil), m.dims...)}
}

// randMat returns a tensor with entries uniform in [lo, hi).
func randMat(rng *rand.Rand, lo, hi float64, dims ...int) mat {
	n := 1
	for _, d := range dims {
		n *= d
	}
	data := make([]float64, n)
	for i := range data {
		data[i] = lo + (hi-lo)*rng.Float64()
	}
	return mat{data: data, dims: dims}
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

func labelsTensor(labels []int) *tensors.Tensor {
	l := make([]int32, len(labels))
	for i, v := range labels {
		l[i] = int32(v)
	}
	return tensors.FromFlatDataAndDimensions(l, len(l))
}

// evalLoss runs fn on the inputs and returns the scalar value and the gradients with respect to the inputs
// listed in wrt (indices into inputs). inputs are tensors (float inputs as float64 tensors).
func evalLoss(t testing.TB, fn func(in []*Node) *Node, wrt []int, inputs ...*tensors.Tensor) (float64, [][]float64) {
	t.Helper()
	exec := MustNewExec(backend.MustNew(), func(in []*Node) []*Node {
		loss := fn(in)
		outs := []*Node{loss}
		if len(wrt) > 0 {
			targets := make([]*Node, len(wrt))
			for i, w := range wrt {
				targets[i] = in[w]
			}
			outs = append(outs, Gradient(loss, targets...)...)
		}
		return outs
	})
	args := make([]any, len(inputs))
	for i, x := range inputs {
		args[i] = x
	}
	results := exec.MustExec(args...)
	value := scalarOf(t, results[0])
	grads := make([][]float64, len(wrt))
	for i := range wrt {
		grads[i] = flatOf(t, results[1+i])
	}
	return value, grads
}

func scalarOf(t testing.TB, x *tensors.Tensor) float64 {
	t.Helper()
	flat := flatOf(t, x)
	if len(flat) != 1 {
		t.Fatalf("expected a scalar, got shape %s", x.Shape())
	}
	return flat[0]
}

func flatOf(t testing.TB, x *tensors.Tensor) []float64 {
	t.Helper()
	switch v := x.Value().(type) {
	case float64:
		return []float64{v}
	case float32:
		return []float64{float64(v)}
	}
	switch x.DType().String() {
	case "Float64":
		return tensors.MustCopyFlatData[float64](x)
	case "Float32":
		return toFloat64s(tensors.MustCopyFlatData[float32](x))
	case "Int32":
		return toFloat64s(tensors.MustCopyFlatData[int32](x))
	}
	t.Fatalf("unsupported dtype %s", x.DType())
	return nil
}

// finiteDifference returns the central finite-difference gradient of f at x, f reading x (gonum's
// diff/fd; x is restored afterwards).
func finiteDifference(f func() float64, x []float64) []float64 {
	x0 := slices.Clone(x)
	defer copy(x, x0)
	return fd.Gradient(nil, func(y []float64) float64 { copy(x, y); return f() }, x0, &fd.Settings{Formula: fd.Central, Step: fdStep})
}

func assertClose(t testing.TB, what string, got, want, relTol float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > relTol*math.Max(1, math.Abs(want)) {
		t.Errorf("%s: got %.15g, want %.15g (diff %.3g)", what, got, want, got-want)
	}
}

func assertAllClose(t testing.TB, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: length %d, want %d", what, len(got), len(want))
	}
	bad := 0
	for i := range got {
		if math.IsNaN(got[i]) || math.Abs(got[i]-want[i]) > tol*math.Max(1, math.Abs(want[i])) {
			if bad < 5 {
				t.Errorf("%s[%d]: got %.12g, want %.12g", what, i, got[i], want[i])
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d entries differ", what, bad, len(got))
	}
}

// maxAbsDiff is max_i |a_i − b_i|.
func maxAbsDiff(a, b []float64) float64 {
	m := 0.0
	for i := range a {
		m = math.Max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

// expectPanic checks that fn panics with a message containing every fragment.
func expectPanic(t *testing.T, fn func(), fragments ...string) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Fatalf("expected a panic mentioning %q", fragments)
		}
		msg := fmt.Sprint(r)
		for _, f := range fragments {
			if !strings.Contains(msg, f) {
				t.Errorf("panic message %q does not mention %q", msg, f)
			}
		}
	}()
	fn()
}

// ---- plain-Go float64 reference building blocks (independent of the code under test) ----

// refLogSumExp returns log Σ exp(x), stably.
func refLogSumExp(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = math.Max(m, x)
	}
	s := 0.0
	for _, x := range xs {
		s += math.Exp(x - m)
	}
	return m + math.Log(s)
}

// refLogSoftmaxRow returns log softmax of a row, stably.
func refLogSoftmaxRow(row []float64) []float64 {
	lse := refLogSumExp(row)
	out := make([]float64, len(row))
	for i, v := range row {
		out[i] = v - lse
	}
	return out
}

// refSmoothedCE is PyTorch's F.cross_entropy(logits, target, label_smoothing=eps) for one row, written
// out: −Σ_k q_k log p_k with q_k = (1−eps)[k = target] + eps/K.
func refSmoothedCE(row []float64, target int, eps float64) float64 {
	lp := refLogSoftmaxRow(row)
	k := float64(len(row))
	loss := 0.0
	for c, v := range lp {
		q := eps / k
		if c == target {
			q += 1 - eps
		}
		loss -= q * v
	}
	return loss
}

// refRowsCE is the mean over rows i of refSmoothedCE(logits[i], i, eps); logits[i][j] = at(i, j), n×n.
func refRowsCE(n int, at func(i, j int) float64, eps float64) float64 {
	total := 0.0
	row := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			row[j] = at(i, j)
		}
		total += refSmoothedCE(row, i, eps)
	}
	return total / float64(n)
}

func refNorm(a []float64) float64 { return math.Sqrt(floats.Dot(a, a)) }

func refUnit(a []float64) []float64 {
	n := math.Max(refNorm(a), 1e-12)
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] / n
	}
	return out
}

func refCos(a, b []float64) float64 { return floats.Dot(refUnit(a), refUnit(b)) }

// row returns row i of a [n, d] matrix as a slice aliasing its data.
func (m mat) row(i int) []float64 {
	d := m.dims[len(m.dims)-1]
	return m.data[i*d : (i+1)*d]
}

func allFinite(xs []float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// must unwraps a (value, error) pair in tests.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// toFloat64s converts a tensor's flat data to float64.
func toFloat64s[T float32 | int32](f []T) []float64 {
	out := make([]float64, len(f))
	for i, v := range f {
		out[i] = float64(v)
	}
	return out
}

// threeModalBatch draws an anchor and two data sides, n×d each with entries in [−1, 1), and returns
// them with the temperature tau as a one-element slice (for finiteDifference), the loss inputs
// [anchor, data, data, τ] and wrt, every input.
func threeModalBatch(rng *rand.Rand, n, d int, tau float64) (a, v, w mat, taus []float64, inputs []*tensors.Tensor, wrt []int) {
	a, v, w = randMat(rng, -1, 1, n, d), randMat(rng, -1, 1, n, d), randMat(rng, -1, 1, n, d)
	inputs = []*tensors.Tensor{a.tensor(), v.tensor(), w.tensor(), tensors.FromScalar(tau)}
	return a, v, w, []float64{tau}, inputs, []int{0, 1, 2, 3}
}

package geom

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// Robustness: no NaN or Inf in any value or gradient, in float64, float32 and bfloat16, over adversarial
// inputs: zero vectors, identical, collinear and opposite vectors, near-duplicates, norms 1e-6 … 1e4,
// curvatures 0.1 … 10; in float16 the same at norms ≤ 1e2, less the outputs whose true value exceeds
// 65504 (sweepDTypes). The sweep runs in the normal `go test`; the Fuzz targets (float64 and float32)
// extend it with `go test -fuzz=FuzzLorentz ./lib/geom/` (or FuzzVolumes).
//
// Documented limit (see doc.go): k ≤ 4 at norms up to 1e4, since a float32 Gram determinant of k
// vectors of norm r is of order r^(2k) and overflows float32 (3.4e38) beyond that.

const (
	fuzzDim      = 5 // vector dimension of the sweep
	fuzzMaxNorm  = 1e4
	fuzzMinNorm  = 1e-6
	fuzzMaxK     = 4
	fuzzPairRows = 128 // rows of the pairwise sweep (128² pairs per call)
)

var fuzzCurvatures = []float64{0.1, 0.23, 0.5, 1, 2, 4.4, 7, 10}

// adversarialPairs returns n pairs of rows (x, y) in R^d cycling through the hard cases.
func adversarialPairs(rng *rand.Rand, n, d int) (x, y array) {
	xs, ys := make([]float64, n*d), make([]float64, n*d)
	for i := 0; i < n; i++ {
		xi, yi := xs[i*d:(i+1)*d], ys[i*d:(i+1)*d]
		randomDirection(rng, xi, logUniformNorm(rng))
		randomDirection(rng, yi, logUniformNorm(rng))
		switch i % 10 {
		case 0: // x = 0
			clear(xi)
		case 1: // identical
			copy(yi, xi)
		case 2: // collinear, same or opposite direction, any ratio
			lambda := math.Pow(10, -3+6*rng.Float64())
			if rng.IntN(2) == 0 {
				lambda = -lambda
			}
			for j := range yi {
				yi[j] = clampNorm(lambda * xi[j])
			}
		case 3: // y = 0
			clear(yi)
		case 4: // both 0
			clear(xi)
			clear(yi)
		case 5: // near-duplicate
			for j := range yi {
				yi[j] = xi[j] * (1 + 1e-7*rng.NormFloat64())
			}
		case 6: // opposite
			for j := range yi {
				yi[j] = -xi[j]
			}
		case 7: // axis-aligned, extreme norms
			clear(xi)
			clear(yi)
			xi[rng.IntN(d)] = []float64{fuzzMinNorm, fuzzMaxNorm}[rng.IntN(2)]
			yi[rng.IntN(d)] = []float64{fuzzMinNorm, fuzzMaxNorm, -fuzzMaxNorm}[rng.IntN(3)]
		}
	}
	return newArray(xs, n, d), newArray(ys, n, d)
}

func clampNorm(v float64) float64 { return math.Max(-fuzzMaxNorm, math.Min(fuzzMaxNorm, v)) }

func logUniformNorm(rng *rand.Rand) float64 {
	return math.Pow(10, math.Log10(fuzzMinNorm)+rng.Float64()*(math.Log10(fuzzMaxNorm)-math.Log10(fuzzMinNorm)))
}

func randomDirection(rng *rand.Rand, v []float64, norm float64) {
	s := 0.0
	for j := range v {
		v[j] = rng.NormFloat64()
		s += v[j] * v[j]
	}
	s = math.Sqrt(s)
	for j := range v {
		v[j] *= norm / s
	}
}

// gramStack returns n groups of k vectors [n, k, d] built from adversarial pairs: zero vectors,
// repeats, collinear vectors and random ones mixed within each group.
func gramStack(rng *rand.Rand, n, k, d int) array {
	x, y := adversarialPairs(rng, n*k, d)
	out := make([]float64, n*k*d)
	for g := 0; g < n; g++ {
		for p := 0; p < k; p++ {
			src := x.row(g*k + p)
			if (g+p)%3 == 1 {
				src = y.row(g*k + p)
			}
			if g%7 == 3 && p > 0 { // all k vectors identical
				src = x.row(g * k)
			}
			copy(out[(g*k+p)*d:], src)
		}
	}
	return newArray(out, n, k, d)
}

// finiteCase is one function under the sweep: it maps the inputs to one output node.
type finiteCase struct {
	name  string
	build func(in []*Node) *Node
}

// valuesAndGradients compiles, for each case, its output and the gradient of its sum with respect to
// every input, into one executable.
func valuesAndGradients(cases []finiteCase) *Exec {
	return MustNewExec(backend.MustNew(), func(in []*Node) []*Node {
		var out []*Node
		for _, fc := range cases {
			y := fc.build(in)
			out = append(out, y)
			out = append(out, Gradient(ReduceAllSum(y), in...)...)
		}
		return out
	})
}

// assertAllFinite checks every output of valuesAndGradients; it returns the number of checked values.
func assertAllFinite(t testing.TB, cases []finiteCase, numInputs int, outs []*tensors.Tensor, context string) int {
	t.Helper()
	return assertFiniteExcept(t, cases, numInputs, outs, context, nil)
}

// assertFiniteExcept is assertAllFinite without the outputs listed in except (see sweepDType).
func assertFiniteExcept(t testing.TB, cases []finiteCase, numInputs int, outs []*tensors.Tensor, context string,
	except map[string]string) int {
	t.Helper()
	count := 0
	per := 1 + numInputs
	for ci, fc := range cases {
		for k := 0; k < per; k++ {
			if except[fmt.Sprintf("%s/%d", fc.name, k)] != "" || except[fmt.Sprintf("*/%d", k)] != "" {
				continue
			}
			what := "value"
			if k > 0 {
				what = fmt.Sprintf("gradient wrt input %d", k-1)
			}
			vals := flat(outs[ci*per+k])
			for i, v := range vals {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Errorf("%s %s: %s[%d] = %g (%s)", fc.name, what, what, i, v, context)
					return count
				}
			}
			count += len(vals)
		}
	}
	return count
}

// pointwiseCases: inputs x, y [N, d], curvature c, α (scalar), w [N, N/…] unused here.
var pointwiseCases = []finiteCase{
	{"LorentzTime", func(in []*Node) *Node { return LorentzTime(in[0], in[2]) }},
	{"LorentzInner", func(in []*Node) *Node { return LorentzInner(in[0], in[1], in[2]) }},
	{"LorentzDistance", func(in []*Node) *Node { return LorentzDistance(in[0], in[1], in[2]) }},
	{"ExpMap0", func(in []*Node) *Node { return ExpMap0(in[0], in[2]) }},
	{"LogMap0", func(in []*Node) *Node { return LogMap0(in[0], in[2]) }},
	{"LogMap0∘ExpMap0", func(in []*Node) *Node { return LogMap0(ExpMap0(in[0], in[2]), in[2]) }},
	{"HalfAperture", func(in []*Node) *Node { return HalfAperture(in[0], in[2], MinRadius) }},
	{"ExteriorAngle", func(in []*Node) *Node { return ExteriorAngle(in[0], in[1], in[2]) }},
	{"EuclideanNorm", func(in []*Node) *Node { return EuclideanNorm(in[0]) }},
	{"LorentzToPoincare", func(in []*Node) *Node { return LorentzToPoincare(in[0], in[2]) }},
	{"PoincareToLorentz", func(in []*Node) *Node { return PoincareToLorentz(in[0], in[2]) }},
	{"PoincareDistance", func(in []*Node) *Node { return PoincareDistance(in[0], in[1], in[2]) }},
	{"PoincareDistance(inside)", func(in []*Node) *Node {
		return PoincareDistance(LorentzToPoincare(in[0], in[2]), LorentzToPoincare(in[1], in[2]), in[2])
	}},
	{"MinkowskiInner", func(in []*Node) *Node { return MinkowskiInner(in[0], in[1]) }},
	{"ToFullCoordinates", func(in []*Node) *Node { return ToFullCoordinates(in[0], in[2]) }},
	{"ExpMap0Full", func(in []*Node) *Node { return ExpMap0Full(in[0]) }},
	{"LogMap0Full", func(in []*Node) *Node { return LogMap0Full(in[0]) }},
	{"LogMap0Full(origin+x)", func(in []*Node) *Node { return LogMap0Full(ToFullCoordinates(in[0], OnesLike(in[2]))) }},
	{"LorentzCentroid", func(in []*Node) *Node {
		pts := ToFullCoordinates(in[0], OnesLike(in[2]))
		w := Abs(Reshape(SliceAxis(in[1], 1, AxisElem(0)), 1, -1)) // [1, N] non-negative, some zero
		return LorentzCentroid(w, pts)
	}},
	{"Acosh", func(in []*Node) *Node { return Acosh(in[0]) }},
	{"Asinh", func(in []*Node) *Node { return Asinh(in[0]) }},
	{"Sinh", func(in []*Node) *Node { return Sinh(in[0]) }},
	{"Cosh", func(in []*Node) *Node { return Cosh(in[0]) }},
	{"Acos", func(in []*Node) *Node { return Acos(in[0]) }},
	{"Asin", func(in []*Node) *Node { return Asin(in[0]) }},
	{"Acos(tanh)", func(in []*Node) *Node { return Acos(Tanh(in[0])) }},
}

var pairwiseCases = []finiteCase{
	{"PairwiseLorentzInner", func(in []*Node) *Node { return PairwiseLorentzInner(in[0], in[1], in[2]) }},
	{"PairwiseLorentzDistance", func(in []*Node) *Node { return PairwiseLorentzDistance(in[0], in[1], in[2]) }},
	{"PairwiseLorentzDistance(x,x)", func(in []*Node) *Node { return PairwiseLorentzDistance(in[0], in[0], in[2]) }},
	{"PairwisePoincareDistance", func(in []*Node) *Node { return PairwisePoincareDistance(in[0], in[1], in[2]) }},
}

// volumeCases: inputs v [N, k, d], anchor [B, d], o1 [B, d], o2 [B, d], o3 [B, d], α.
func volumeCases(k int) []finiteCase {
	others := func(in []*Node) []*Node { return in[2 : 2+k-1] }
	return []finiteCase{
		{"GramVolume", func(in []*Node) *Node { return GramVolume(in[0]) }},
		{"HyperbolicGramVolume", func(in []*Node) *Node { return HyperbolicGramVolume(in[0]) }},
		{"HybridVolume", func(in []*Node) *Node { return HybridVolume(in[5], in[0]) }},
		{"VolumeMatrix", func(in []*Node) *Node { return VolumeMatrix(in[1], others(in)...) }},
		{"HyperbolicVolumeMatrix", func(in []*Node) *Node { return HyperbolicVolumeMatrix(in[1], others(in)...) }},
		{"HybridVolumeMatrix", func(in []*Node) *Node { return HybridVolumeMatrix(in[5], in[1], others(in)...) }},
	}
}

func dtypeName(float32Mode bool) string {
	if float32Mode {
		return "float32"
	}
	return "float64"
}

// errorRecorder is a testing.TB that records Errorf instead of failing.
type errorRecorder struct {
	testing.TB
	errors int
}

func (r *errorRecorder) Errorf(string, ...any) { r.errors++ }

// TestSweepDetectsNaN makes sure the sweep's check can fail: the naive norm √(Σx²) has a NaN gradient at 0.
func TestSweepDetectsNaN(t *testing.T) {
	cases := []finiteCase{{"naive norm", func(in []*Node) *Node { return Sqrt(ReduceSum(Square(in[0]), -1)) }}}
	exec := valuesAndGradients(cases)
	defer exec.Finalize()
	x, _ := adversarialPairs(rand.New(rand.NewPCG(1, 1)), 10, 3) // row 0 is the zero vector
	rec := &errorRecorder{TB: t}
	assertAllFinite(rec, cases, 1, exec.MustCall(x.tensor(false)), "naive")
	if rec.errors == 0 {
		t.Fatal("the sweep did not flag the NaN gradient of √(Σx²) at x = 0")
	}
}

// sweepDType is one dtype of TestNoNaNOrInfSweep: the adversarial inputs are multiplied by scale
// (volumes by volumeScale), and except lists the outputs allowed to be non-finite, keyed
// "case/k" (k = 0 the value, k ≥ 1 the gradient with respect to input k−1; "*" any case), with the reason.
type sweepDType struct {
	dt                 dtypes.DType
	scale, volumeScale float64
	except             map[string]string
}

var sweepDTypes = []sweepDType{
	{dtypes.Float64, 1, 1, nil},
	{dtypes.Float32, 1, 1, nil},
	{dtypes.BFloat16, 1, 1, nil}, // float32's range: as finite as float32 (computed in float32, precision.go)
	// float16's largest value is 65504: the inputs are scaled to norms ≤ 1e2 (x₀y₀ ≤ 1e4 fits), the
	// volumes' to ≤ 1, and what can still exceed 65504 — the true value, not our arithmetic — is excepted.
	{dtypes.Float16, 1e-2, 1e-4, map[string]string{
		"*/3":                        "∂/∂c sums the curvature gradient over the whole batch (16384 rows, 16384 pairs)",
		"ExpMap0/0":                  "at c = 0.1 the saturated sinh(asinh 2¹⁵)/√c ≈ 1.04e5",
		"LogMap0∘ExpMap0/0":          "ExpMap0 as above",
		"LogMap0∘ExpMap0/1":          "ExpMap0 as above",
		"ExteriorAngle/1":            "∂/∂x grows like 1/‖x‖ near the origin (the angle turns by O(1) over ‖x‖)",
		"ExteriorAngle/2":            "∂/∂y through the same 1/‖x‖ factor",
		"ExpMap0Full/1":              "with u₀ ≠ 0, ⟨u, u⟩_L can vanish for large u: onmt's slope 1/n ≈ 1/√MinkowskiNormFloor",
		"PoincareToLorentz/0":        "raw inputs lie outside the ball: 2p/PoincareBoundaryEps ≈ 2e7",
		"PoincareToLorentz/1":        "as above",
		"PairwisePoincareDistance/1": "raw inputs outside the ball, clamped: 1/‖p − q‖ for nearby clamped points",
		"PairwisePoincareDistance/2": "as above",
	}},
}

func TestNoNaNOrInfSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	for _, sd := range sweepDTypes {
		counts := map[string]int{}
		in := func(a array, scale float64) *tensors.Tensor {
			a = a.clone()
			for i := range a.data {
				a.data[i] *= scale
			}
			return a.tensorIn(sd.dt)
		}
		point := valuesAndGradients(pointwiseCases)
		pair := valuesAndGradients(pairwiseCases)
		for _, c := range fuzzCurvatures {
			x, y := adversarialPairs(rng, 16384, fuzzDim)
			ct := scalarArray(c).tensorIn(sd.dt)
			ctx := fmt.Sprintf("%s, c=%g", sd.dt, c)
			outs := point.MustCall(in(x, sd.scale), in(y, sd.scale), ct)
			counts["pointwise rows"] += x.dims[0]
			counts["pointwise values+gradients"] += assertFiniteExcept(t, pointwiseCases, 3, outs, ctx, sd.except)
			px, py := adversarialPairs(rng, fuzzPairRows, fuzzDim)
			outs = pair.MustCall(in(px, sd.scale), in(py, sd.scale), ct)
			counts["pairs"] += fuzzPairRows * fuzzPairRows
			counts["pairwise values+gradients"] += assertFiniteExcept(t, pairwiseCases, 3, outs, ctx, sd.except)
		}
		point.Finalize()
		pair.Finalize()
		for k := 2; k <= fuzzMaxK; k++ {
			cases := volumeCases(k)
			vol := valuesAndGradients(cases)
			for rep := 0; rep < 4; rep++ {
				n, b := 2048, 64
				v := gramStack(rng, n, k, fuzzDim)
				anchor, o1 := adversarialPairs(rng, b, fuzzDim)
				o2, o3 := adversarialPairs(rng, b, fuzzDim)
				copy(o2.data[:5*fuzzDim], anchor.data[:5*fuzzDim]) // anchor_i = others_j for some (i, j = i)
				alpha := scalarArray([]float64{0, 0.5, 1, 0.3}[rep])
				ctx := fmt.Sprintf("%s, k=%d", sd.dt, k)
				s := sd.volumeScale
				outs := vol.MustCall(in(v, s), in(anchor, s), in(o1, s), in(o2, s), in(o3, s), alpha.tensorIn(sd.dt))
				counts["volume groups + matrix entries"] += n + b*b
				counts["volume values+gradients"] += assertAllFinite(t, cases, 6, outs, ctx)
			}
			vol.Finalize()
		}
		t.Logf("%s: %v", sd.dt, counts)
	}
}

// Fuzz targets: one compiled executable per dtype, reused across fuzz inputs.

var (
	fuzzExecOnce sync.Once
	fuzzExecs    map[bool][2]*Exec // dtype → {pointwise, volume k=3}
)

func fuzzExec() map[bool][2]*Exec {
	fuzzExecOnce.Do(func() {
		fuzzExecs = map[bool][2]*Exec{}
		for _, f32 := range []bool{false, true} {
			fuzzExecs[f32] = [2]*Exec{valuesAndGradients(pointwiseCases), valuesAndGradients(volumeCases(3))}
		}
	})
	return fuzzExecs
}

// fuzzVector turns raw fuzz floats into a vector with entries bounded by fuzzMaxNorm/√d (so its norm is
// ≤ fuzzMaxNorm); NaN and Inf inputs are not in the contract and are mapped to 0.
func fuzzVector(raw ...float64) []float64 {
	out := make([]float64, len(raw))
	lim := fuzzMaxNorm / math.Sqrt(float64(len(raw)))
	for i, v := range raw {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			v = 0
		}
		out[i] = math.Max(-lim, math.Min(lim, v))
	}
	return out
}

// fuzzCurvature maps any float to the supported range [0.1, 10].
func fuzzCurvature(raw float64) float64 {
	if math.IsNaN(raw) || math.IsInf(raw, 0) {
		return 1
	}
	return math.Pow(10, math.Mod(math.Abs(raw), 2)-1)
}

func FuzzLorentz(f *testing.F) {
	f.Add(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)
	f.Add(1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 0.5)
	f.Add(1e-6, 0.0, 0.0, -1e-6, 0.0, 0.0, 1.9)
	f.Add(1e4, 0.0, 0.0, 0.0, 1e4, 0.0, 1.0)
	f.Add(5e3, 5e3, 5e3, 5e3, 5e3, 5e3, 0.0)
	f.Fuzz(func(t *testing.T, x0, x1, x2, y0, y1, y2, c float64) {
		x := newArray(fuzzVector(x0, x1, x2), 1, 3)
		y := newArray(fuzzVector(y0, y1, y2), 1, 3)
		cc := scalarArray(fuzzCurvature(c))
		for f32, execs := range fuzzExec() {
			outs := execs[0].MustCall(x.tensor(f32), y.tensor(f32), cc.tensor(f32))
			assertAllFinite(t, pointwiseCases, 3, outs, fmt.Sprintf("%s x=%v y=%v c=%g", dtypeName(f32), x.data, y.data, cc.data[0]))
		}
	})
}

func FuzzVolumes(f *testing.F) {
	f.Add(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5)
	f.Add(1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.5)
	f.Add(1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0)
	f.Add(1e4, 1e4, 0.0, -1e4, 1e-6, 3.0, 0.0, 0.0, 0.0, 1.0)
	f.Fuzz(func(t *testing.T, a0, a1, a2, b0, b1, b2, c0, c1, c2, alpha float64) {
		a, b, c := fuzzVector(a0, a1, a2), fuzzVector(b0, b1, b2), fuzzVector(c0, c1, c2)
		v := newArray(append(append(append([]float64(nil), a...), b...), c...), 1, 3, 3)
		if math.IsNaN(alpha) || math.IsInf(alpha, 0) {
			alpha = 0.5
		}
		al := scalarArray(math.Max(0, math.Min(1, alpha)))
		row := func(r []float64) array { return newArray(r, 1, 3) }
		for f32, execs := range fuzzExec() {
			outs := execs[1].MustCall(v.tensor(f32), row(a).tensor(f32), row(b).tensor(f32), row(c).tensor(f32),
				row(a).tensor(f32), al.tensor(f32))
			assertAllFinite(t, volumeCases(3), 6, outs, fmt.Sprintf("%s v=%v α=%g", dtypeName(f32), v.data, al.data[0]))
		}
	})
}

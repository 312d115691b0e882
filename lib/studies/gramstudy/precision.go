package gramstudy

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/geoalign/geoalign/lib/geom"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/support/exceptions"
	"gonum.org/v1/gonum/floats"
)

// PrecisionRadii are the hyperbolic distances from the origin at which LowPrecision places points.
var PrecisionRadii = []float64{1, 2, 4, 6, 8}

// precisionDim and precisionPairs size LowPrecision's random point pairs.
const precisionDim, precisionPairs = 16, 256

// PrecisionCell is one measurement of LowPrecision.
type PrecisionCell struct {
	MedianRelErr  float64 // median |d − d_ref| / d_ref over the finite distances
	NonFinite     float64 // fraction of pairs whose distance is NaN or ±Inf
	NonFiniteGrad float64 // fraction of pairs with a NaN or ±Inf gradient entry
	Unsupported   string  // the backend's error when the dtype cannot run
}

func (c PrecisionCell) String() string {
	if c.Unsupported != "" {
		return "unsupported"
	}
	if c.NonFinite == 1 {
		return fmt.Sprintf("all ∞/NaN · grad %.0f%%", 100*c.NonFiniteGrad)
	}
	return fmt.Sprintf("%.1e · %.0f%% · %.0f%%", c.MedianRelErr, 100*c.NonFinite, 100*c.NonFiniteGrad)
}

// LowPrecision checks HyperGRAM's stated reason for the Lorentz model — the Poincaré ball divides by
// 1 − ‖p‖² and is unstable in fp16 — on this backend: random pairs of points at hyperbolic distance r
// from the origin (random directions in R^16), their geodesic distance computed by lib/geom in each
// dtype from the same float64 coordinates (Lorentz: space components sinh(r)·u, geom.LorentzDistance;
// Poincaré: tanh(r/2)·u, geom.PoincareDistance, whose boundary clamp is geom.PoincareBoundaryEps),
// against the float64 closed form cosh d = cosh²r − sinh²r·cos φ. Each cell: median relative error,
// fraction of non-finite distances, fraction of pairs with a non-finite gradient. A final pair of rows
// does the same for HyperGRAM's hyperbolic volume of lifted unit triplets (r is then ignored).
// The findings compare, per low-precision dtype, the fraction of non-finite distances or gradients of
// the two models over all radii ("the Lorentz model is more stable than the Poincaré ball"): one set
// of random points, so they are descriptive under the claim rule.
func LowPrecision(o Options) (*report.Table, map[string]PrecisionCell, []reproduce.Claim) {
	dts := []dtypes.DType{dtypes.Float32, dtypes.Float16, dtypes.BFloat16}
	cols := []string{"geometry", "dtype"}
	for _, r := range PrecisionRadii {
		cols = append(cols, fmt.Sprintf("r = %g", r))
	}
	t := report.NewTable("Lorentz vs Poincaré in low precision: distance error · non-finite distances · non-finite gradients",
		report.Provenance{Data: fmt.Sprintf("%d random point pairs per radius, directions uniform in R^%d, seed 1", precisionPairs, precisionDim),
			Kind: report.Synthetic, Seeds: []int64{1},
			Behavior: "inputs rounded from float64 to the dtype; lib/geom computes float16/bfloat16 in float32 and rounds values and gradients back to the dtype (MERU's autocast practice; see go doc ./lib/geom, Low precision)",
			Notes: []string{
				"cell: median relative error of the finite distances · % of pairs with a NaN/∞ distance · % of pairs with a NaN/∞ gradient",
				"float16 has max 65504 and 11-bit significands; bfloat16 has float32's range and 8-bit significands",
				"V_hyp rows: HyperGRAM's volume of lifted unit triplets (π(normalize(x)), entries ≥ −3 in magnitude); columns do not apply, the value is repeated",
			}},
		cols...)
	cells := map[string]PrecisionCell{}
	for _, geo := range []string{"Lorentz", "Poincaré"} {
		for _, dt := range dts {
			row := []any{geo, dt.String()}
			for _, r := range PrecisionRadii {
				c := distanceCell(o, geo, dt, r)
				cells[fmt.Sprintf("%s/%s/%g", geo, dt, r)] = c
				row = append(row, c.String())
			}
			t.AddRow(row...)
		}
	}
	for _, dt := range dts[1:] {
		c := volumeCell(o, dt)
		cells["Vhyp/"+dt.String()] = c
		row := []any{"V_hyp (HyperGRAM, unit triplets)", dt.String()}
		for range PrecisionRadii {
			row = append(row, c.String())
		}
		t.AddRow(row...)
	}
	var findings []reproduce.Claim
	for _, dt := range dts[1:] {
		// per geometry: the mean fraction of failures, the first failing radius and the largest
		// median relative error over the radii
		bad, first, worst := map[string]float64{}, map[string]string{}, map[string]float64{}
		for _, geo := range []string{"Lorentz", "Poincaré"} {
			for _, r := range PrecisionRadii {
				c := cells[fmt.Sprintf("%s/%s/%g", geo, dt, r)]
				f := math.Max(c.NonFinite, c.NonFiniteGrad)
				if c.Unsupported != "" {
					f = 1
				}
				bad[geo] += f / float64(len(PrecisionRadii))
				if f > 0 && first[geo] == "" {
					first[geo] = fmt.Sprintf("r = %g", r)
				}
				worst[geo] = math.Max(worst[geo], c.MedianRelErr)
			}
			first[geo] = cmp.Or(first[geo], "never")
		}
		findings = append(findings, reproduce.Describe(PaperHyperGRAM,
			fmt.Sprintf("the Lorentz model is numerically more stable than the Poincaré ball in %s", dt),
			"HyperGRAM summary: Lorentz chosen because the Poincaré ball's (1 − c‖p‖²)⁻¹ is unstable in FP16 (no numbers)",
			"random point pairs (synthetic)",
			fmt.Sprintf("over r ∈ %v: non-finite distance or gradient Lorentz %.0f%%, Poincaré %.0f%% (first failure: Lorentz %s, Poincaré %s); largest median relative error Lorentz %.1e, Poincaré %.1e",
				PrecisionRadii, 100*bad["Lorentz"], 100*bad["Poincaré"], first["Lorentz"], first["Poincaré"], worst["Lorentz"], worst["Poincaré"])))
	}
	return t, cells, findings
}

// unitPairs returns n pairs of unit directions (u, v) in R^dim and cos φ = u·v.
func unitPairs(n, dim int, seed uint64) (u, v [][]float64, cosPhi []float64) {
	rng := rand.New(rand.NewPCG(seed, 0x70726563))
	unit := func() []float64 {
		x := make([]float64, dim)
		s := 0.0
		for i := range x {
			x[i] = rng.NormFloat64()
			s += x[i] * x[i]
		}
		for i := range x {
			x[i] /= math.Sqrt(s)
		}
		return x
	}
	for i := 0; i < n; i++ {
		a, b := unit(), unit()
		c := 0.0
		for j := range a {
			c += a[j] * b[j]
		}
		u, v, cosPhi = append(u, a), append(v, b), append(cosPhi, c)
	}
	return u, v, cosPhi
}

// distanceCell measures geo's distance of pairs at radius r in dt against the float64 closed form.
func distanceCell(o Options, geo string, dt dtypes.DType, r float64) PrecisionCell {
	u, v, cosPhi := unitPairs(precisionPairs, precisionDim, 1)
	scale := math.Sinh(r)
	if geo == "Poincaré" {
		scale = math.Tanh(r / 2)
	}
	scaled := func(a []float64) []float64 { return floats.ScaleTo(make([]float64, len(a)), scale, a) }
	x, y, ref := make([][]float64, len(u)), make([][]float64, len(v)), make([]float64, len(u))
	for i := range u {
		x[i], y[i] = scaled(u[i]), scaled(v[i])
		ref[i] = math.Acosh(math.Cosh(r)*math.Cosh(r) - math.Sinh(r)*math.Sinh(r)*cosPhi[i])
	}
	return measureCell(func() ([]float64, []float64, []float64) {
		got, grad := execWithGrad(o, func(x, y *graph.Node) (*graph.Node, *graph.Node) {
			c := graph.Scalar(x.Graph(), dt, 1)
			distance := geom.PoincareDistance
			if geo == "Lorentz" {
				distance = geom.LorentzDistance
			}
			d := distance(x, y, c)
			grads := graph.Gradient(graph.ReduceAllSum(d), x, y)
			return d, graph.Add(graph.ReduceSum(graph.Abs(grads[0]), -1), graph.ReduceSum(graph.Abs(grads[1]), -1))
		}, dt, x, y)
		return got, ref, grad
	})
}

// volumeCell measures HyperGRAM's V_hyp of lifted unit triplets in dt against float64.
func volumeCell(o Options, dt dtypes.DType) PrecisionCell {
	u, v, _ := unitPairs(precisionPairs, precisionDim, 2)
	w, _, _ := unitPairs(precisionPairs, precisionDim, 3)
	tuples := make([][][]float64, len(u))
	for i := range u {
		tuples[i] = [][]float64{u[i], v[i], w[i]}
	}
	volume := func(x, _ *graph.Node) (*graph.Node, *graph.Node) {
		vol := geom.HyperbolicGramVolume(x)
		return vol, graph.ReduceSum(graph.Abs(graph.Gradient(graph.ReduceAllSum(vol), x)[0]), -1, -2)
	}
	return measureCell(func() (got, ref, grad []float64) {
		ref, _ = execWithGrad(o, volume, dtypes.Float64, tuples)
		got, grad = execWithGrad(o, volume, dt, tuples)
		return got, ref, grad
	})
}

// execWithGrad runs f on the inputs (one or two) converted to dt and returns its value and gradient
// summary in float64; it panics on an error (measureCell catches it).
func execWithGrad(o Options, f func(x, y *graph.Node) (val, grad *graph.Node), dt dtypes.DType, inputs ...any) (val, grad []float64) {
	outs, err := graph.ExecOnceN(o.backend(), func(in []*graph.Node) []*graph.Node {
		x := graph.ConvertDType(in[0], dt)
		var y *graph.Node
		if len(in) > 1 {
			y = graph.ConvertDType(in[1], dt)
		}
		v, g := f(x, y)
		return []*graph.Node{graph.ConvertDType(v, dtypes.Float64), graph.ConvertDType(g, dtypes.Float64)}
	}, inputs...)
	if err != nil {
		panic(err)
	}
	return outs[0].Value().([]float64), outs[1].Value().([]float64)
}

// measureCell summarises the values of run against its reference, or records the backend's error
// when the dtype cannot run.
func measureCell(run func() (got, ref, grad []float64)) PrecisionCell {
	var got, ref, grad []float64
	if err := exceptions.TryCatch[error](func() { got, ref, grad = run() }); err != nil {
		return PrecisionCell{Unsupported: err.Error()}
	}
	var errs []float64
	bad, badGrad := 0, 0
	for i := range got {
		if math.IsNaN(got[i]) || math.IsInf(got[i], 0) {
			bad++
		} else {
			errs = append(errs, math.Abs(got[i]-ref[i])/math.Max(math.Abs(ref[i]), 1e-300))
		}
		if math.IsNaN(grad[i]) || math.IsInf(grad[i], 0) {
			badGrad++
		}
	}
	c := PrecisionCell{MedianRelErr: math.NaN(), // unless some distance is finite
		NonFinite: float64(bad) / float64(len(got)), NonFiniteGrad: float64(badGrad) / float64(len(got))}
	if len(errs) > 0 {
		slices.Sort(errs)
		c.MedianRelErr = errs[len(errs)/2]
	}
	return c
}

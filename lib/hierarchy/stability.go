package hierarchy

import (
	"fmt"
	"math"

	"github.com/geoalign/geoalign/lib/geom"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// StabilityRow is one radius of the numerical-stability measurement: how far from the true
// distance 1 the distance between two points at hyperbolic distance Radius from the origin comes
// out, in each model and dtype. The points are built exactly in float64 (closed forms), rounded to
// the dtype, and measured with lib/geom's distance, so the error includes the cost of merely
// storing the coordinates — the reason HyperGRAM gives for the Lorentz model.
type StabilityRow struct {
	Radius float64
	// Coordinate norms of a point at Radius: ‖x‖ = sinh(√c r)/√c for the hyperboloid's space
	// part, ‖p‖ = tanh(√c r/2)/√c in the ball (whose float32 value rounds to 1/√c from r ≈ 9).
	LorentzNorm, PoincareNorm float64
	// |d̂ − 1| for the pair on one ray at radii r and r+1 (radial) and for the pair at radius r
	// whose angle makes their distance 1 (tangential), by model and dtype. NaN if the computed
	// distance is not finite.
	Radial, Tangential map[string]float64 // keys "lorentz/float32", "poincare/float64", ...
	// GradNorm is ‖∂d/∂x‖ of the radial pair in float64, by model ("lorentz", "poincare"): the
	// Poincaré gradient carries the boundary factor 1/(1 − c‖p‖²) and grows like e^r, the Lorentz
	// one (space coordinates) stays bounded. GradError32 is the relative error of the float32
	// gradient against the float64 one, by model.
	GradNorm, GradError32 map[string]float64
}

// StabilityKeys are the map keys of StabilityRow, in table order.
var StabilityKeys = []string{"lorentz/float32", "lorentz/float64", "poincare/float32", "poincare/float64"}

// MeasureStability measures, for each radius, the distance error of the Lorentz and Poincaré
// models in float32 and float64 at curvature −c (2-D points; the dimension does not matter).
func MeasureStability(backend compute.Backend, radii []float64, c float64) ([]StabilityRow, error) {
	sc := math.Sqrt(c)
	n := len(radii)
	// Four points per radius, as angles and radii: x = (r, 0), radial partner (r+1, 0),
	// tangential partner (r, θ) with cosh(√c·1) = 1 + 2 sinh²(√c r) sin²(θ/2).
	type polar struct{ r, phi float64 }
	var xs, radial, tangential []polar
	rows := make([]StabilityRow, n)
	for i, r := range radii {
		half := math.Sqrt((math.Cosh(sc)-1)/2) / math.Sinh(sc*r)
		theta := 2 * math.Asin(math.Min(half, 1))
		xs = append(xs, polar{r, 0})
		radial = append(radial, polar{r + 1, 0})
		tangential = append(tangential, polar{r, theta})
		rows[i] = StabilityRow{Radius: r, LorentzNorm: math.Sinh(sc*r) / sc, PoincareNorm: math.Tanh(sc*r/2) / sc,
			Radial: map[string]float64{}, Tangential: map[string]float64{},
			GradNorm: map[string]float64{}, GradError32: map[string]float64{}}
	}
	coords := func(m Manifold, pts []polar) []float64 {
		out := make([]float64, 0, 2*len(pts))
		for _, p := range pts {
			norm := math.Tanh(sc*p.r/2) / sc
			if m == Lorentz {
				norm = math.Sinh(sc*p.r) / sc
			}
			out = append(out, norm*math.Cos(p.phi), norm*math.Sin(p.phi))
		}
		return out
	}
	for _, m := range []Manifold{Lorentz, Poincare} {
		var grads [2][]float64 // float32, float64 gradients of the radial distances
		for di, dt := range []dtypes.DType{dtypes.Float32, dtypes.Float64} {
			key := fmt.Sprintf("%s/%s", m, map[dtypes.DType]string{dtypes.Float32: "float32", dtypes.Float64: "float64"}[dt])
			for pi, partner := range [][]polar{radial, tangential} {
				d, g, err := distancesIn(backend, m, dt, c, coords(m, xs), coords(m, partner), n)
				if err != nil {
					return nil, err
				}
				if pi == 0 {
					grads[di] = g
				}
				for i := range rows {
					e := math.Abs(d[i] - 1)
					if math.IsInf(d[i], 0) || math.IsNaN(d[i]) {
						e = math.NaN()
					}
					if pi == 0 {
						rows[i].Radial[key] = e
					} else {
						rows[i].Tangential[key] = e
					}
				}
			}
		}
		for i := range rows {
			g32, g64 := grads[0][2*i:2*i+2], grads[1][2*i:2*i+2]
			norm := math.Hypot(g64[0], g64[1])
			rows[i].GradNorm[string(m)] = norm
			rows[i].GradError32[string(m)] = math.Hypot(g32[0]-g64[0], g32[1]-g64[1]) / norm
		}
	}
	return rows, nil
}

// distancesIn rounds the float64 points to dtype and returns Distance(m) between x[i] and y[i]
// and its gradient with respect to x[i] ([n·2], flat).
func distancesIn(backend compute.Backend, m Manifold, dt dtypes.DType, c float64, x, y []float64, n int) (dist, grad []float64, err error) {
	var xt, yt *tensors.Tensor
	if dt == dtypes.Float32 {
		xt, yt = tensors.FromFlatDataAndDimensions(toFloat32(x), n, 2), tensors.FromFlatDataAndDimensions(toFloat32(y), n, 2)
	} else {
		xt, yt = tensors.FromFlatDataAndDimensions(x, n, 2), tensors.FromFlatDataAndDimensions(y, n, 2)
	}
	out, err := ExecOnceN(backend, func(x, y *Node) (*Node, *Node) {
		d := Distance(m, x, y, Scalar(x.Graph(), x.DType(), c))
		return d, Gradient(ReduceAllSum(d), x)[0]
	}, xt, yt)
	if err != nil {
		return nil, nil, fmt.Errorf("hierarchy: stability %s %s: %w", m, dt, err)
	}
	return toFloat64(out[0]), toFloat64(out[1]), nil
}

// PoincareClampRadius is the distance from the origin beyond which lib/geom's Poincaré distance
// no longer sees a point move: its clamp c‖p‖² ≤ 1 − geom.PoincareBoundaryEps holds a point at
// 2·artanh(√(1 − ε))/√c from the origin, ≈ 12.9 at c = 1.
func PoincareClampRadius(c float64) float64 {
	return 2 * math.Atanh(math.Sqrt(1-geom.PoincareBoundaryEps)) / math.Sqrt(c)
}

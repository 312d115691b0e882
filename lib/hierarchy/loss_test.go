package hierarchy

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// refLoss is the softmax negative-sampling loss written directly from the papers' definition.
func refLoss(m Manifold, rows [][]float64, triples [][]int32, weights []float64, c float64) float64 {
	dist := func(x, y []float64) float64 {
		switch m {
		case Lorentz:
			return refLorentzDistance(x, y, c)
		case Poincare:
			return refPoincareDistance(x, y, c)
		}
		var s float64
		for i := range x {
			s += (x[i] - y[i]) * (x[i] - y[i])
		}
		return s
	}
	var total, wsum float64
	for b, tr := range triples {
		u := rows[tr[0]]
		var z float64
		for _, j := range tr[1:] {
			z += math.Exp(-dist(u, rows[j]))
		}
		total += weights[b] * (dist(u, rows[tr[1]]) + math.Log(z))
		wsum += weights[b]
	}
	return total / wsum
}

func TestNegativeSamplingLossAndGradientMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const nRows, dim, c = 6, 3, 1.5
	triples := [][]int32{{0, 1, 2, 3, 4}, {1, 0, 5, 2, 2}, {3, 4, 0, 1, 5}}
	weights := []float64{1, 1, 0} // the last pair is padding
	flatTriples := []int32{}
	for _, tr := range triples {
		flatTriples = append(flatTriples, tr...)
	}
	for _, m := range []Manifold{Lorentz, Poincare, Euclidean} {
		rows := make([][]float64, nRows)
		flat := []float64{}
		for i := range rows {
			rows[i] = make([]float64, dim)
			for k := range rows[i] {
				rows[i][k] = (rng.Float64() - 0.5) * 0.8 // inside the ball of radius 1/√1.5
			}
			flat = append(flat, rows[i]...)
		}
		outs := graph.MustExecOnceN(backend.MustNew(), lossAndGradient(m, c, 0),
			tensors.FromFlatDataAndDimensions(flat, nRows, dim),
			tensors.FromFlatDataAndDimensions(flatTriples, len(triples), 5),
			tensors.FromFlatDataAndDimensions(weights, len(weights)))
		loss := tensors.MustCopyFlatData[float64](outs[0])[0]
		grad := tensors.MustCopyFlatData[float64](outs[1])
		want := refLoss(m, rows, triples, weights, c)
		if math.Abs(loss-want) > 1e-12*math.Max(1, want) {
			t.Errorf("%s: loss %.15g, reference %.15g", m, loss, want)
		}
		num := numericGradient(func(f []float64) float64 {
			r := make([][]float64, nRows)
			for i := range r {
				r[i] = f[i*dim : (i+1)*dim]
			}
			return refLoss(m, r, triples, weights, c)
		}, flat)
		for i := range grad {
			if math.Abs(grad[i]-num[i]) > 1e-6 {
				t.Errorf("%s: ∂loss/∂rows[%d][%d] = %.9f, finite differences %.9f", m, i/dim, i%dim, grad[i], num[i])
			}
		}
	}
}

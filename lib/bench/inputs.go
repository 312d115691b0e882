package bench

import (
	"math"
	"math/rand/v2"

	"github.com/gomlx/gomlx/core/tensors"
)

// UnitRows returns n float32 rows of dimension d drawn from N(0, 1) and L2-normalised, [n, d]: the
// inputs of the paired volume and GRAM benchmarks (lib/geom, lib/models/gram).
func UnitRows(rng *rand.Rand, n, d int) *tensors.Tensor {
	data := make([]float32, n*d)
	for i := 0; i < n; i++ {
		row := data[i*d : (i+1)*d]
		s := 0.0
		for j := range row {
			v := rng.NormFloat64()
			row[j] = float32(v)
			s += v * v
		}
		for j := range row {
			row[j] /= float32(math.Sqrt(s))
		}
	}
	return tensors.FromFlatDataAndDimensions(data, n, d)
}

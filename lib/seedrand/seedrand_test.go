package seedrand_test

import (
	"math"
	"testing"

	"github.com/geoalign/geoalign/lib/seedrand"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/tensors"
)

// A stream is a function of (seed, path, shape) alone: the same key gives the same numbers, and
// changing any part of it gives others.
func TestStreamKey(t *testing.T) {
	first := func(seed int64, path string, dims ...int) uint64 {
		return seedrand.Stream(seed, path, dims...).Uint64()
	}
	a := first(1, "/model/linear", 3, 4)
	if b := first(1, "/model/linear", 3, 4); b != a {
		t.Fatalf("the same key gave %x and %x", a, b)
	}
	for name, b := range map[string]uint64{
		"seed":  first(2, "/model/linear", 3, 4),
		"path":  first(1, "/model/linear2", 3, 4),
		"shape": first(1, "/model/linear", 4, 3),
	} {
		if b == a {
			t.Errorf("another %s gave the same draw %x", name, a)
		}
	}
}

// NormalTensor draws N(0, std²) in row-major order, rounded to the dtype.
func TestNormalTensor(t *testing.T) {
	const std = 0.02
	shape := shapes.Make(dtypes.Float64, 200, 100)
	x := tensors.MustCopyFlatData[float64](seedrand.NormalTensor(seedrand.Stream(7, "/w", 200, 100), std, shape))
	var sum, sq float64
	for _, v := range x {
		sum += v
		sq += v * v
	}
	n := float64(len(x))
	mean, sd := sum/n, math.Sqrt(sq/n-(sum/n)*(sum/n))
	if math.Abs(mean) > 4*std/math.Sqrt(n) || math.Abs(sd/std-1) > 0.03 {
		t.Fatalf("mean %g, std %g of %g draws of N(0, %g²)", mean, sd, n, std)
	}
	f := tensors.MustCopyFlatData[float32](seedrand.NormalTensor(seedrand.Stream(7, "/w", 200, 100), std, shapes.Make(dtypes.Float32, 200, 100)))
	for i := range f {
		if f[i] != float32(x[i]) {
			t.Fatalf("float32 draw %d = %v, want the float64 draw rounded, %v", i, f[i], float32(x[i]))
		}
	}
}

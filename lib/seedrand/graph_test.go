package seedrand_test

import (
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/seedrand"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// The in-graph generator gives, on whichever backend runs the test (make test-xla runs it on XLA-CPU),
// exactly the host's Hash of every counter: the draws are the same bits on every backend.
func TestBitsMatchHostHash(t *testing.T) {
	const k0, k1, c, offset = 0xdeadbeef, 0x12345678, 7, 40
	state := tensors.FromFlatDataAndDimensions([]uint64{k0, k1, c}, 3)
	shape := shapes.Make(dtypes.Uint32, 3, 5)
	outs := graph.MustNewExec(backend.MustNew(), func(s, off *graph.Node) (*graph.Node, *graph.Node, *graph.Node) {
		next, bits := seedrand.Bits(s, off, shape)
		_, u := seedrand.Uniform(s, shapes.Make(dtypes.Float32, 3, 5))
		return next, bits, u
	}).MustExec(state, int32(offset))
	bits := tensors.MustCopyFlatData[uint32](outs[1])
	u := tensors.MustCopyFlatData[float32](outs[2])
	for i := range bits {
		if want := seedrand.Hash(k0, k1, uint32(c+offset+i)); bits[i] != want {
			t.Fatalf("bits[%d] = %08x, the host hash is %08x", i, bits[i], want)
		}
		if want := seedrand.UniformFromBits(seedrand.Hash(k0, k1, uint32(c+i))); u[i] != want {
			t.Fatalf("uniform[%d] = %v, want %v", i, u[i], want)
		}
	}
	if next := tensors.MustCopyFlatData[uint64](outs[0]); next[0] != k0 || next[1] != k1 || next[2] != c+15 {
		t.Fatalf("next state %v, want the counter advanced by 15", next)
	}
}

// The hash's uniform draws are uniform: a χ² test over 16 bins of 2^16 draws.
func TestHashUniform(t *testing.T) {
	var bins [16]float64
	const n = 1 << 16
	for i := range uint32(n) {
		bins[int(seedrand.UniformFromBits(seedrand.Hash(3, 5, i))*16)]++
	}
	chi2 := 0.0
	for _, b := range bins {
		chi2 += (b - n/16) * (b - n/16) / (n / 16)
	}
	if chi2 > 37.7 { // χ²(15) at p = 0.001
		t.Fatalf("χ² = %.1f over 16 bins", chi2)
	}
}

// A dropout mask is the host's: element i of the draw at scope /drop (first call, global step 0) is
// kept iff UniformFromBits(Hash(SiteKey(seed, "/drop#dropout0"), i)) ≥ rate, on every backend; with
// SetExampleBlock a block of rows draws the rows of the whole batch.
func TestDropoutMaskFromSeed(t *testing.T) {
	const seed, rate = 5, 0.3
	store, err := seedrand.NewStore(seed)
	if err != nil {
		t.Fatal(err)
	}
	k0, k1 := seedrand.SiteKey(seed, "/drop#dropout0")
	keep := func(i int) bool { return seedrand.UniformFromBits(seedrand.Hash(k0, k1, uint32(i))) >= rate }
	run := func(rows int, first int32) []float32 {
		exec, err := model.NewExec(backend.MustNew(), store, func(scope *model.Scope, x, start *graph.Node) *graph.Node {
			if rows > 0 {
				seedrand.SetExampleBlock(scope, x.Graph(), start, rows)
			}
			return seedrand.Dropout(scope.In("drop"), x, rate)
		})
		if err != nil {
			t.Fatal(err)
		}
		n := 6
		if rows > 0 {
			n = rows
		}
		ones := make([]float32, n*4)
		for i := range ones {
			ones[i] = 1
		}
		out, err := exec.Exec(tensors.FromFlatDataAndDimensions(ones, n, 4), first)
		if err != nil {
			t.Fatal(err)
		}
		return tensors.MustCopyFlatData[float32](out[0])
	}
	whole := run(0, 0)
	kept := 0
	for i, v := range whole {
		want := float32(0)
		if keep(i) {
			want = float32(1 / (1 - rate))
			kept++
		}
		if v != want {
			t.Fatalf("element %d = %v, want %v", i, v, want)
		}
	}
	if kept == 0 || kept == len(whole) {
		t.Fatalf("kept %d of %d", kept, len(whole))
	}
	block := run(2, 3) // rows 3 and 4 of the batch
	for i, v := range block {
		if v != whole[12+i] {
			t.Fatalf("block element %d = %v, the whole batch's row %d has %v", i, v, 3+i/4, whole[12+i])
		}
	}
}

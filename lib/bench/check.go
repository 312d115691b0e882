package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/npy"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/tensors"
)

// CheckDirEnv names the directory where a paired benchmark writes its inputs and one output when
// `make bench` checks the twins against geoalign (run.py's check pass, issue 32): the twins read the
// same inputs from there, recompute, and compare their output with ours.
const CheckDirEnv = "BENCH_CHECK_DIR"

// Checking reports whether this run is a check pass ($BENCH_CHECK_DIR is set), so a benchmark only
// copies its arrays out when they will be written.
func Checking() bool { return os.Getenv(CheckDirEnv) != "" }

// Array is one named array of a check pass: its shape and row-major data.
type Array struct {
	Name  string
	Shape []int
	F32   []float32 // exactly one of F32 and I64 is set
	I64   []int64
}

// Tensor is a float32 tensor as an Array (its data copied).
func Tensor(name string, t *tensors.Tensor) Array {
	if t.DType() != dtypes.Float32 {
		panic(fmt.Sprintf("bench.Tensor(%q): dtype %s, want float32", name, t.DType()))
	}
	data, err := tensors.CopyFlatData[float32](t)
	if err != nil {
		panic(err)
	}
	return Array{Name: name, Shape: t.Shape().Dimensions, F32: data}
}

// Floats is a float32 slice of the given shape as an Array (not copied).
func Floats(name string, data []float32, shape ...int) Array {
	return Array{Name: name, Shape: shape, F32: data}
}

// Ints is an int slice as a one-dimensional int64 Array (ranks, indices).
func Ints(name string, data []int) Array {
	out := make([]int64, len(data))
	for i, v := range data {
		out[i] = int64(v)
	}
	return Array{Name: name, Shape: []int{len(data)}, I64: out}
}

// Dump writes every array as <name>.npy under $BENCH_CHECK_DIR/<benchmark>/, where <benchmark> is
// tb's name without the "BenchmarkPaired" prefix and sub-benchmark suffixes; nothing when not Checking.
// The twin of the benchmark (lib/bench/torch, lib/bench/jax) reads its inputs from the same directory.
func Dump(tb testing.TB, arrays ...Array) {
	root := os.Getenv(CheckDirEnv)
	if root == "" {
		return
	}
	name := strings.TrimPrefix(strings.SplitN(tb.Name(), "/", 2)[0], "BenchmarkPaired")
	name = strings.SplitN(name, "-", 2)[0]
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	for _, a := range arrays {
		path := filepath.Join(dir, a.Name+".npy")
		var err error
		if a.I64 != nil {
			err = npy.WriteFile(path, a.Shape, a.I64)
		} else {
			err = npy.WriteFile(path, a.Shape, a.F32)
		}
		if err != nil {
			tb.Fatalf("bench check dump %s: %v", path, err)
		}
	}
}

package backend

import (
	"os"
	"runtime/debug"
	"testing"

	"github.com/gomlx/gomlx/core/graph"
)

func TestBackendRunsAGraph(t *testing.T) {
	b := MustNew()
	got := graph.MustExecOnce(b, func(x *graph.Node) *graph.Node {
		return graph.ReduceAllSum(graph.Mul(x, x))
	}, []float64{1, 2, 3})
	if v := got.Value().(float64); v != 14 {
		t.Fatalf("sum of squares = %v, want 14", v)
	}
}

func TestDescribeReportsConfigAndSIMD(t *testing.T) {
	info, err := Describe()
	if err != nil {
		t.Fatal(err)
	}
	if info.Config != os.Getenv("GOMLX_BACKEND") || info.Name == "" {
		t.Fatalf("unexpected info %+v", info)
	}
	// The project builds every package with GOEXPERIMENT=simd (Makefile, kernel spec, CI).
	// A build without it would silently be 15-35x slower: make that a failure when the
	// environment says SIMD was requested.
	if os.Getenv("GOEXPERIMENT") == "simd" && !info.SIMD {
		t.Fatalf("GOEXPERIMENT=simd in the environment but the binary was built without it")
	}
	t.Log(info)
}

func TestMemTotal(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/meminfo"
	if err := os.WriteFile(path, []byte("MemFree:  100 kB\nMemTotal:       24576000 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := memTotal(path)
	if err != nil || got != 24576000*1024 {
		t.Fatalf("memTotal = %d, %v; want %d", got, err, 24576000*1024)
	}
	if err := os.WriteFile(path, []byte("MemFree: 1 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := memTotal(path); err == nil {
		t.Error("memTotal accepted a file without MemTotal")
	}
}

func TestHeapLimit(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	if got := applyHeapLimit("xla"); got != 0 {
		t.Errorf("XLA backend: limit %d set, want none", got)
	}
	if _, ok := os.LookupEnv("GOMEMLIMIT"); ok {
		t.Skip("GOMEMLIMIT is set: New leaves the limit alone")
	}
	total, err := memTotal("/proc/meminfo")
	if err != nil {
		t.Skip("no /proc/meminfo here")
	}
	got := applyHeapLimit("go")
	if want := int64(float64(total) * HeapLimitFraction); got != want || debug.SetMemoryLimit(-1) != want {
		t.Errorf("Go backend: limit %d (runtime %d), want %d", got, debug.SetMemoryLimit(-1), want)
	}
}

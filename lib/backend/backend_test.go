package backend

import (
	"os"
	"strings"
	"testing"

	"github.com/gomlx/compute"
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

// IsXLA follows GOMLX_BACKEND: true for "xla:…" (make test-xla), false for "go" (make test).
func TestIsXLAFollowsGOMLXBackend(t *testing.T) {
	want := strings.HasPrefix(os.Getenv("GOMLX_BACKEND"), "xla")
	if got := IsXLA(); got != want {
		t.Fatalf("IsXLA() = %v with GOMLX_BACKEND=%q", got, os.Getenv("GOMLX_BACKEND"))
	}
}

// cudaBackend stands for an XLA backend on a CUDA plugin: OnGPU only asks IsCUDA.
type cudaBackend struct {
	compute.Backend
	cuda bool
}

func (c cudaBackend) IsCUDA() bool { return c.cuda }

func TestOnGPU(t *testing.T) {
	if cuda := strings.Contains(strings.ToUpper(os.Getenv("GOMLX_BACKEND")), "CUDA"); OnGPU(MustNew()) != cuda {
		t.Errorf("OnGPU(%s) = %v", MustNew().Name(), !cuda)
	}
	if !OnGPU(cudaBackend{cuda: true}) || OnGPU(cudaBackend{cuda: false}) {
		t.Error("OnGPU does not follow the backend's IsCUDA")
	}
}

// A GOMLX_BACKEND that names no registered backend is an error naming the valid ones (GoMLX's own
// compute.New panics on it).
func TestUnknownBackendNameIsAnError(t *testing.T) {
	err := checkName("bogus")
	want := `GOMLX_BACKEND="bogus" names no backend of this build: the valid backends are `
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "are go, ") || !strings.Contains(err.Error(), ", xla (") {
		t.Errorf("checkName(bogus) = %v, want an error starting %q and listing go and xla", err, want)
	}
	for _, ok := range []string{"go", "xla:cpu", "xla:/some/plugin.so"} {
		if err := checkName(ok); err != nil {
			t.Errorf("checkName(%q) = %v", ok, err)
		}
	}
}

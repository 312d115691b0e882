package xlacache_test

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/core/graph"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/backend/xlacache"
)

func skipUnlessXLA(t *testing.T) {
	t.Helper()
	if !backend.IsXLA() {
		t.Skip("the compile cache is XLA's (make test-xla runs this); the Go backend compiles nothing")
	}
}

// program is a small graph; offset makes distinct programs (it is a constant of the graph).
func program(offset float32) func(x *graph.Node) *graph.Node {
	return func(x *graph.Node) *graph.Node {
		return graph.ReduceAllSum(graph.Tanh(graph.AddScalar(graph.Mul(x, x), float64(offset))))
	}
}

func run(t *testing.T, offset float32) float32 {
	t.Helper()
	exec := graph.MustNewExec(backend.MustNew(), program(offset))
	defer exec.Finalize()
	return exec.MustExec1([]float32{1, 2, 3}).Value().(float32)
}

// A second Exec of the same program in one process compiles nothing: it is loaded from the
// executable the first one compiled, and computes the same.
func TestSecondExecCompilesNothing(t *testing.T) {
	skipUnlessXLA(t)
	t.Setenv(xlacache.DirEnv, xlacache.Off)
	xlacache.ForgetProcess() // as if the process had just started (go test -count=2)
	before := xlacache.Read()
	first := run(t, 0.25)
	mid := xlacache.Read()
	second := run(t, 0.25)
	after := xlacache.Read()
	if d := mid.Sub(before); d.Compiles != 1 || d.Reuses != 0 {
		t.Fatalf("first Exec: %v, want 1 compiled", d)
	}
	if d := after.Sub(mid); d.Compiles != 0 || d.Reuses != 1 {
		t.Fatalf("second Exec: %v, want 0 compiled, 1 reused", d)
	}
	if first != second {
		t.Fatalf("the reused executable computes %v, the compiled one %v", second, first)
	}
	t.Logf("first: %v; second: %v", mid.Sub(before), after.Sub(mid))
}

// helperEnv makes TestMain's child process compile the test program and print its counters.
const helperEnv = "XLACACHE_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		exec := graph.MustNewExec(backend.MustNew(), program(0.5))
		v := exec.MustExec1([]float32{1, 2, 3}).Value().(float32)
		json.NewEncoder(os.Stdout).Encode(struct {
			Stats xlacache.Stats
			Value float32
		}{xlacache.Read(), v})
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// child runs this test binary as a new process on the persistent cache dir and returns what its
// compilation did.
func child(t *testing.T, dir string) (xlacache.Stats, float32) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1", xlacache.DirEnv+"="+dir,
		xlacache.LogEnv+"="+filepath.Join(filepath.Dir(dir), "events.log"))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child process: %v", err)
	}
	var got struct {
		Stats xlacache.Stats
		Value float32
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("child process printed %q: %v", out, err)
	}
	return got.Stats, got.Value
}

// A second process loads the program the first compiled from the persistent cache; a damaged
// entry is not trusted: it is ignored, the program compiled again, the entry rewritten.
func TestSecondProcessLoadsAndDamageIsRebuilt(t *testing.T) {
	skipUnlessXLA(t)
	dir := t.TempDir()
	first, v1 := child(t, dir)
	if first.Compiles == 0 || first.Loads != 0 {
		t.Fatalf("first process, empty cache: %v", first)
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "*.xla"))
	if len(entries) != first.Compiles {
		t.Fatalf("%d entries in the cache after %d compilations", len(entries), first.Compiles)
	}
	second, v2 := child(t, dir)
	if second.Compiles != 0 || second.Loads != first.Compiles || v2 != v1 {
		t.Fatalf("second process: %v, value %v (first %v)", second, v2, v1)
	}
	t.Logf("first process: %v; second: %v", first, second)

	for i, path := range entries { // flip a byte in the middle of each entry; cut the last short
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if i == len(entries)-1 && len(entries) > 1 {
			b = b[:len(b)/2]
		} else {
			b[len(b)/2] ^= 0xff
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	third, v3 := child(t, dir)
	if third.Compiles != first.Compiles || third.Rejected != len(entries) || third.Loads != 0 || v3 != v1 {
		t.Fatalf("damaged cache: %v, value %v, want every program compiled again", third, v3)
	}
	fourth, _ := child(t, dir)
	if fourth.Compiles != 0 || fourth.Loads != first.Compiles {
		t.Fatalf("after the rebuild: %v, want every program loaded", fourth)
	}

	// The event log of the four processes says the same.
	b, err := os.ReadFile(filepath.Join(filepath.Dir(dir), "events.log"))
	if err != nil {
		t.Fatal(err)
	}
	events := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		event, _, _ := strings.Cut(line, "\t")
		events[event]++
	}
	want := map[string]int{"compiled": 2 * first.Compiles, "stored": 2 * first.Compiles, "loaded": 2 * first.Compiles,
		"rejected": len(entries)}
	if !maps.Equal(events, want) {
		t.Errorf("event log %v, want %v", events, want)
	}
}

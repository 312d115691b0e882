package train

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/backend/xlacache"
)

// historyXLA sums the xla counters of a run's history.json.
func historyXLA(t *testing.T, dir string) (sum xlacache.Stats) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	var records []struct {
		XLA *xlacache.Stats `json:"xla"`
	}
	if err := json.Unmarshal(b, &records); err != nil {
		t.Fatal(err)
	}
	for _, r := range records {
		if r.XLA != nil {
			sum.Compiles += r.XLA.Compiles
			sum.CompileSeconds += r.XLA.CompileSeconds
			sum.Reuses += r.XLA.Reuses
			sum.Loads += r.XLA.Loads
		}
	}
	return sum
}

// Training the same configuration twice in one process on XLA, the second run compiles nothing: it
// reuses every program the first compiled (docs/xla.md §5). The counters come from each run's
// history.json.
func TestSecondRunCompilesNothing(t *testing.T) {
	if !backend.IsXLA() {
		t.Skip("XLA's compile cache (make test-xla runs this); the Go backend compiles nothing")
	}
	t.Setenv(xlacache.DirEnv, xlacache.Off) // this process's memory only
	xlacache.ForgetProcess()                // as if the process had just started
	first, second := t.TempDir(), t.TempDir()
	a, _ := runToy(t, toyConfig(first))
	b, _ := runToy(t, toyConfig(second))
	if len(a.Records) != len(b.Records) || a.Best.Val["mse"] != b.Best.Val["mse"] {
		t.Fatalf("the two runs differ: %+v vs %+v", a.Best, b.Best)
	}
	x, y := historyXLA(t, first), historyXLA(t, second)
	if x.Compiles == 0 {
		t.Fatalf("first run: %v, want programs compiled", x)
	}
	if y.Compiles != 0 || y.Reuses != x.Compiles {
		t.Fatalf("second run: %v, want 0 compiled and the first run's %d reused", y, x.Compiles)
	}
	t.Logf("first run: %v; second run: %v", x, y)
}

// A store restored from a checkpoint holds its variables in path order, whatever the order they
// were created in: the order of a store's variables is the order of a program's parameters and
// outputs, so any other order would make each restore a new program for XLA's compile cache.
func TestRestoredStoreIsInPathOrder(t *testing.T) {
	store := model.NewStore()
	var want []string
	for i := 19; i >= 0; i-- { // created in reverse path order
		path := fmt.Sprintf("/v%02d", i)
		if _, err := store.CreateVariable(path, tensors.FromValue([]float32{float32(i)})); err != nil {
			t.Fatal(err)
		}
		want = append(want, path)
	}
	slices.Sort(want)
	dir := t.TempDir()
	ckpt, _, err := OpenCheckpoints(store, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := ckpt.Save(dir, 1, 1); err != nil {
		t.Fatal(err)
	}
	restored, err := LoadStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for v := range restored.IterVariables() {
		got = append(got, v.Path())
	}
	got = slices.DeleteFunc(got, func(p string) bool { return p == "/global_step" }) // Save adds it
	if !slices.Equal(got, want) {
		t.Fatalf("restored in the order %v", got)
	}
}

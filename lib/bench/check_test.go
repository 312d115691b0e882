package bench

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/geoalign/geoalign/lib/npy"
	"github.com/gomlx/gomlx/core/tensors"
)

// TestDump: a check pass writes each array as <name>.npy under $BENCH_CHECK_DIR/<benchmark>/, with its
// shape and data, and nothing at all when the variable is unset.
func TestDump(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(CheckDirEnv, "")
	Dump(t, Floats("x", []float32{1, 2}, 2))
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("Dump wrote %d entries with %s unset", len(entries), CheckDirEnv)
	}

	t.Setenv(CheckDirEnv, dir)
	x := tensors.FromFlatDataAndDimensions([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	Dump(t, Tensor("x", x), Ints("ranks", []int{3, 1, 2}), Floats("tau", []float32{0.07}))

	f, err := npy.Open(filepath.Join(dir, t.Name(), "x.npy"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if rows, cols, err := f.Matrix(); err != nil || rows != 2 || cols != 3 {
		t.Fatalf("x.npy: %d×%d (%v), want 2×3", rows, cols, err)
	}
	got, err := npy.ReadAll[float32](f)
	if err != nil || !slices.Equal(got, []float32{1, 2, 3, 4, 5, 6}) {
		t.Fatalf("x.npy data %v (%v)", got, err)
	}
	g, err := npy.Open(filepath.Join(dir, t.Name(), "ranks.npy"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ranks, err := npy.ReadAll[int64](g)
	if err != nil || !slices.Equal(ranks, []int64{3, 1, 2}) {
		t.Fatalf("ranks.npy %v (%v)", ranks, err)
	}
}

package npz

import (
	"archive/zip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteReadRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.npz")
	err := Write(p, []Array{{"text", []int{2, 3}, []float32{1, 2, 3, 4, 5, 6}}, {"gt", []int{2}, []int64{1, 0}}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(a.Names()) != "[gt text]" {
		t.Fatalf("names %v", a.Names())
	}
	x, shape, err := Read[float32](a, "text")
	if err != nil || shape[0] != 2 || shape[1] != 3 || x[5] != 6 {
		t.Fatalf("%v %v %v", x, shape, err)
	}
	if _, _, err := Read[float32](a, "missing"); err == nil || !strings.Contains(err.Error(), `no array "missing"`) {
		t.Fatalf("missing: %v", err)
	}
}

func TestBadMembers(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bad.npz")
	f, _ := os.Create(p)
	zw := zip.NewWriter(f)
	w, _ := zw.Create("x.npy")
	w.Write([]byte("\x93NUMPY\x01\x00garbage"))
	zw.Close()
	f.Close()
	a, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.File("x"); err == nil || !strings.Contains(err.Error(), "bad.npz:x.npy") {
		t.Fatalf("garbage member: %v", err)
	}
	os.WriteFile(p, []byte("not a zip"), 0o644)
	if _, err := Open(p); err == nil || !strings.Contains(err.Error(), "bad.npz") {
		t.Fatalf("not a zip: %v", err)
	}
}

// TestNumPyCompressed reads an np.savez_compressed archive written by NumPy itself (skipped where
// /usr/bin/python3 has no numpy).
func TestNumPyCompressed(t *testing.T) {
	if exec.Command("/usr/bin/python3", "-c", "import numpy").Run() != nil {
		t.Skip("no numpy")
	}
	p := filepath.Join(t.TempDir(), "np.npz")
	script := `import numpy as np, sys
np.savez_compressed(sys.argv[1], a=np.arange(6, dtype=np.float32).reshape(2, 3) / 4, b=np.array([7, 8], dtype=np.int64))`
	if out, err := exec.Command("/usr/bin/python3", "-c", script, p).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	a, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	x, _, err := Read[float32](a, "a")
	if err != nil || x[5] != 1.25 {
		t.Fatalf("a = %v %v", x, err)
	}
	b, _, err := Read[int64](a, "b")
	if err != nil || b[1] != 8 {
		t.Fatalf("b = %v %v", b, err)
	}
}

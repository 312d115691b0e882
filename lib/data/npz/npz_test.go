package npz

import (
	"archive/zip"
	"fmt"
	"os"
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

// The NumPy-written archives of testdata hold a = arange(6).reshape(2, 3)/4 and b = [7, 8].
func TestNumPyFixtures(t *testing.T) {
	for _, name := range []string{"savez.npz", "savez_compressed.npz"} {
		a, err := Open(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		x, shape, err := Read[float32](a, "a")
		if err != nil || len(shape) != 2 || shape[0] != 2 || shape[1] != 3 {
			t.Fatalf("%s: a = %v %v %v", name, x, shape, err)
		}
		for i, v := range x {
			if v != float32(i)/4 {
				t.Fatalf("%s: a[%d] = %v, want %v", name, i, v, float32(i)/4)
			}
		}
		if b, _, err := Read[int64](a, "b"); err != nil || len(b) != 2 || b[0] != 7 || b[1] != 8 {
			t.Fatalf("%s: b = %v %v", name, b, err)
		}
	}
}

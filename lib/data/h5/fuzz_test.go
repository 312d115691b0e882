package h5

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// FuzzOpen feeds corrupted files to the reader: it must return errors, never panic, loop or
// allocate beyond the file size. Seeds are small (a 2 KB file of this package's writer and the
// head of the libhdf5 fixture) so the fuzzer can mutate them quickly.
func FuzzOpen(f *testing.F) {
	p := filepath.Join(f.TempDir(), "seed.h5")
	w, err := Create(p)
	if err != nil {
		f.Fatal(err)
	}
	for i := 0; i < 12; i++ {
		w.WriteFloat32(fmt.Sprintf("v%d#enc#0", i), []int{1, 2}, []float32{float32(i), 1})
	}
	if err := w.Close(); err != nil {
		f.Fatal(err)
	}
	small, _ := os.ReadFile(p)
	fixture, err := os.ReadFile("testdata/h5py_300.h5")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(small)
	f.Add(fixture[:4096])
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "f.h5")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		h, err := Open(p)
		if err != nil {
			return
		}
		defer h.Close()
		for _, n := range h.Names() {
			h.ReadFloat32(n)
		}
	})
}

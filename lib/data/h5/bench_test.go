package h5

import (
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkReadAllTokenFeatures reads every dataset of a Charades-STA-sized file (16,128 captions
// of ~8×100 float32), the load the PRVR track does.
func BenchmarkReadAllTokenFeatures(b *testing.B) {
	path := filepath.Join(b.TempDir(), "q.hdf5")
	w, _ := Create(path)
	data := make([]float32, 8*100)
	for i := 0; i < 16128; i++ {
		if err := w.WriteFloat32(fmt.Sprintf("V%05d#enc#%d", i/3, i%3), []int{8, 100}, data); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		f, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range f.Names() {
			if _, _, err := f.ReadFloat32(n); err != nil {
				b.Fatal(err)
			}
		}
		f.Close()
	}
}

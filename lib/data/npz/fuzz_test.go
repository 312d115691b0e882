package npz

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/npy"
)

// FuzzNewReader opens any bytes as an .npz, in memory, and reads every member as its dtype: the
// result is arrays or an error naming the archive, never a panic or an allocation beyond what the
// archive holds. Seeds: archives NumPy wrote (testdata/gen.py, stored and deflated) and one of Write.
func FuzzNewReader(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.npz")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	p := filepath.Join(f.TempDir(), "w.npz")
	if err := Write(p, []Array{{"x", []int{2}, []float64{1, -1}}, {"i", []int{1}, []int32{3}}}); err != nil {
		f.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := NewReader(bytes.NewReader(data), int64(len(data)), "fuzz.npz")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.npz") {
				t.Fatalf("error does not name the archive: %v", err)
			}
			return
		}
		for _, name := range a.Names() {
			nf, err := a.File(name)
			if err != nil {
				continue
			}
			switch nf.Header.Dtype {
			case npy.Float32:
				_, _, err = Read[float32](a, name)
			case npy.Float64:
				_, _, err = Read[float64](a, name)
			case npy.Int32:
				_, _, err = Read[int32](a, name)
			case npy.Int64:
				_, _, err = Read[int64](a, name)
			}
			if err != nil && !strings.Contains(err.Error(), "fuzz.npz:"+name) {
				t.Fatalf("error does not name the member: %v", err)
			}
		}
	})
}

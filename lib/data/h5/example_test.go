package h5_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/data/h5"
)

func Example() {
	dir, _ := os.MkdirTemp("", "h5")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "roberta_charades_query_feat.hdf5")
	w, _ := h5.Create(path)
	// Token features of caption "3MSZA#enc#0": 2 tokens × 3 dims.
	_ = w.WriteFloat32("3MSZA#enc#0", []int{2, 3}, []float32{1, 0, 0, 0, 1, 0})
	_ = w.Close()

	f, err := h5.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	data, shape, _ := f.ReadFloat32("3MSZA#enc#0")
	fmt.Println(f.Names(), shape, data)
	// Output: [3MSZA#enc#0] [2 3] [1 0 0 0 1 0]
}

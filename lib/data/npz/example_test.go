package npz_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/data/npz"
)

func Example() {
	dir, _ := os.MkdirTemp("", "npz")
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "feats.npz")
	_ = npz.Write(p, []npz.Array{{Name: "text", Shape: []int{2, 2}, Data: []float32{1, 0, 0, 1}}})
	a, _ := npz.Open(p)
	x, shape, _ := npz.Read[float32](a, "text")
	fmt.Println(a.Names(), shape, x)
	// Output: [text] [2 2] [1 0 0 1]
}

package bigfile_test

import (
	"fmt"
	"os"

	"github.com/geoalign/geoalign/lib/data/bigfile"
)

func Example() {
	dir, _ := os.MkdirTemp("", "bigfile")
	defer os.RemoveAll(dir)
	// Two frames of video "v1", 3-d features.
	_ = bigfile.Write(dir, []string{"v1_0", "v1_1"}, 3, []float32{1, 0, 0, 0, 1, 0})
	b, err := bigfile.Open(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	rows, _ := b.Read([]string{"v1_1"})
	fmt.Println(b.Len(), b.Dim, rows)
	v2f, _ := bigfile.ParseVideo2Frames("{'v1': ['v1_0', 'v1_1']}")
	fmt.Println(v2f["v1"])
	// Output:
	// 2 3 [0 1 0]
	// [v1_0 v1_1]
}

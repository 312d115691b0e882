package featdir_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/geoalign/geoalign/lib/data/featdir"
)

// A GRAM tuple directory as a Python script would write it (here from Go), read back.
func ExampleLoadTuples() {
	dir, _ := os.MkdirTemp("", "tuples")
	defer os.RemoveAll(dir)
	d := &featdir.Tuples{
		IDs:        []string{"a", "b", "c", "d", "e", "f", "g", "h"},
		Modalities: []string{"text", "video", "audio"},
		Dims:       []int{2, 3, 1},
		Features:   [][]float32{make([]float32, 16), make([]float32, 24), make([]float32, 8)},
		Splits:     featdir.Splits{Train: []int{0, 1, 2, 3, 4, 5}, Test: []int{6, 7}}, // no val.txt
	}
	if err := featdir.WriteTuples(dir, d); err != nil {
		fmt.Println(err)
		return
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	fmt.Println(strings.Join(names, " "))
	got, err := featdir.LoadTuples(dir, 0.3)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(got.Modalities, got.Dims, filepath.Base(got.Dir) != "")
	fmt.Println(got.Splits.Note)
	// Output:
	// audio.npy ids.txt modalities.txt test.txt text.npy train.txt video.npy
	// [text video audio] [2 3 1] true
	// no val.txt: validation = 2 of the 6 training items (fraction 0.3, fixed choice), trained on the other 4
}

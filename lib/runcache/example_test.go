package runcache_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/runcache"
)

// The run directory of one GRAM run: its key covers the configuration, the data, the seed and the
// source of the model and training packages; spec.json beside the checkpoints says what it is.
func ExampleOpen() {
	config := map[string]any{"geometry": "euclidean", "epochs": 20, "scale": map[string]int{"train": 1000}}
	spec, err := runcache.NewSpec("gram", config, "sha256 of the track manifest", 1,
		runcache.Module+"/lib/models/gram", runcache.Module+"/lib/train")
	if err != nil {
		panic(err)
	}
	root, _ := os.MkdirTemp("", "runs")
	defer os.RemoveAll(root)
	dir, err := runcache.Open(root, spec)
	if err != nil {
		panic(err)
	}
	rel, _ := filepath.Rel(root, dir)
	_, statErr := os.Stat(filepath.Join(dir, runcache.SpecFile))
	fmt.Println(filepath.Dir(rel), len(filepath.Base(rel)), statErr == nil, string(spec.Config))
	// Output: gram 64 true {"epochs":20,"geometry":"euclidean","scale":{"train":1000}}
}

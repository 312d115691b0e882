package synth_test

import (
	"fmt"

	"github.com/geoalign/geoalign/lib/data/synth"
)

func ExampleGenerateTriModal() {
	tm, err := synth.GenerateTriModal(synth.TriModalConfig{
		Seed: 1, Depth: 3, Branching: 4, LatentDim: 16, LevelDecay: 0.6,
		Dims: [3]int{32, 32, 32}, N: 1000,
		RichnessLevels: 2, Gap: 1, Noise: [3]float64{0.05, 0.05, 0.2}, UninformativeAudio: 0.1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tm.N, len(tm.Hierarchy.Leaves), len(tm.Text)/tm.N)
	// Output: 1000 64 32
}

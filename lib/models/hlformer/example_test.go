package hlformer_test

import (
	"fmt"

	"github.com/geoalign/geoalign/lib/models/hlformer"
)

// The code's Gaussian mask on 5 positions with width 2: each row is 1 at the column nearest to its
// centre i/5 (columns at j/4) and decays with the normalised distance (σ = 2/9).
func ExampleGaussianMask() {
	for _, row := range hlformer.GaussianMask(5, 2, hlformer.MaskCode) {
		fmt.Printf("%.2f\n", row)
	}
	// Output:
	// [1.00 0.53 0.08 0.00 0.00]
	// [0.68 1.00 0.41 0.05 0.00]
	// [0.22 0.88 1.00 0.32 0.03]
	// [0.03 0.32 1.00 0.88 0.22]
	// [0.00 0.05 0.41 1.00 0.68]
}

// The official Charades-STA model and the configuration trained on this CPU.
func ExamplePaperConfig() {
	paper := hlformer.PaperConfig(1024, 1024)
	cpu := hlformer.CPUConfig(257, 100)
	fmt.Println(paper.Dim, paper.LorentzDim, paper.Branches(), paper.Aggregation, paper.BranchTemperature)
	fmt.Println(cpu.Dim, cpu.LorentzDim, cpu.EuclideanOnly().Branches(), len(cpu.EuclideanOnly().LorentzWidths))
	bad := paper
	bad.LorentzDim = 126 // 127 coordinates are not divisible by 4 heads
	fmt.Println(bad.Validate())
	// Output:
	// 384 127 8 MAIM 0.6
	// 64 31 8 0
	// hlformer: bad config: LorentzDim+1 = 127 must be divisible by Heads = 4 with at least 2 coordinates per head
}

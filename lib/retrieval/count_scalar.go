//go:build !(goexperiment.simd && amd64)

package retrieval

// Without GOEXPERIMENT=simd on amd64 the scalar loops do all the counting.

func countAboveBelowF32(row []float32, v float32) (above, below int, ok bool) { return 0, 0, false }

func countColumnsF32(row, best []float32, greater, atLeast []int32) bool { return false }

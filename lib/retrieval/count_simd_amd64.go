//go:build goexperiment.simd && amd64

package retrieval

import (
	"math/bits"
	"simd/archsimd"
)

// useAVX512: the float32 counting loops compare 16 scores per instruction (VCMPPS on
// AVX-512, 4–6× the scalar loop; the whole-row scan then runs at memory bandwidth).
// Machines without AVX-512, and builds without GOEXPERIMENT=simd, use the scalar loops.
var useAVX512 = archsimd.X86.AVX512()

// countAboveBelowF32 is countAboveBelow for float32 rows. NaN compares false either
// way, as in the scalar loop.
func countAboveBelowF32(row []float32, v float32) (above, below int, ok bool) {
	if !useAVX512 {
		return 0, 0, false
	}
	vv := archsimd.BroadcastFloat32x16(v)
	j := 0
	for ; j+16 <= len(row); j += 16 {
		x := archsimd.LoadFloat32x16(row[j:])
		above += bits.OnesCount16(x.Greater(vv).ToBits())
		below += bits.OnesCount16(x.Less(vv).ToBits())
	}
	a, b := countAboveBelowScalar(row[j:], v)
	return above + a, below + b, true
}

// countColumnsF32 is countColumns for float32 rows: a true mask lane is -1, so
// subtracting the mask adds 1 where the comparison holds.
func countColumnsF32(row, best []float32, greater, atLeast []int32) bool {
	if !useAVX512 {
		return false
	}
	n := len(row)
	j := 0
	for ; j+16 <= n; j += 16 {
		x := archsimd.LoadFloat32x16(row[j:])
		b := archsimd.LoadFloat32x16(best[j:])
		archsimd.LoadInt32x16(greater[j:]).Sub(x.Greater(b).ToInt32x16()).Store(greater[j:])
		archsimd.LoadInt32x16(atLeast[j:]).Sub(x.GreaterEqual(b).ToInt32x16()).Store(atLeast[j:])
	}
	countColumnsScalar(row[j:], best[j:n], greater[j:n], atLeast[j:n])
	return true
}

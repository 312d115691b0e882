package prvr

import (
	"math"
)

// Constants of the official data provider (HLF:src/Configs/{tvr,act,cha}.py, data_provider.py).
const (
	// ClipCount is map_size: the number of clip-level segments per video.
	ClipCount = 32
	// MaxFrames is max_ctx_l: frame sequences longer than this are down-sampled to it.
	MaxFrames = 128
	// MaxQueryTokens is max_desc_l: query token sequences are truncated to it (after
	// normalisation). The HLFormer paper says 64 for ActivityNet; the code uses 30 for all three.
	MaxQueryTokens = 30
	// NormEps is added to the L2 norm before dividing (l2_normalize_np_array, eps=1e-5), so an
	// all-zero row stays zero instead of becoming NaN.
	NormEps = 1e-5
)

// segmentBounds returns the m+1 segment boundaries round(i·n/m), round half to even as
// torch.round / np.round do, capped at n−1 (average_to_fixed_length, uniform_feature_sampling).
func segmentBounds(n, m int) []int {
	b := make([]int, m+1)
	for i := range b {
		v := int(math.RoundToEven(float64(i) / float64(m) * float64(n)))
		b[i] = min(v, n-1)
	}
	return b
}

// segmentAverage averages the n×d rows x into m rows over segmentBounds(n, m); a segment whose
// start is not before its end copies the row at its start.
func segmentAverage(x []float32, n, d, m int) []float32 {
	b := segmentBounds(n, m)
	out := make([]float32, m*d)
	acc := make([]float64, d)
	for i := 0; i < m; i++ {
		s, e := b[i], b[i+1]
		dst := out[i*d : (i+1)*d]
		if s >= e {
			copy(dst, x[s*d:(s+1)*d])
			continue
		}
		clear(acc)
		for r := s; r < e; r++ {
			for j, v := range x[r*d : (r+1)*d] {
				acc[j] += float64(v)
			}
		}
		inv := 1 / float64(e-s)
		for j := range dst {
			dst[j] = float32(acc[j] * inv)
		}
	}
	return out
}

// AverageToFixedLength pools the n×d frame features x into m segments (official
// average_to_fixed_length with map_size = m). n must be ≥ 1.
func AverageToFixedLength(x []float32, n, d, m int) []float32 {
	return segmentAverage(x, n, d, m)
}

// UniformSample down-samples the n×d frame features x to at most maxLen rows by segment averaging
// (official uniform_feature_sampling); shorter inputs are returned unchanged (a copy). It returns
// the rows and their count.
func UniformSample(x []float32, n, d, maxLen int) ([]float32, int) {
	if n <= maxLen {
		return append([]float32(nil), x[:n*d]...), n
	}
	return segmentAverage(x, n, d, maxLen), maxLen
}

// L2NormalizeRows divides every d-wide row of x, in place, by its L2 norm plus NormEps.
func L2NormalizeRows(x []float32, d int) {
	for r := 0; r+d <= len(x); r += d {
		row := x[r : r+d]
		var ss float64
		for _, v := range row {
			ss += float64(v) * float64(v)
		}
		inv := 1 / (math.Sqrt(ss) + NormEps)
		for j, v := range row {
			row[j] = float32(float64(v) * inv)
		}
	}
}

// ProcessVideo turns the n×d raw frame features of one video into the model inputs of the
// official provider: ClipCount×d normalised clip features and ≤ MaxFrames normalised frame
// features (returned with their count).
func ProcessVideo(frames []float32, n, d int) (clips, sampled []float32, nSampled int) {
	clips = AverageToFixedLength(frames, n, d, ClipCount)
	L2NormalizeRows(clips, d)
	sampled, nSampled = UniformSample(frames, n, d, MaxFrames)
	L2NormalizeRows(sampled, d)
	return clips, sampled, nSampled
}

// ProcessQuery normalises the n×d raw token features of one query and truncates them to
// MaxQueryTokens rows (official TxtDataSet4PRVR order: normalise, then truncate).
func ProcessQuery(tokens []float32, n, d int) ([]float32, int) {
	k := min(n, MaxQueryTokens)
	out := append([]float32(nil), tokens[:k*d]...)
	L2NormalizeRows(out, d)
	return out, k
}

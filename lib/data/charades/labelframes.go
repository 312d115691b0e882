package charades

import (
	"fmt"
	"math"
)

// FrameRate is the rate (frames per second) at which label-derived frame features are sampled:
// 2 fps gives ≈ 60 frames for the average 30 s Charades video, more than the 32 clips (so every
// clip is a real average, not a copied frame) and under the 128-frame cap for all but the longest
// videos. Our choice; the I3D features of the papers have their own rate.
const FrameRate = 2.0

// LabelFrameDim is the dimension of a label-derived frame feature for class vectors of size d:
// NumClasses multi-hot entries followed by d entries of mean class-name vector.
func LabelFrameDim(d int) int { return NumClasses + d }

// LabelFrames returns the label-derived frame features of v at fps frames per second:
// n = max(1, ceil(Length·fps)) frames; frame k covers [k/fps, (k+1)/fps) and a class is active in
// it when one of its annotated intervals overlaps that window. Row k is
// [multi-hot over NumClasses (1 for active) | mean of classVecs over the active classes]
// (zeros when no class is active). classVecs has NumClasses rows of equal length d.
func LabelFrames(v Video, classVecs [][]float32, fps float64) ([]float32, int, error) {
	if len(classVecs) != NumClasses {
		return nil, 0, fmt.Errorf("charades: %d class vectors, want %d", len(classVecs), NumClasses)
	}
	d := len(classVecs[0])
	for c, cv := range classVecs {
		if len(cv) != d {
			return nil, 0, fmt.Errorf("charades: class vector %d has length %d, want %d", c, len(cv), d)
		}
	}
	n := max(1, int(math.Ceil(v.Length*fps)))
	dim := LabelFrameDim(d)
	out := make([]float32, n*dim)
	active := make([]bool, NumClasses)
	for k := 0; k < n; k++ {
		lo, hi := float64(k)/fps, float64(k+1)/fps
		clear(active)
		count := 0
		for _, a := range v.Actions {
			if a.Start < hi && a.End > lo && !active[a.Class] {
				active[a.Class] = true
				count++
			}
		}
		if count == 0 {
			continue
		}
		row := out[k*dim : (k+1)*dim]
		for c, on := range active {
			if !on {
				continue
			}
			row[c] = 1
			for j, x := range classVecs[c] {
				row[NumClasses+j] += x / float32(count)
			}
		}
	}
	return out, n, nil
}

package prvr_test

import (
	"fmt"

	"github.com/geoalign/geoalign/lib/data/prvr"
)

func ExampleProcessVideo() {
	// A 64-frame video of 1-d features 0..63.
	frames := make([]float32, 64)
	for i := range frames {
		frames[i] = float32(i)
	}
	clips, sampled, n := prvr.ProcessVideo(frames, 64, 1)
	fmt.Println(len(clips), n, len(sampled))
	// Raw clip 31 averages frames 62 only (the boundary 64 is capped at 63), so frame 63 is never
	// pooled — the official quirk. After normalising a 1-d feature every clip is ≈ 1.
	raw := prvr.AverageToFixedLength(frames, 64, 1, prvr.ClipCount)
	fmt.Println(raw[0], raw[31])
	// Output:
	// 32 64 64
	// 0.5 62
}

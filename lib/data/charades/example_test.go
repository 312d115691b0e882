package charades_test

import (
	"fmt"
	"strings"

	"github.com/geoalign/geoalign/lib/data/charades"
)

func ExampleParseSTA() {
	ms, _ := charades.ParseSTA(strings.NewReader("AO8RW 0.0 6.9##a person is putting a book on a shelf.\n"), "sta.txt")
	caps := charades.STACaptions(ms)
	fmt.Println(ms[0].VideoID, ms[0].End, caps[0].ID, caps[0].Text)
	// Output: AO8RW 6.9 AO8RW#enc#0 a person is putting a book on a shelf.
}

func ExampleLabelFrames() {
	// 1.5 s of video at 2 fps: 3 frames; class 7 is annotated over [0.4, 0.9] s.
	v := charades.Video{ID: "X", Length: 1.5, Actions: []charades.Action{{Class: 7, Start: 0.4, End: 0.9}}}
	vecs := make([][]float32, charades.NumClasses)
	for c := range vecs {
		vecs[c] = []float32{float32(c)} // 1-d "class-name vectors"
	}
	x, n, _ := charades.LabelFrames(v, vecs, charades.FrameRate)
	dim := charades.LabelFrameDim(1)
	for k := 0; k < n; k++ {
		fmt.Println(k, x[k*dim+7], x[k*dim+charades.NumClasses])
	}
	// Output:
	// 0 1 7
	// 1 1 7
	// 2 0 0
}

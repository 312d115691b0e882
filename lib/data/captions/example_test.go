package captions_test

import (
	"fmt"
	"strings"

	"github.com/geoalign/geoalign/lib/data/captions"
)

func Example() {
	src := "3MSZA#enc#0 person turn a light on.\n3MSZA#enc#1 person flipped the light switch.\nV2X#enc#0 a person is eating\n"
	caps, err := captions.Parse(strings.NewReader(src), "charadestest.caption.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(caps), captions.VideoIDs(caps), captions.VideoID(caps[1].ID), caps[1].Text)
	_, err = captions.Parse(strings.NewReader("no-space-here\n"), "bad.txt")
	fmt.Println(err)
	// Output:
	// 3 [3MSZA V2X] 3MSZA person flipped the light switch.
	// captions: bad.txt:1: want "<cap_id> <sentence>", got "no-space-here"
}

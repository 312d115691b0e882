package trimodal

import (
	"os"
	"testing"
)

// TestRealTracksIfBuilt checks the built cache when it exists (after `make data`).
func TestRealTracksIfBuilt(t *testing.T) {
	cache := "../../../datasets/cache"
	if _, err := os.Stat(cache + "/tuxpaint/manifest.json"); err != nil {
		t.Skip("no built tuxpaint track")
	}
	s, err := LoadTuxPaint(cache, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d triplets, dims %d/%d/%d, %d categories %v", s.Name, s.N, s.TextDim, s.ImageDim, s.AudioDim, len(s.LabelNames), s.LabelNames)
	if _, err := os.Stat(cache + "/digits/manifest.json"); err == nil {
		d, err := LoadDigits(cache, "train", 1)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d triplets", d.Name, d.N)
	}
}

package trimodal

import (
	"fmt"
	"math"
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

// TestTuxPaintMiniLMTextIfBuilt checks the minilm track's Tux Paint captions when they are built
// ($GEOALIGN_CACHE, else datasets/cache): the same stamps in the same order as the GloVe captions,
// 384-d unit rows (sentence-transformers' L2-normalised embeddings), and the single-letter captions
// that GloVe cannot tell apart ("The letter a." has no GloVe vector for "a") told apart.
func TestTuxPaintMiniLMTextIfBuilt(t *testing.T) {
	cache := os.Getenv("GEOALIGN_CACHE")
	if cache == "" {
		cache = "../../../datasets/cache"
	}
	if _, err := os.Stat(cache + "/tuxpaint/minilm_text_test.npy"); err != nil {
		t.Skip("no built minilm track")
	}
	g, err := LoadTuxPaint(cache, "test")
	if err != nil {
		t.Fatal(err)
	}
	m, err := LoadTuxPaintText(cache, "test", "minilm_text")
	if err != nil {
		t.Fatal(err)
	}
	if m.N != g.N || m.TextDim != 384 || len(m.Text) != m.N*384 {
		t.Fatalf("MiniLM: %d rows of %d; GloVe %d rows", m.N, m.TextDim, g.N)
	}
	for i := range m.N {
		if m.IDs[i] != g.IDs[i] || m.Labels[i] != g.Labels[i] {
			t.Fatalf("row %d: %s/%d vs GloVe %s/%d", i, m.IDs[i], m.Labels[i], g.IDs[i], g.Labels[i])
		}
		var ss float64
		for _, v := range m.Text[i*384 : (i+1)*384] {
			ss += float64(v) * float64(v)
		}
		if math.Abs(math.Sqrt(ss)-1) > 1e-5 {
			t.Fatalf("row %d: norm %g, want 1", i, math.Sqrt(ss))
		}
	}
	distinct := func(x []float32, d int) int {
		seen := map[string]bool{}
		for i := 0; i+d <= len(x); i += d {
			seen[fmt.Sprint(x[i:i+d])] = true
		}
		return len(seen)
	}
	dg, dm := distinct(g.Text, g.TextDim), distinct(m.Text, m.TextDim)
	t.Logf("distinct test captions: GloVe %d, MiniLM %d of %d", dg, dm, m.N)
	if dm <= dg {
		t.Errorf("MiniLM tells %d test captions apart, GloVe %d: want more", dm, dg)
	}
}

package gramstudy

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/encoders"
	"github.com/geoalign/geoalign/lib/models/gram"
)

// realCache is the data cache `make data` built ($GEOALIGN_CACHE, else datasets/cache of the
// checkout); the test is skipped without the minilm track.
func realCache(t *testing.T) string {
	c := os.Getenv("GEOALIGN_CACHE")
	if c == "" {
		c = "../../../datasets/cache"
	}
	if _, err := os.Stat(filepath.Join(c, "minilm", "manifest.json")); err != nil {
		t.Skip("no built minilm track")
	}
	return c
}

// With MiniLM the Tux Paint sets keep every modality but the text bit for bit (images, speech,
// labels, caption lengths), the text is 384-d and standardised on train (column means 0 and standard
// deviations 1 over the train rows), the name says the encoder, and relevance follows the MiniLM
// rows: the single-letter captions GloVe cannot tell apart ("The letter a.") are answered by their
// own stamp only.
func TestTuxPaintMiniLMText(t *testing.T) {
	cache := realCache(t)
	for _, load := range []func(encoders.Text) (*gram.Dataset, error){
		func(e encoders.Text) (*gram.Dataset, error) { return TuxPaintText(cache, e) },
		func(e encoders.Text) (*gram.Dataset, error) { return TuxPaintLangsText(cache, KModalityLanguages, e) },
	} {
		g, err := load(encoders.GloVe)
		if err != nil {
			t.Fatal(err)
		}
		m, err := load(encoders.MiniLM)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(m.Name, "MiniLM all-MiniLM-L6-v2 text") || strings.Contains(g.Name, "MiniLM") {
			t.Errorf("names %q, %q", g.Name, m.Name)
		}
		if notes := strings.Join(m.Notes, " "); strings.Contains(notes, "GloVe-100") || !strings.Contains(notes, "MiniLM all-MiniLM-L6-v2 text sentence embedding") {
			t.Errorf("%s notes: %s", m.Name, notes)
		}
		if ShortName(m) == ShortName(g) {
			t.Errorf("the data label does not tell the encoders apart: %q", ShortName(m))
		}
		for _, sp := range [][2]*gram.Split{{g.Train, m.Train}, {g.Test, m.Test}} {
			gs, ms := sp[0], sp[1]
			if ms.N != gs.N || ms.Dims[0] != 384 || len(ms.Features[0]) != ms.N*384 {
				t.Fatalf("%s: MiniLM text %d×%d, GloVe N %d", m.Name, ms.N, ms.Dims[0], gs.N)
			}
			for k := 1; k < len(gs.Features); k++ {
				if !slices.Equal(gs.Features[k], ms.Features[k]) || gs.Dims[k] != ms.Dims[k] {
					t.Errorf("%s: modality %d changed", m.Name, k)
				}
			}
			if !slices.Equal(gs.Labels, ms.Labels) || !slices.Equal(gs.Attributes["text_length"], ms.Attributes["text_length"]) {
				t.Errorf("%s: labels or caption lengths changed", m.Name)
			}
		}
		// Standardised on train: column mean 0, standard deviation 1 (population, as Standardize).
		x, n := m.Train.Features[0], m.Train.N
		for c := 0; c < 384; c += 37 {
			var s, ss float64
			for i := range n {
				s += float64(x[i*384+c])
			}
			mean := s / float64(n)
			for i := range n {
				d := float64(x[i*384+c]) - mean
				ss += d * d
			}
			if std := math.Sqrt(ss / float64(n)); math.Abs(mean) > 1e-4 || math.Abs(std-1) > 1e-3 {
				t.Errorf("%s: train column %d has mean %g, std %g", m.Name, c, mean, std)
			}
		}
		// Relevance: GloVe lets some test captions answer others (identical rows); MiniLM fewer.
		shared := func(sp *gram.Split) (pairs int) {
			for a := range sp.N {
				for b := range sp.N {
					if a != b && sp.Relevant != nil && sp.Relevant(a, b) {
						pairs++
					}
				}
			}
			return pairs
		}
		gp, mp := shared(g.Test), shared(m.Test)
		t.Logf("%s: test pairs answering each other: GloVe %d, MiniLM %d", m.Name, gp, mp)
		if gp > 0 && mp >= gp {
			t.Errorf("%s: MiniLM relevance has %d shared pairs, GloVe %d: want fewer", m.Name, mp, gp)
		}
	}
}

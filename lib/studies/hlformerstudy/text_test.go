package hlformerstudy

import (
	"math"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/encoders"
)

// With MiniLM query tokens the floor is random ranking: R@K = 100·min(K, n)/n for n test videos with
// one relevant video per query (closed form), whatever the split's scores.
func TestMiniLMFloorIsRandomRanking(t *testing.T) {
	s, err := SyntheticSetup(7, 64)
	if err != nil {
		t.Fatal(err)
	}
	s.Text = encoders.MiniLM
	floors, err := s.FloorsOn(s.Test)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := floors[FloorRandom]
	if len(floors) != 1 || !ok {
		t.Fatalf("floors %v, want only %q", floors, FloorRandom)
	}
	n := float64(s.Test.NumVideos())
	sumR := 0.0
	for _, k := range []int{1, 5, 10, 100} {
		want := 100 * math.Min(float64(k), n) / n
		if got := m.R(k); math.Abs(got-want) > 1e-9 {
			t.Errorf("R@%d = %g, want %g", k, got, want)
		}
		sumR += want
	}
	if math.Abs(m.SumR-sumR) > 1e-9 {
		t.Errorf("SumR %g, want %g", m.SumR, sumR)
	}
}

// The text encoder enters the run key (MiniLM), and GloVe's key is the one before the option existed.
func TestTextEntersRunKey(t *testing.T) {
	s, err := SyntheticSetup(7, 32)
	if err != nil {
		t.Fatal(err)
	}
	c := CIScale.RunConfig(s.Train.Dim, s.Train.QueryDim)
	root := t.TempDir()
	glove, err := runDir(root, s, c)
	if err != nil {
		t.Fatal(err)
	}
	m := *s
	m.Text = encoders.MiniLM
	mini, err := runDir(root, &m, c)
	if err != nil {
		t.Fatal(err)
	}
	if glove == mini {
		t.Errorf("GloVe and MiniLM runs share the run directory %s", glove)
	}
	if textKey(encoders.GloVe) != "" {
		t.Errorf("GloVe's run key changed: %q", textKey(encoders.GloVe))
	}
}

// MiniLM queries are padded to the code's max_desc_l; GloVe keeps the scale's QueryLen.
func TestScaleForText(t *testing.T) {
	if got := CIScale.ForText(encoders.GloVe); got.QueryLen != CIScale.QueryLen {
		t.Errorf("GloVe QueryLen %d, want %d", got.QueryLen, CIScale.QueryLen)
	}
	got := FullScale.ForText(encoders.MiniLM)
	if got.QueryLen != prvr.MaxQueryTokens {
		t.Errorf("MiniLM QueryLen %d, want %d", got.QueryLen, prvr.MaxQueryTokens)
	}
	if !strings.Contains(got.Describe(), "tokens padded to 30 (paper 30; longer queries truncated") {
		t.Errorf("Describe: %s", got.Describe())
	}
	if !strings.Contains(CharadesDataText(encoders.MiniLM), "MiniLM all-MiniLM-L6-v2 text query tokens") ||
		strings.Contains(CharadesDataText(encoders.MiniLM), "GloVe-100d query tokens") {
		t.Errorf("CharadesDataText(MiniLM) = %s", CharadesDataText(encoders.MiniLM))
	}
	if CharadesDataText(encoders.GloVe) != CharadesData {
		t.Error("CharadesDataText(GloVe) is not CharadesData")
	}
}

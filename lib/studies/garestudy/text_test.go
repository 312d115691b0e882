package garestudy

import (
	"math"
	"testing"

	"github.com/geoalign/geoalign/lib/models/gare"
)

// The MiniLM floor is random ranking: on n paired texts and videos R@K = 100·min(K, n)/n and MnR =
// (n + 1)/2 in both directions (closed form).
func TestRandomFloor(t *testing.T) {
	const n = 40
	d := &gare.Dataset{Name: "toy", NumTexts: n, NumVideos: n, VideoOf: make([]int, n)}
	for i := range d.VideoOf {
		d.VideoOf[i] = (i * 7) % n // a permutation: one text per video
	}
	rep, err := RandomFloor(d)
	if err != nil {
		t.Fatal(err)
	}
	if rep.V2T == nil {
		t.Fatal("no video→text floor on a one-to-one split")
	}
	for _, m := range []struct {
		name string
		r    func(int) float64
		mnr  float64
	}{{"t2v", rep.T2V.R, rep.T2V.MnR}, {"v2t", rep.V2T.R, rep.V2T.MnR}} {
		for _, k := range []int{1, 5, 10} {
			if want := 100 * float64(k) / n; math.Abs(m.r(k)-want) > 1e-9 {
				t.Errorf("%s R@%d = %g, want %g", m.name, k, m.r(k), want)
			}
		}
		if want := float64(n+1) / 2; math.Abs(m.mnr-want) > 1e-9 {
			t.Errorf("%s MnR = %g, want %g", m.name, m.mnr, want)
		}
	}
	// A paired set without VideoOf (text i ↔ video i, as the Charades descriptions track loads) has the
	// same floor in both directions.
	paired := &gare.Dataset{Name: "paired", NumTexts: n, NumVideos: n}
	if rep2, err := RandomFloor(paired); err != nil || rep2.V2T == nil || rep2.T2V.R(1) != rep.T2V.R(1) || rep2.V2T.MnR != rep.V2T.MnR {
		t.Errorf("paired set without VideoOf: %+v, %v; want the floor above", rep2, err)
	}
	d.VideoOf[1] = d.VideoOf[0] // two texts of one video: no one-to-one video→text ground truth
	if rep, err = RandomFloor(d); err != nil || rep.V2T != nil {
		t.Errorf("not one-to-one: V2T %v, %v; want none", rep.V2T, err)
	}
}

package search

import (
	"math"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/models/hlformer"
	"github.com/geoalign/geoalign/lib/studies/hlformerstudy"
)

// A query searched alone (rankVideos: its own embedding, one row of scores) ranks the videos by the
// scores the evaluator gives it inside its split, and each hit's score is α_c·max over its clip
// cosines + α_f·max over its frame cosines (Eq. 8–9; padded frames are zero vectors, cosine 0),
// recomputed on the host from the per-clip and per-frame cosines the hit carries.
func TestSearchRanksAsTheEvaluator(t *testing.T) {
	setup, err := hlformerstudy.SyntheticSetup(7, 48)
	if err != nil {
		t.Fatal(err)
	}
	sc := hlformerstudy.CIScale
	sc.QueryLen = 8
	c := sc.Config(setup.Train.Dim, setup.Train.QueryDim)
	m, err := hlformer.New(c)
	if err != nil {
		t.Fatal(err)
	}
	store, err := hlformer.NewStore(3)
	if err != nil {
		t.Fatal(err)
	}
	be := backend.MustNew()
	ev, err := hlformer.NewEvaluator(be, m, store, sc.Training().DType)
	if err != nil {
		t.Fatal(err)
	}
	sp := setup.Test
	em, err := ev.Encode(sp)
	if err != nil {
		t.Fatal(err)
	}
	all, err := ev.Scores(em)
	if err != nil {
		t.Fatal(err)
	}
	nv := sp.NumVideos()
	for _, q := range []int{0, sp.NumQueries() - 1} {
		tokens, n := sp.QueryTokens(q)
		hits, err := rankVideos(ev, sp, em, tokens, n, nv)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != nv {
			t.Fatalf("query %d: %d hits, want %d", q, len(hits), nv)
		}
		row := all[q*nv : (q+1)*nv]
		for i, h := range hits {
			if math.Abs(h.Score-float64(row[h.Video])) > 1e-5 {
				t.Errorf("query %d, video %d: searched score %g, evaluator %g", q, h.Video, h.Score, row[h.Video])
			}
			if i > 0 && h.Score > hits[i-1].Score {
				t.Errorf("query %d: rank %d scores %g above rank %d's %g", q, h.Rank, h.Score, hits[i-1].Rank, hits[i-1].Score)
			}
			maxClip, maxFrame := math.Inf(-1), math.Inf(-1)
			for _, v := range h.ClipScores {
				maxClip = math.Max(maxClip, v)
			}
			for _, v := range h.FrameScores {
				maxFrame = math.Max(maxFrame, v)
			}
			if len(h.FrameScores) < c.FrameLen {
				maxFrame = math.Max(maxFrame, 0)
			}
			if want := c.ClipScoreWeight*maxClip + c.FrameScoreWeight*maxFrame; math.Abs(h.Score-want) > 1e-5 {
				t.Errorf("query %d, video %d: score %g, α_c·max clip + α_f·max frame = %g", q, h.Video, h.Score, want)
			}
			if h.ClipScores[h.Best] != maxClip {
				t.Errorf("query %d, video %d: best clip %d is not the largest cosine", q, h.Video, h.Best)
			}
			if _, n := sp.VideoFrames(h.Video); len(h.FrameScores) != min(n, c.FrameLen) {
				t.Errorf("video %d: %d frame cosines, want %d", h.Video, len(h.FrameScores), min(n, c.FrameLen))
			}
		}
	}
}

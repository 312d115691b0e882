package prvr

import "testing"

func TestSplitIsASource(t *testing.T) {
	s := &Split{Dim: 3, QueryDim: 2, VideoIDs: []string{"a", "b"}, CapIDs: []string{"a#0", "b#0", "b#1"},
		QueryVideo: []int{0, 1, 1}}
	var src Source = s
	if v, q := src.FeatureDims(); v != 3 || q != 2 {
		t.Fatalf("FeatureDims = %d, %d; want 3, 2", v, q)
	}
	if src.NumVideos() != 2 || src.NumQueries() != 3 {
		t.Fatalf("%d videos, %d queries; want 2, 3", src.NumVideos(), src.NumQueries())
	}
	for q, v := range s.QueryVideo {
		if src.GroundTruth(q) != v {
			t.Fatalf("GroundTruth(%d) = %d, want %d", q, src.GroundTruth(q), v)
		}
	}
}

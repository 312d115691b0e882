package prvr

import (
	"fmt"
	"testing"
)

// handSplit is a split of n videos with 1 + v%3 queries each; video v's frames are v%5+1 rows of the
// value v, query q's single token is q (D = D_q = 1), so every row names where it came from.
func handSplit(n int) *Split {
	s := &Split{Name: "hand", Dim: 1, QueryDim: 1, FrameOffsets: []int{0}, TokenOffsets: []int{0}}
	for v := 0; v < n; v++ {
		s.VideoIDs = append(s.VideoIDs, fmt.Sprintf("v%d", v))
		for c := 0; c < ClipCount; c++ {
			s.Clips = append(s.Clips, float32(v))
		}
		for f := 0; f < v%5+1; f++ {
			s.Frames = append(s.Frames, float32(v))
		}
		s.FrameOffsets = append(s.FrameOffsets, len(s.Frames))
		for k := 0; k < 1+v%3; k++ {
			q := len(s.CapIDs)
			s.CapIDs = append(s.CapIDs, fmt.Sprintf("v%d#enc#%d", v, k))
			s.Texts = append(s.Texts, fmt.Sprintf("text %d", q))
			s.QueryVideo = append(s.QueryVideo, v)
			s.Tokens = append(s.Tokens, float32(q))
			s.TokenOffsets = append(s.TokenOffsets, len(s.Tokens))
		}
	}
	return s
}

func TestCarveValidationPartitionsByVideo(t *testing.T) {
	s := handSplit(50)
	tr, val, err := CarveValidation(s, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	if val.NumVideos() != 5 || tr.NumVideos() != 45 {
		t.Fatalf("videos: train %d, val %d; want 45 and 5", tr.NumVideos(), val.NumVideos())
	}
	if tr.NumQueries()+val.NumQueries() != s.NumQueries() {
		t.Fatalf("queries: %d + %d != %d", tr.NumQueries(), val.NumQueries(), s.NumQueries())
	}
	seen := map[string]string{}
	for _, part := range []*Split{tr, val} {
		for v, id := range part.VideoIDs {
			if other, ok := seen[id]; ok {
				t.Fatalf("video %s in both %s and %s", id, other, part.Name)
			}
			seen[id] = part.Name
			var orig int
			fmt.Sscanf(id, "v%d", &orig)
			if c := part.VideoClips(v); c[0] != float32(orig) || c[len(c)-1] != float32(orig) {
				t.Fatalf("%s: video %s has clips of video %g", part.Name, id, c[0])
			}
			if f, nf := part.VideoFrames(v); nf != orig%5+1 || f[0] != float32(orig) {
				t.Fatalf("%s: video %s has %d frames of value %g, want %d of %d", part.Name, id, nf, f[0], orig%5+1, orig)
			}
		}
		for q, id := range part.CapIDs {
			tok, _ := part.QueryTokens(q)
			origQ := int(tok[0])
			if s.CapIDs[origQ] != id || s.Texts[origQ] != part.Texts[q] {
				t.Fatalf("%s: query %d is %s with the token of %s", part.Name, q, id, s.CapIDs[origQ])
			}
			if part.VideoIDs[part.QueryVideo[q]] != s.VideoIDs[s.QueryVideo[origQ]] {
				t.Fatalf("%s: query %s points at video %s, want %s", part.Name, id, part.VideoIDs[part.QueryVideo[q]], s.VideoIDs[s.QueryVideo[origQ]])
			}
		}
	}
	if len(seen) != s.NumVideos() {
		t.Fatalf("%d distinct videos after the carve, want %d", len(seen), s.NumVideos())
	}
	// The carve is a fixed permutation: the same videos every time.
	_, again, _ := CarveValidation(s, 0.1)
	if fmt.Sprint(again.VideoIDs) != fmt.Sprint(val.VideoIDs) {
		t.Fatalf("carve not reproducible: %v vs %v", again.VideoIDs, val.VideoIDs)
	}
}

func TestCarveValidationRejectsBadFractions(t *testing.T) {
	s := handSplit(10)
	for _, f := range []float64{0, 1, -0.1, 0.99} {
		if _, _, err := CarveValidation(s, f); err == nil {
			t.Errorf("fraction %g of 10 videos: no error", f)
		}
	}
}

package prvr

import (
	"fmt"

	"github.com/geoalign/geoalign/lib/data"
)

// SubsetVideos returns the split made of the given videos of s (in that order) and all their queries
// (in the order of s), named name: e.g. a random subset for CI-sized runs, or one synthetic world cut
// into train and test videos.
func (s *Split) SubsetVideos(videos []int, name string) *Split {
	out := &Split{Name: name, Dim: s.Dim, QueryDim: s.QueryDim, FrameOffsets: []int{0}, TokenOffsets: []int{0}}
	col := make(map[int]int, len(videos))
	for i, v := range videos {
		col[v] = i
		out.VideoIDs = append(out.VideoIDs, s.VideoIDs[v])
		out.Clips = append(out.Clips, s.VideoClips(v)...)
		f, n := s.VideoFrames(v)
		out.Frames = append(out.Frames, f...)
		out.FrameOffsets = append(out.FrameOffsets, out.FrameOffsets[i]+n)
	}
	for q, v := range s.QueryVideo {
		i, ok := col[v]
		if !ok {
			continue
		}
		t, n := s.QueryTokens(q)
		out.CapIDs = append(out.CapIDs, s.CapIDs[q])
		if q < len(s.Texts) {
			out.Texts = append(out.Texts, s.Texts[q])
		}
		out.QueryVideo = append(out.QueryVideo, i)
		out.Tokens = append(out.Tokens, t...)
		out.TokenOffsets = append(out.TokenOffsets, out.TokenOffsets[len(out.TokenOffsets)-1]+n)
	}
	return out
}

// ValidationFraction is the share of a training split's videos held out for model selection where the
// official release has no validation split (Charades-STA's distributed "val" is its test split): 10 %.
const ValidationFraction = 0.1

// CarveValidation splits s by video into a training part and a validation part holding
// round(fraction·videos) videos (at least 2; data.CarveValidation, the project's one fixed
// permutation, over the videos) and all their queries, so that no video, and no query of a video, is
// in both. Both parts keep the video and query order of s; they are named s.Name+"-train" and
// s.Name+"-val". fraction must be in (0, 1) and leave at least one video to train on.
func CarveValidation(s *Split, fraction float64) (train, val *Split, err error) {
	kept, held, err := data.CarveValidation(s.NumVideos(), fraction)
	if err != nil {
		return nil, nil, fmt.Errorf("prvr: split %q: %w", s.Name, err)
	}
	return s.SubsetVideos(kept, s.Name+"-train"), s.SubsetVideos(held, s.Name+"-val"), nil
}

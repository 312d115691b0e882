package prvr

// Source is a PRVR split read by index: what an evaluator needs to encode a split's videos and
// queries chunk by chunk and to rank the ground truth, without holding every feature in memory. *Split
// satisfies it (slices into its packed storage); a lazily-read source (features read per video or per
// query from BigFile/HDF5 files, or generated on demand) can implement it to keep only one chunk of
// features alive, as the official code's data loaders do.
//
// The feature slices a Source returns are read-only for the caller, who must not keep them beyond the
// next call; they hold processed features (ProcessVideo, ProcessQuery): ClipCount clips, at most
// MaxFrames frames and at most MaxQueryTokens tokens, L2-normalised.
type Source interface {
	NumVideos() int
	NumQueries() int
	// FeatureDims are the video and the token feature dimensions.
	FeatureDims() (video, query int)
	// VideoClips returns the ClipCount×video clip features of video v.
	VideoClips(v int) []float32
	// VideoFrames returns the frame features of video v (n×video) and their count n.
	VideoFrames(v int) ([]float32, int)
	// QueryTokens returns the token features of query q (n×query) and their count n.
	QueryTokens(q int) ([]float32, int)
	// GroundTruth is the video (column) query q describes.
	GroundTruth(q int) int
}

var _ Source = (*Split)(nil)

// FeatureDims returns s.Dim and s.QueryDim (Source).
func (s *Split) FeatureDims() (video, query int) { return s.Dim, s.QueryDim }

// GroundTruth returns s.QueryVideo[q] (Source).
func (s *Split) GroundTruth(q int) int { return s.QueryVideo[q] }

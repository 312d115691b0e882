package hlformer

import (
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/tensors"
)

// CheckSplit reports whether split s can feed a model of config c.
func CheckSplit(s *prvr.Split, c Config) error {
	if s == nil {
		return fmt.Errorf("hlformer: nil split")
	}
	return checkSource(fmt.Sprintf("split %q", s.Name), s, c)
}

// CheckSource reports whether src can feed a model of config c (CheckSplit for any prvr.Source).
func CheckSource(src prvr.Source, c Config) error {
	if src == nil {
		return fmt.Errorf("hlformer: nil source")
	}
	if s, ok := src.(*prvr.Split); ok {
		return CheckSplit(s, c)
	}
	return checkSource("source", src, c)
}

func checkSource(what string, src prvr.Source, c Config) error {
	vd, qd := src.FeatureDims()
	switch {
	case vd != c.VideoDim:
		return fmt.Errorf("hlformer: %s has %d-d video features, the model expects VideoDim = %d", what, vd, c.VideoDim)
	case qd != c.QueryDim:
		return fmt.Errorf("hlformer: %s has %d-d query tokens, the model expects QueryDim = %d", what, qd, c.QueryDim)
	case c.ClipLen != prvr.ClipCount:
		return fmt.Errorf("hlformer: %s has %d clips per video, the model expects ClipLen = %d", what, prvr.ClipCount, c.ClipLen)
	case src.NumVideos() == 0 || src.NumQueries() == 0:
		return fmt.Errorf("hlformer: %s is empty (%d videos, %d queries)", what, src.NumVideos(), src.NumQueries())
	}
	return nil
}

// VideoInputs packs videos (indices into s) as model inputs: clips [V, ClipLen, D], frames
// [V, FrameLen, D] zero-padded, and the frame mask [V, FrameLen]. A video with more than FrameLen
// frames is down-sampled with prvr.UniformSample (the official per-video processing). Indices < 0 are
// padding videos (all zero, mask 0), used to fill the last evaluation chunk.
func VideoInputs(s *prvr.Split, videos []int, c Config, dtype dtypes.DType) (clips, frames, mask *tensors.Tensor) {
	return SourceVideoInputs(s, videos, c, dtype)
}

// SourceVideoInputs is VideoInputs for any prvr.Source (only the given videos are read).
func SourceVideoInputs(s prvr.Source, videos []int, c Config, dtype dtypes.DType) (clips, frames, mask *tensors.Tensor) {
	d, _ := s.FeatureDims()
	cl := make([]float32, len(videos)*c.ClipLen*d)
	fr := make([]float32, len(videos)*c.FrameLen*d)
	mk := make([]float32, len(videos)*c.FrameLen)
	for i, v := range videos {
		if v < 0 {
			continue
		}
		copy(cl[i*c.ClipLen*d:], s.VideoClips(v))
		f, n := s.VideoFrames(v)
		if n > c.FrameLen {
			f, n = prvr.UniformSample(f, n, d, c.FrameLen)
		}
		copy(fr[i*c.FrameLen*d:], f[:n*d])
		for t := 0; t < n; t++ {
			mk[i*c.FrameLen+t] = 1
		}
	}
	return asTensor(cl, dtype, len(videos), c.ClipLen, d), asTensor(fr, dtype, len(videos), c.FrameLen, d),
		asTensor(mk, dtype, len(videos), c.FrameLen)
}

// QueryInputs packs queries (indices into s) as tokens [Q, QueryLen, D_q] zero-padded and the token
// mask [Q, QueryLen]; longer queries are truncated (max_desc_l). Indices < 0 are padding queries, given
// one zero token so that their pooling stays finite.
func QueryInputs(s *prvr.Split, queries []int, c Config, dtype dtypes.DType) (tokens, mask *tensors.Tensor) {
	return SourceQueryInputs(s, queries, c, dtype)
}

// SourceQueryInputs is QueryInputs for any prvr.Source (only the given queries are read).
func SourceQueryInputs(s prvr.Source, queries []int, c Config, dtype dtypes.DType) (tokens, mask *tensors.Tensor) {
	_, d := s.FeatureDims()
	tk := make([]float32, len(queries)*c.QueryLen*d)
	mk := make([]float32, len(queries)*c.QueryLen)
	for i, q := range queries {
		if q < 0 {
			mk[i*c.QueryLen] = 1
			continue
		}
		t, n := s.QueryTokens(q)
		n = min(n, c.QueryLen)
		copy(tk[i*c.QueryLen*d:], t[:n*d])
		for j := 0; j < max(n, 1); j++ {
			mk[i*c.QueryLen+j] = 1
		}
	}
	return asTensor(tk, dtype, len(queries), c.QueryLen, d), asTensor(mk, dtype, len(queries), c.QueryLen)
}

func asTensor(x []float32, dtype dtypes.DType, dims ...int) *tensors.Tensor {
	if dtype == dtypes.Float64 {
		y := make([]float64, len(x))
		for i, v := range x {
			y[i] = float64(v)
		}
		return tensors.FromFlatDataAndDimensions(y, dims...)
	}
	return tensors.FromFlatDataAndDimensions(x, dims...)
}

// BatchPlan is one training batch as indices into a split: its videos, its queries, and for each query
// the position of its video in Videos (the code's text_labels; contiguous blocks).
type BatchPlan struct {
	Videos  []int
	Queries []int
	Labels  []int32
}

// Batching is how an epoch of the training split is cut into batches: the code's batch is Videos =
// 128 videos, each with all its captions (docs/official-code.md §3.1), and its DataLoader keeps the last, smaller
// batch (PyTorch's default drop_last=False; official HLFormer src/Datasets/builder.py). Two options keep the
// shapes of the compiled training step fixed instead, each a deviation from the code: DropPartial
// drops the last incomplete batch (reshuffled every epoch, so every video is seen over epochs), and
// QueryBucket rounds each batch's query count down to a multiple of it (0: no rounding) by dropping
// random captions of videos that keep at least one.
type Batching struct {
	Videos      int
	QueryBucket int
	DropPartial bool
}

// Plan shuffles the videos of s that have queries and cuts them into batches. Query order is video
// by video.
func (b Batching) Plan(s *prvr.Split, rng *rand.Rand) []BatchPlan {
	byVideo := make([][]int, s.NumVideos())
	for q, v := range s.QueryVideo {
		byVideo[v] = append(byVideo[v], q)
	}
	var videos []int
	for v, qs := range byVideo {
		if len(qs) > 0 {
			videos = append(videos, v)
		}
	}
	rng.Shuffle(len(videos), func(i, j int) { videos[i], videos[j] = videos[j], videos[i] })
	var plans []BatchPlan
	for start := 0; start < len(videos); start += b.Videos {
		end := start + b.Videos
		if end > len(videos) {
			if b.DropPartial || len(videos)-start < 2 { // a batch of one video has no negative
				break
			}
			end = len(videos)
		}
		vids := append([]int(nil), videos[start:end]...)
		keep := make([][]int, len(vids))
		total := 0
		for i, v := range vids {
			keep[i] = append([]int(nil), byVideo[v]...)
			total += len(keep[i])
		}
		if b.QueryBucket > 0 {
			target := max(total/b.QueryBucket*b.QueryBucket, len(vids))
			for total > target {
				i := rng.IntN(len(vids))
				if len(keep[i]) > 1 {
					j := rng.IntN(len(keep[i]))
					keep[i] = append(keep[i][:j], keep[i][j+1:]...)
					total--
				}
			}
		}
		p := BatchPlan{Videos: vids}
		for i := range vids {
			sort.Ints(keep[i])
			for _, q := range keep[i] {
				p.Queries = append(p.Queries, q)
				p.Labels = append(p.Labels, int32(i))
			}
		}
		plans = append(plans, p)
	}
	return plans
}

// PlanEpoch is Batching{batchVideos, queryBucket, DropPartial: true}.Plan: the static-shape
// batches (the last incomplete batch dropped).
func PlanEpoch(s *prvr.Split, batchVideos, queryBucket int, rng *rand.Rand) []BatchPlan {
	return Batching{Videos: batchVideos, QueryBucket: queryBucket, DropPartial: true}.Plan(s, rng)
}

// BatchInputs are the tensors of one training batch, in the order of the training step's inputs:
// clips, frames, frame mask, tokens, token mask, labels.
func BatchInputs(s *prvr.Split, p BatchPlan, c Config, dtype dtypes.DType) []*tensors.Tensor {
	clips, frames, fmask := VideoInputs(s, p.Videos, c, dtype)
	tokens, tmask := QueryInputs(s, p.Queries, c, dtype)
	return []*tensors.Tensor{clips, frames, fmask, tokens, tmask, tensors.FromFlatDataAndDimensions(append([]int32(nil), p.Labels...), len(p.Labels))}
}

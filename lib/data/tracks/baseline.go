package tracks

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/geoalign/geoalign/lib/data/prvr"
)

// ZeroShotMaxOverClips is the zero-training PRVR floor of the label-derived Charades-STA track:
// the score of query q for video v is max over the ClipCount clips c of
// cos(mean of q's processed token vectors, block [offset, offset+width) of clip c), where the
// block is the mean-GloVe part of the label-derived clip feature (CharadesGloVeOffset,
// glove.Dim). Both sides are GloVe, so no parameter is learned. It returns the row-major
// [queries × videos] score matrix.
func ZeroShotMaxOverClips(s *prvr.Split, offset, width int) ([]float32, error) {
	if offset < 0 || offset+width > s.Dim || width != s.QueryDim {
		return nil, fmt.Errorf("tracks: clip block [%d, %d) does not fit D=%d or match query D=%d", offset, offset+width, s.Dim, s.QueryDim)
	}
	nv, nq := s.NumVideos(), s.NumQueries()
	// Unit clip blocks, (nv·ClipCount) × width; an all-zero block (no action) stays zero.
	clips := make([]float64, nv*prvr.ClipCount*width)
	for v := 0; v < nv; v++ {
		cf := s.VideoClips(v)
		for c := 0; c < prvr.ClipCount; c++ {
			src := cf[c*s.Dim+offset : c*s.Dim+offset+width]
			dst := clips[(v*prvr.ClipCount+c)*width : (v*prvr.ClipCount+c+1)*width]
			unit(dst, src)
		}
	}
	scores := make([]float32, nq*nv)
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			query := make([]float64, width)
			mean := make([]float32, width)
			for q := w; q < nq; q += workers {
				tok, n := s.QueryTokens(q)
				clear(mean)
				for t := 0; t < n; t++ {
					for j := range mean {
						mean[j] += tok[t*width+j]
					}
				}
				unit(query, mean)
				row := scores[q*nv : (q+1)*nv]
				for v := 0; v < nv; v++ {
					best := math.Inf(-1)
					for c := 0; c < prvr.ClipCount; c++ {
						blk := clips[(v*prvr.ClipCount+c)*width : (v*prvr.ClipCount+c+1)*width]
						var dot float64
						for j, x := range query {
							dot += x * blk[j]
						}
						best = max(best, dot)
					}
					row[v] = float32(best)
				}
			}
		}(w)
	}
	wg.Wait()
	return scores, nil
}

// unit writes src / ‖src‖ into dst (zeros stay zeros).
func unit(dst []float64, src []float32) {
	var ss float64
	for _, x := range src {
		ss += float64(x) * float64(x)
	}
	inv := 0.0
	if ss > 0 {
		inv = 1 / math.Sqrt(ss)
	}
	for j, x := range src {
		dst[j] = float64(x) * inv
	}
}

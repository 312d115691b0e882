package tracks

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/geoalign/geoalign/lib/data/charades"
	"github.com/geoalign/geoalign/lib/data/glove"
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
	clips := make([]float64, s.NumVideos()*prvr.ClipCount*width)
	for v := 0; v < s.NumVideos(); v++ {
		cf := s.VideoClips(v)
		for c := 0; c < prvr.ClipCount; c++ {
			k := v*prvr.ClipCount + c
			unit(clips[k*width:(k+1)*width], cf[c*s.Dim+offset:c*s.Dim+offset+width])
		}
	}
	queries := make([]float64, s.NumQueries()*width)
	mean := make([]float32, width)
	for q := 0; q < s.NumQueries(); q++ {
		tok, n := s.QueryTokens(q)
		clear(mean)
		for t := 0; t < n; t++ {
			for j := range mean {
				mean[j] += tok[t*width+j]
			}
		}
		unit(queries[q*width:(q+1)*width], mean)
	}
	return maxOverClips(queries, clips, s.NumQueries(), s.NumVideos(), width), nil
}

// BaselineStopWords are the tokens the content-word baseline ignores: articles, pronouns,
// prepositions, auxiliaries, aspect verbs ("begins", "starts") and the generic agents and objects
// ("person", "someone", "something") that nearly every Charades-STA query or class name contains
// and that therefore carry no information about which video is meant. Our choice, fixed here.
var BaselineStopWords = map[string]bool{}

func init() {
	for _, w := range []string{"a", "an", "the", "person", "is", "are", "to", "of", "on", "in", "and", "his", "her",
		"their", "with", "at", "then", "while", "up", "into", "from", "some", "they", "he", "she", "it", "by", "for",
		"s", "next", "other", "another", "someone", "something", "somewhere", "back", "out", "off", "over", "down",
		"again", "first", "begins", "starts", "start", "begin", "them", "this", "that", "there"} {
		BaselineStopWords[w] = true
	}
}

// contentVector is the unit mean GloVe vector of the tokens of s outside BaselineStopWords.
func contentVector(dst []float64, s string, g *glove.Vectors) {
	sum := make([]float32, glove.Dim)
	for _, w := range glove.Tokenize(s) {
		if BaselineStopWords[w] {
			continue
		}
		if v, ok := g.Lookup(w); ok {
			for j := range sum {
				sum[j] += v[j]
			}
		}
	}
	unit(dst, sum)
}

// ZeroShotContentWords is the content-word variant of the zero-training baseline: the query is the
// unit mean GloVe vector of its sentence's tokens outside BaselineStopWords; a clip is
// Σ_c h_c·u_c over the clip's multi-hot block h (the processed, time-averaged class activity) with
// u_c the unit mean GloVe vector of class c's name without stop words; score = max over clips of
// the cosine. classNames are the NumClasses Charades class names.
func ZeroShotContentWords(s *prvr.Split, classNames []string, g *glove.Vectors) ([]float32, error) {
	if len(classNames) != charades.NumClasses || s.Dim < charades.NumClasses || len(s.Texts) != s.NumQueries() {
		return nil, fmt.Errorf("tracks: need %d class names, a multi-hot block and one text per query; got %d names, D=%d, %d texts for %d queries",
			charades.NumClasses, len(classNames), s.Dim, len(s.Texts), s.NumQueries())
	}
	w := glove.Dim
	classVec := make([]float64, charades.NumClasses*w)
	for c, name := range classNames {
		contentVector(classVec[c*w:(c+1)*w], name, g)
	}
	clips := make([]float64, s.NumVideos()*prvr.ClipCount*w)
	mix := make([]float32, w)
	for v := 0; v < s.NumVideos(); v++ {
		cf := s.VideoClips(v)
		for c := 0; c < prvr.ClipCount; c++ {
			clear(mix)
			for k, h := range cf[c*s.Dim : c*s.Dim+charades.NumClasses] {
				if h != 0 {
					for j := range mix {
						mix[j] += h * float32(classVec[k*w+j])
					}
				}
			}
			k := v*prvr.ClipCount + c
			unit(clips[k*w:(k+1)*w], mix)
		}
	}
	queries := make([]float64, s.NumQueries()*w)
	for q, text := range s.Texts {
		contentVector(queries[q*w:(q+1)*w], text, g)
	}
	return maxOverClips(queries, clips, s.NumQueries(), s.NumVideos(), w), nil
}

// maxOverClips scores unit query vectors (nq×w) against unit clip vectors (nv·ClipCount×w):
// score[q, v] = max_c ⟨query q, clip (v, c)⟩, row-major [nq × nv].
func maxOverClips(queries, clips []float64, nq, nv, w int) []float32 {
	scores := make([]float32, nq*nv)
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for k := 0; k < workers; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			for q := k; q < nq; q += workers {
				x := queries[q*w : (q+1)*w]
				row := scores[q*nv : (q+1)*nv]
				for v := 0; v < nv; v++ {
					best := math.Inf(-1)
					for c := 0; c < prvr.ClipCount; c++ {
						blk := clips[(v*prvr.ClipCount+c)*w : (v*prvr.ClipCount+c+1)*w]
						var dot float64
						for j, xj := range x {
							dot += xj * blk[j]
						}
						best = max(best, dot)
					}
					row[v] = float32(best)
				}
			}
		}(k)
	}
	wg.Wait()
	return scores
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

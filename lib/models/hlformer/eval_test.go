package hlformer

import (
	"reflect"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/gomlx/compute/dtypes"
)

// copyingSource serves a split's features through fresh slices that it overwrites with NaN on the next
// call, so an evaluator that keeps a returned slice beyond the next call (which prvr.Source forbids)
// or reads outside the requested video or query gets wrong embeddings.
type copyingSource struct {
	s    *prvr.Split
	last []float32
	read map[string]int
}

func (c *copyingSource) hand(x []float32) []float32 {
	for i := range c.last {
		c.last[i] = float32(nan())
	}
	c.last = append([]float32(nil), x...)
	return c.last
}

func (c *copyingSource) NumVideos() int                  { return c.s.NumVideos() }
func (c *copyingSource) NumQueries() int                 { return c.s.NumQueries() }
func (c *copyingSource) FeatureDims() (video, query int) { return c.s.FeatureDims() }
func (c *copyingSource) GroundTruth(q int) int           { return c.s.GroundTruth(q) }
func (c *copyingSource) VideoClips(v int) []float32 {
	c.read["clips"]++
	return c.hand(c.s.VideoClips(v))
}
func (c *copyingSource) VideoFrames(v int) ([]float32, int) {
	c.read["frames"]++
	f, n := c.s.VideoFrames(v)
	return c.hand(f), n
}
func (c *copyingSource) QueryTokens(q int) ([]float32, int) {
	c.read["tokens"]++
	t, n := c.s.QueryTokens(q)
	return c.hand(t), n
}

func nan() float64 { var z float64; return z / z }

// Streamed evaluation (EncodeSource / EvaluateSource over a file-backed or copying source, and
// EvaluateStream, which scores each video chunk straight from the encoder) gives exactly the embeddings,
// scores and metrics of the in-memory path, with a partial last chunk of videos and of queries.
func TestStreamedEvaluationMatchesInMemory(t *testing.T) {
	const dim = 12
	nv, nq := 2*EvalVideoChunk+3, EvalQueryChunk+5
	dts := []dtypes.DType{dtypes.Float32, dtypes.Float64}
	if backend.IsXLA() {
		// The chunking is host code, the same for both dtypes; each dtype compiles its own encoders and
		// scorers (minutes on XLA under load): float32, the dtype of training and of the CLI, on XLA.
		dts = dts[:1]
		t.Log("on XLA: float32 only (docs/xla.md §2)")
	}
	for _, dtype := range dts {
		t.Run(dtype.String(), func(t *testing.T) {
			c := tinyConfig()
			c.VideoDim, c.QueryDim = dim, dim
			c.FrameLen = 100 // benchGenerate draws 64…128 frames: both padding and down-sampling
			m, err := New(c)
			if err != nil {
				t.Fatal(err)
			}
			ev, err := NewEvaluator(backend.MustNew(), m, newTestStore(t, 3), dtype)
			if err != nil {
				t.Fatal(err)
			}
			split := benchSplitDim(nv, nq, 5, dim)
			files, err := newBenchFiles(t.TempDir(), nv, nq, 5, dim)
			if err != nil {
				t.Fatal(err)
			}
			defer files.Close()
			copying := &copyingSource{s: split, read: map[string]int{}}

			res, em, err := ev.Evaluate(split)
			if err != nil {
				t.Fatal(err)
			}
			if em.Videos != nv || em.Queries != nq || len(em.Frames) != nv*c.FrameLen*c.Dim ||
				len(em.Clips) != nv*em.ClipSteps*c.Dim || len(em.QueryVecs) != nq*c.Dim || len(em.FrameMask) != nv*c.FrameLen {
				t.Fatalf("embeddings of %d videos, %d queries have sizes clips %d, frames %d, queries %d, mask %d",
					em.Videos, em.Queries, len(em.Clips), len(em.Frames), len(em.QueryVecs), len(em.FrameMask))
			}
			for v := 0; v < nv; v++ {
				_, n := split.VideoFrames(v)
				sum := float32(0)
				for _, x := range em.FrameMask[v*c.FrameLen : (v+1)*c.FrameLen] {
					sum += x
				}
				if int(sum) != min(n, c.FrameLen) {
					t.Fatalf("video %d: frame mask sums to %v, want min(%d, %d)", v, sum, n, c.FrameLen)
				}
			}
			scores, err := ev.Scores(em)
			if err != nil {
				t.Fatal(err)
			}
			for _, src := range []prvr.Source{files, copying} {
				em2, err := ev.EncodeSource(src)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(em, em2) {
					t.Fatalf("%T: EncodeSource's embeddings differ from Encode's", src)
				}
				res2, em3, err := ev.EvaluateSource(src)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(res, res2) || !reflect.DeepEqual(em, em3) {
					t.Fatalf("%T: EvaluateSource differs from Evaluate:\n%+v\n%+v", src, res, res2)
				}
				res3, scores3, err := ev.EvaluateStream(src)
				if err != nil {
					t.Fatal(err)
				}
				if dtype == dtypes.Float64 {
					// Embeddings hold float32: Scores sees them rounded, EvaluateStream does not.
					for i := range scores {
						if d := scores[i] - scores3[i]; d > 1e-5 || d < -1e-5 || d != d {
							t.Fatalf("%T: EvaluateStream's score %d is %v, Scores' %v", src, i, scores3[i], scores[i])
						}
					}
					continue
				}
				if !reflect.DeepEqual(scores, scores3) {
					t.Fatalf("%T: EvaluateStream's scores differ from Scores'", src)
				}
				if !reflect.DeepEqual(res, res3) {
					t.Fatalf("%T: EvaluateStream's metrics differ from Evaluate's:\n%+v\n%+v", src, res, res3)
				}
			}
			// Each pass reads every video and query once (three passes above), not the whole split up front.
			if copying.read["clips"] != 3*nv || copying.read["frames"] != 3*nv || copying.read["tokens"] != 3*nq {
				t.Fatalf("reads %v, want %d clips and frames, %d tokens", copying.read, 3*nv, 3*nq)
			}
		})
	}
}

// A source whose dimensions do not fit the model is rejected before any encoding.
func TestEvaluateSourceChecksDims(t *testing.T) {
	c := tinyConfig()
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := NewEvaluator(backend.MustNew(), m, newTestStore(t, 1), dtypes.Float32)
	if err != nil {
		t.Fatal(err)
	}
	src := &copyingSource{s: benchSplitDim(3, 4, 1, c.VideoDim+1), read: map[string]int{}}
	if _, _, err := ev.EvaluateSource(src); err == nil {
		t.Fatal("EvaluateSource accepted features of the wrong dimension")
	}
	if _, _, err := ev.EvaluateStream(src); err == nil {
		t.Fatal("EvaluateStream accepted features of the wrong dimension")
	}
	if len(src.read) != 0 {
		t.Fatalf("features were read before the check: %v", src.read)
	}
}

package hlformer

import (
	"fmt"

	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// Evaluation chunk sizes: videos and queries are encoded (and scored) this many at a time, the last
// chunk padded, so that each graph compiles once (the code's eval_context_bsz 100, eval_query_bsz 50).
// 16 videos keep the paper-sized encoder's peak memory at ≈ 2 GB (128 videos: 5.3 GB) and were no
// slower on this CPU (BenchmarkPairedHLFormerEval on 334 videos: 38 s with 16, 37 s with 32, 76 s
// with 128).
const (
	EvalVideoChunk = 16
	EvalQueryChunk = 256
)

// Embeddings are a split's evaluation embeddings, L2-normalised (padded frames stay zero), row-major
// float32: clip-level [V, Tc, d] (Tc = ClipLen, or the 528 sliding windows of the MS-SL-like encoder),
// frame-level [V, FrameLen, d], queries [Q, d]. A disabled branch is nil.
type Embeddings struct {
	Videos, Queries int
	Dim             int
	ClipSteps       int
	Clips, Frames   []float32
	QueryVecs       []float32
	FrameMask       []float32 // [V, FrameLen]
}

// Evaluator encodes and scores a split with a model's current variables (PRVR protocol, spec §3.6).
// Its executables are compiled once per chunk shape and reused across epochs.
type Evaluator struct {
	m                          *Model
	store                      *model.Store
	dtype                      dtypes.DType
	videoExec, queryExec, simE *model.Exec
}

// NewEvaluator builds the encoders and the scorer of m over store's variables.
func NewEvaluator(backend compute.Backend, m *Model, store *model.Store, dtype dtypes.DType) (*Evaluator, error) {
	e := &Evaluator{m: m, store: store, dtype: dtype}
	c := m.Config
	var err error
	e.videoExec, err = model.NewExec(backend, store, func(scope *model.Scope, clips, frames, mask *Node) (*Node, *Node) {
		inference(scope, clips.Graph())
		var ce, fe *Node
		if c.Glance {
			ce = unitRows(m.ClipProposals(m.EncodeClips(scope, clips)))
		} else {
			ce = disabledBranch(frames, c.Dim)
		}
		if c.Gaze {
			fe = unitRows(m.EncodeFrames(scope, frames, mask))
		} else {
			fe = disabledBranch(frames, c.Dim)
		}
		return ce, fe
	})
	if err != nil {
		return nil, err
	}
	e.queryExec, err = model.NewExec(backend, store, func(scope *model.Scope, tokens, mask *Node) *Node {
		inference(scope, tokens.Graph())
		return unitRows(m.EncodeQuery(scope, tokens, mask))
	})
	if err != nil {
		return nil, err
	}
	// Scores of normalised queries [Qc, d] against normalised clip and frame embeddings of a video chunk.
	e.simE, err = model.NewExec(backend, store, func(scope *model.Scope, q, clips, frames *Node) *Node {
		var sc, sf *Node
		if c.Glance {
			sc = MaxOverTimeScores(q, clips, false)
		}
		if c.Gaze {
			sf = MaxOverTimeScores(q, frames, false)
		}
		return m.Similarity(sc, sf)
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// disabledBranch stands in for the embeddings of a switched-off branch (w/o gaze, w/o glance): one zero
// time step of width d per video, so that the score graph and Scores' row arithmetic keep their shapes
// and the branch contributes nothing (Similarity leaves it out).
func disabledBranch(frames *Node, d int) *Node {
	return Zeros(frames.Graph(), shapes.Make(frames.DType(), frames.Shape().Dim(0), 1, d))
}

// inference marks g as an inference graph whose variables stay parameters (see inferenceParam), so that
// the executable sees the current weights at every call.
func inference(scope *model.Scope, g *Graph) {
	scope.Store().SetTraining(g, true)
	scope.SetGraphParam(g, inferenceParam, true)
}

// chunks calls fn for [start, end) ranges of size chunk over n, with the indices padded by −1 to chunk.
func chunks(n, chunk int, fn func(start, end int, idx []int) error) error {
	for start := 0; start < n; start += chunk {
		end := min(start+chunk, n)
		idx := make([]int, chunk)
		for i := range idx {
			idx[i] = -1
			if start+i < end {
				idx[i] = start + i
			}
		}
		if err := fn(start, end, idx); err != nil {
			return err
		}
	}
	return nil
}

func flat32(t *tensors.Tensor) []float32 {
	defer t.FinalizeAll()
	switch t.DType() {
	case dtypes.Float64:
		x := tensors.MustCopyFlatData[float64](t)
		y := make([]float32, len(x))
		for i, v := range x {
			y[i] = float32(v)
		}
		return y
	default:
		return tensors.MustCopyFlatData[float32](t)
	}
}

// Encode computes the evaluation embeddings of every video and query of s.
func (e *Evaluator) Encode(s *prvr.Split) (*Embeddings, error) {
	c := e.m.Config
	if err := CheckSplit(s, c); err != nil {
		return nil, err
	}
	em := &Embeddings{Videos: s.NumVideos(), Queries: s.NumQueries(), Dim: c.Dim}
	err := chunks(s.NumVideos(), EvalVideoChunk, func(start, end int, idx []int) error {
		clips, frames, mask := VideoInputs(s, idx, c, e.dtype)
		out, err := e.videoExec.Exec(clips, frames, mask)
		if err != nil {
			return fmt.Errorf("hlformer: encoding videos %d–%d: %w", start, end, err)
		}
		em.ClipSteps = out[0].Shape().Dim(1)
		ce, fe := flat32(out[0]), flat32(out[1])
		em.Clips = append(em.Clips, ce[:(end-start)*len(ce)/EvalVideoChunk]...)
		em.Frames = append(em.Frames, fe[:(end-start)*len(fe)/EvalVideoChunk]...)
		for v := start; v < end; v++ {
			_, n := s.VideoFrames(v)
			for t := 0; t < c.FrameLen; t++ {
				em.FrameMask = append(em.FrameMask, map[bool]float32{true: 1, false: 0}[t < n])
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = chunks(s.NumQueries(), EvalQueryChunk, func(start, end int, idx []int) error {
		tokens, mask := QueryInputs(s, idx, c, e.dtype)
		out, err := e.queryExec.Exec(tokens, mask)
		if err != nil {
			return fmt.Errorf("hlformer: encoding queries %d–%d: %w", start, end, err)
		}
		q := flat32(out[0])
		em.QueryVecs = append(em.QueryVecs, q[:(end-start)*c.Dim]...)
		return nil
	})
	return em, err
}

// Scores returns the [Q, V] score matrix S = α_c S_c + α_f S_f of the embeddings, row-major.
func (e *Evaluator) Scores(em *Embeddings) ([]float32, error) {
	c := e.m.Config
	d := em.Dim
	scores := make([]float32, em.Queries*em.Videos)
	clipRow, frameRow := len(em.Clips)/max(em.Videos, 1), len(em.Frames)/max(em.Videos, 1)
	pad := func(src []float32, rows, rowLen, want int) []float32 {
		out := make([]float32, want*rowLen)
		copy(out, src[:rows*rowLen])
		return out
	}
	return scores, chunks(em.Videos, EvalVideoChunk, func(v0, v1 int, _ []int) error {
		clipT := asTensor(pad(em.Clips[v0*clipRow:], v1-v0, clipRow, EvalVideoChunk), e.dtype, EvalVideoChunk, clipRow/d, d)
		frameT := asTensor(pad(em.Frames[v0*frameRow:], v1-v0, frameRow, EvalVideoChunk), e.dtype, EvalVideoChunk, frameRow/d, d)
		defer clipT.FinalizeAll()
		defer frameT.FinalizeAll()
		return chunks(em.Queries, EvalQueryChunk, func(q0, q1 int, _ []int) error {
			qT := asTensor(pad(em.QueryVecs[q0*d:], q1-q0, d, EvalQueryChunk), e.dtype, EvalQueryChunk, d)
			out, err := e.simE.Exec(qT, clipT, frameT)
			qT.FinalizeAll()
			if err != nil {
				return fmt.Errorf("hlformer: scoring queries %d–%d × videos %d–%d: %w", q0, q1, v0, v1, err)
			}
			block := flat32(out[0]) // [EvalQueryChunk, EvalVideoChunk]
			for q := q0; q < q1; q++ {
				copy(scores[q*em.Videos+v0:q*em.Videos+v1], block[(q-q0)*EvalVideoChunk:(q-q0)*EvalVideoChunk+v1-v0])
			}
			_ = c
			return nil
		})
	})
}

// Evaluate encodes s, scores every query against every video and computes the PRVR metrics
// (R@1/5/10/100, SumR, MdR, MnR; text→video, spec §3.6) through lib/retrieval.
func (e *Evaluator) Evaluate(s *prvr.Split) (retrieval.Result, *Embeddings, error) {
	em, err := e.Encode(s)
	if err != nil {
		return retrieval.Result{}, nil, err
	}
	scores, err := e.Scores(em)
	if err != nil {
		return retrieval.Result{}, nil, err
	}
	res, err := EvaluateScores(scores, s)
	return res, em, err
}

// EvaluateScores computes the PRVR metrics of a row-major [queries × videos] score matrix of s.
func EvaluateScores(scores []float32, s *prvr.Split) (retrieval.Result, error) {
	mat, err := retrieval.NewMatrix(s.NumQueries(), s.NumVideos(), scores)
	if err != nil {
		return retrieval.Result{}, err
	}
	return retrieval.Evaluate[float32](mat, s.QueryVideo, retrieval.Options{Ks: retrieval.PRVRKs})
}

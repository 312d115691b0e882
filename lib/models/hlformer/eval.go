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
// The backend's working set (intermediate buffers, pooled between calls) grows with the chunk: with
// 8 videos and 64 queries BenchmarkPairedHLFormerEval on 334 videos peaked at 1.0 GB RSS and took 13 s,
// with 16 and 256 at 1.7 GB and 14 s (128 videos: 5.3 GB, twice slower; 4 and 64: 0.83 GB, 15 s).
const (
	EvalVideoChunk = 8
	EvalQueryChunk = 64
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

// Evaluator encodes and scores a split with a model's current variables (PRVR protocol, docs/official-code.md §3.6).
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

// copyFlat copies the first len(dst) values of t (float32 or float64) into dst, without an
// intermediate copy of the whole tensor.
func copyFlat(dst []float32, t *tensors.Tensor) {
	switch t.DType() {
	case dtypes.Float64:
		tensors.MustConstFlatData(t, func(x []float64) {
			for i := range dst {
				dst[i] = float32(x[i])
			}
		})
	default:
		tensors.MustConstFlatData(t, func(x []float32) { copy(dst, x[:len(dst)]) })
	}
}

// finalize frees the device and host memory of ts at once rather than when the garbage collector
// gets to them (a chunk's inputs and outputs are tens of MB).
func finalize(ts ...*tensors.Tensor) {
	for _, t := range ts {
		if t != nil {
			t.FinalizeAll()
		}
	}
}

// Encode computes the evaluation embeddings of every video and query of s.
func (e *Evaluator) Encode(s *prvr.Split) (*Embeddings, error) {
	if err := CheckSplit(s, e.m.Config); err != nil {
		return nil, err
	}
	return e.encode(s)
}

// EncodeSource is Encode for any prvr.Source: videos and queries are read from src one chunk
// (EvalVideoChunk videos, EvalQueryChunk queries) at a time, so a lazily-read source never holds more
// than a chunk of input features. The embeddings are identical to Encode's for the same features.
func (e *Evaluator) EncodeSource(src prvr.Source) (*Embeddings, error) {
	if err := CheckSource(src, e.m.Config); err != nil {
		return nil, err
	}
	return e.encode(src)
}

// encode fills embeddings allocated once at their final size (no append growth) from the outputs of
// each chunk, finalizing every chunk's input and output tensors as soon as they are copied.
func (e *Evaluator) encode(src prvr.Source) (*Embeddings, error) {
	c := e.m.Config
	nv, nq := src.NumVideos(), src.NumQueries()
	em := &Embeddings{Videos: nv, Queries: nq, Dim: c.Dim,
		FrameMask: make([]float32, nv*c.FrameLen), QueryVecs: make([]float32, nq*c.Dim)}
	err := chunks(nv, EvalVideoChunk, func(start, end int, idx []int) error {
		clips, frames, mask := SourceVideoInputs(src, idx, c, e.dtype)
		out, err := e.videoExec.Exec(clips, frames, mask)
		copyFlat(em.FrameMask[start*c.FrameLen:end*c.FrameLen], mask)
		finalize(clips, frames, mask)
		if err != nil {
			return fmt.Errorf("hlformer: encoding videos %d–%d: %w", start, end, err)
		}
		defer finalize(out...)
		clipRow, frameRow := out[0].Shape().Size()/EvalVideoChunk, out[1].Shape().Size()/EvalVideoChunk
		if em.Clips == nil {
			em.ClipSteps = out[0].Shape().Dim(1)
			em.Clips, em.Frames = make([]float32, nv*clipRow), make([]float32, nv*frameRow)
		}
		copyFlat(em.Clips[start*clipRow:end*clipRow], out[0])
		copyFlat(em.Frames[start*frameRow:end*frameRow], out[1])
		return nil
	})
	if err != nil {
		return nil, err
	}
	return em, e.encodeQueries(src, em.QueryVecs)
}

// encodeQueries fills vecs ([Q, d]) with the normalised query embeddings of src.
func (e *Evaluator) encodeQueries(src prvr.Source, vecs []float32) error {
	c := e.m.Config
	return chunks(src.NumQueries(), EvalQueryChunk, func(start, end int, idx []int) error {
		tokens, mask := SourceQueryInputs(src, idx, c, e.dtype)
		out, err := e.queryExec.Exec(tokens, mask)
		finalize(tokens, mask)
		if err != nil {
			return fmt.Errorf("hlformer: encoding queries %d–%d: %w", start, end, err)
		}
		defer finalize(out...)
		copyFlat(vecs[start*c.Dim:end*c.Dim], out[0])
		return nil
	})
}

// Scores returns the [Q, V] score matrix S = α_c S_c + α_f S_f of the embeddings, row-major.
func (e *Evaluator) Scores(em *Embeddings) ([]float32, error) {
	d := em.Dim
	scores := make([]float32, em.Queries*em.Videos)
	clipRow, frameRow := len(em.Clips)/max(em.Videos, 1), len(em.Frames)/max(em.Videos, 1)
	sc := e.newScorer(em.QueryVecs, em.Queries, em.Videos, d, scores)
	defer sc.finalize()
	return scores, chunks(em.Videos, EvalVideoChunk, func(v0, v1 int, _ []int) error {
		clipT := asTensor(padRows(em.Clips[v0*clipRow:], v1-v0, clipRow, EvalVideoChunk), e.dtype, EvalVideoChunk, clipRow/d, d)
		frameT := asTensor(padRows(em.Frames[v0*frameRow:], v1-v0, frameRow, EvalVideoChunk), e.dtype, EvalVideoChunk, frameRow/d, d)
		defer finalize(clipT, frameT)
		return sc.score(v0, v1, clipT, frameT)
	})
}

// padRows copies rows·rowLen values of src into a zeroed slice of want rows.
func padRows(src []float32, rows, rowLen, want int) []float32 {
	out := make([]float32, want*rowLen)
	copy(out, src[:rows*rowLen])
	return out
}

// scorer scores chunks of EvalVideoChunk videos against every query, writing columns of a [Q, V]
// row-major score matrix; the query chunks are packed once (Q·d floats in all).
type scorer struct {
	e       *Evaluator
	queries []*tensors.Tensor
	nq, nv  int
	scores  []float32
	block   []float32
}

func (e *Evaluator) newScorer(queryVecs []float32, nq, nv, d int, scores []float32) *scorer {
	sc := &scorer{e: e, nq: nq, nv: nv, scores: scores, block: make([]float32, EvalQueryChunk*EvalVideoChunk)}
	_ = chunks(nq, EvalQueryChunk, func(q0, q1 int, _ []int) error {
		sc.queries = append(sc.queries, asTensor(padRows(queryVecs[q0*d:], q1-q0, d, EvalQueryChunk), e.dtype, EvalQueryChunk, d))
		return nil
	})
	return sc
}

func (sc *scorer) finalize() { finalize(sc.queries...) }

// score fills the columns v0…v1−1 of the score matrix from the normalised clip and frame embeddings
// of one chunk ([EvalVideoChunk, T, d] each; rows past v1−v0 are padding and ignored).
func (sc *scorer) score(v0, v1 int, clipT, frameT *tensors.Tensor) error {
	return chunks(sc.nq, EvalQueryChunk, func(q0, q1 int, _ []int) error {
		out, err := sc.e.simE.Exec(sc.queries[q0/EvalQueryChunk], clipT, frameT)
		if err != nil {
			return fmt.Errorf("hlformer: scoring queries %d–%d × videos %d–%d: %w", q0, q1, v0, v1, err)
		}
		copyFlat(sc.block, out[0]) // [EvalQueryChunk, EvalVideoChunk]
		finalize(out...)
		for q := q0; q < q1; q++ {
			copy(sc.scores[q*sc.nv+v0:q*sc.nv+v1], sc.block[(q-q0)*EvalVideoChunk:(q-q0)*EvalVideoChunk+v1-v0])
		}
		return nil
	})
}

// Evaluate encodes s, scores every query against every video and computes the PRVR metrics
// (R@1/5/10/100, SumR, MdR, MnR; text→video, docs/official-code.md §3.6) through lib/retrieval.
func (e *Evaluator) Evaluate(s *prvr.Split) (retrieval.Result, *Embeddings, error) {
	if err := CheckSplit(s, e.m.Config); err != nil {
		return retrieval.Result{}, nil, err
	}
	return e.EvaluateSource(s)
}

// EvaluateSource is Evaluate for any prvr.Source, read one chunk at a time (see EncodeSource): only
// the embeddings, the [Q, V] score matrix and one chunk of input features are held in memory.
func (e *Evaluator) EvaluateSource(src prvr.Source) (retrieval.Result, *Embeddings, error) {
	em, err := e.EncodeSource(src)
	if err != nil {
		return retrieval.Result{}, nil, err
	}
	scores, err := e.Scores(em)
	if err != nil {
		return retrieval.Result{}, nil, err
	}
	res, err := EvaluateSourceScores(scores, src)
	return res, em, err
}

// EvaluateStream computes the same metrics and [Q, V] score matrix as EvaluateSource without keeping
// the video embeddings: it encodes the queries, then encodes each chunk of EvalVideoChunk videos and
// scores it against every query straight from the encoder's outputs before reading the next chunk. Its
// memory is the model, the queries' embeddings, the score matrix and one chunk, whatever the number of
// videos (EvaluateSource also holds every video's clip and frame embeddings: ≈ 250 KB per video at
// d = 384). Use it when only the metrics or the scores are needed (e.g. validation during training).
// With a float32 evaluator the scores are identical to Scores'; with float64 they come from the
// full-precision embeddings, which Embeddings would round to float32.
func (e *Evaluator) EvaluateStream(src prvr.Source) (retrieval.Result, []float32, error) {
	c := e.m.Config
	if err := CheckSource(src, c); err != nil {
		return retrieval.Result{}, nil, err
	}
	nv, nq := src.NumVideos(), src.NumQueries()
	queryVecs := make([]float32, nq*c.Dim)
	if err := e.encodeQueries(src, queryVecs); err != nil {
		return retrieval.Result{}, nil, err
	}
	scores := make([]float32, nq*nv)
	sc := e.newScorer(queryVecs, nq, nv, c.Dim, scores)
	defer sc.finalize()
	err := chunks(nv, EvalVideoChunk, func(start, end int, idx []int) error {
		clips, frames, mask := SourceVideoInputs(src, idx, c, e.dtype)
		out, err := e.videoExec.Exec(clips, frames, mask)
		finalize(clips, frames, mask)
		if err != nil {
			return fmt.Errorf("hlformer: encoding videos %d–%d: %w", start, end, err)
		}
		defer finalize(out...)
		return sc.score(start, end, out[0], out[1])
	})
	if err != nil {
		return retrieval.Result{}, nil, err
	}
	res, err := EvaluateSourceScores(scores, src)
	return res, scores, err
}

// EvaluateScores computes the PRVR metrics of a row-major [queries × videos] score matrix of s.
func EvaluateScores(scores []float32, s *prvr.Split) (retrieval.Result, error) {
	mat, err := retrieval.NewMatrix(s.NumQueries(), s.NumVideos(), scores)
	if err != nil {
		return retrieval.Result{}, err
	}
	return retrieval.Evaluate[float32](mat, s.QueryVideo, retrieval.Options{Ks: retrieval.PRVRKs})
}

// EvaluateSourceScores is EvaluateScores for any prvr.Source (ground truth from src.GroundTruth).
func EvaluateSourceScores(scores []float32, src prvr.Source) (retrieval.Result, error) {
	if s, ok := src.(*prvr.Split); ok {
		return EvaluateScores(scores, s)
	}
	gt := make([]int, src.NumQueries())
	for q := range gt {
		gt[q] = src.GroundTruth(q)
	}
	mat, err := retrieval.NewMatrix(src.NumQueries(), src.NumVideos(), scores)
	if err != nil {
		return retrieval.Result{}, err
	}
	return retrieval.Evaluate[float32](mat, gt, retrieval.Options{Ks: retrieval.PRVRKs})
}

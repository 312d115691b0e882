package gare

import (
	"fmt"
	"math"

	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/train"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// VideoSource yields the given frame features of videos block by block, so that scoring never
// needs every video in memory (a Dataset holds them; RandomVideos generates them on the fly).
type VideoSource interface {
	NumVideos() int
	// ReadVideos writes the frames [(i1−i0)·Frames·VideoDim] and the frame mask [(i1−i0)·Frames]
	// of videos [i0, i1).
	ReadVideos(i0, i1 int, frames, mask []float32) error
}

// Videos returns the dataset's videos as a VideoSource.
func (d *Dataset) Videos() VideoSource { return datasetVideos{d} }

type datasetVideos struct{ d *Dataset }

func (v datasetVideos) NumVideos() int { return v.d.NumVideos }

func (v datasetVideos) ReadVideos(i0, i1 int, frames, mask []float32) error {
	d := v.d
	if i0 < 0 || i1 > d.NumVideos || i0 > i1 {
		return fmt.Errorf("gare: videos [%d, %d) outside [0, %d)", i0, i1, d.NumVideos)
	}
	copy(frames, d.Video[i0*d.Frames*d.VideoDim:i1*d.Frames*d.VideoDim])
	copy(mask, d.FrameMask[i0*d.Frames:i1*d.Frames])
	return nil
}

// ScoreMode selects what a Scorer computes.
type ScoreMode int

const (
	// ScoreModel is the model's similarity: GARE's S_ij = cos(t_i + Δ_ij, v_ij) with Δ computed for
	// every pair (or the baseline's cos(t_i, v_ij)).
	ScoreModel ScoreMode = iota
	// ScoreMeanCosine is the dual-tower shortlist score cos(t_i, v̄_j) with the frame mean v̄_j
	// (GARE Appendix I: an ANN-compatible first stage that ignores Δ and the text-conditioned
	// pooling).
	ScoreMeanCosine
)

// ScorerOptions set the block sizes of a Scorer (compiled shapes; partial blocks are padded).
type ScorerOptions struct {
	Mode       ScoreMode
	TextBlock  int // texts per executable call (default 256)
	VideoBlock int // videos per executable call (default 256)
}

// Default block sizes: 256 × 256 pairs per call keeps every per-pair tensor of the factored scores
// ([A, B, F] floats) at 3 MiB, and amortises each video block's O(F·D²) preparation over all
// texts of a strip.
const (
	DefaultTextBlock  = 256
	DefaultVideoBlock = 256
)

// Scorer scores texts against videos block by block in constant memory (GARE Fig. 10): per block of
// videos it prepares the text-independent part once, then computes the scores of every block of
// texts against it; Δ is never stored. It implements retrieval.BlockScorer[float32] (rows = texts,
// columns = videos) and retrieval.CandidateScorer[float32] (the two-stage re-ranking).
type Scorer struct {
	m        *Model
	mode     ScoreMode
	texts    *Dataset // raw text features (NumTexts, TextDim, Words)
	encoded  []float32
	videos   VideoSource
	tb, vb   int
	frames   int
	videoDim int

	textExec, videoExec, pairExec *model.Exec
	// Per-call buffers.
	frameBuf, maskBuf []float32
}

// NewScorer prepares a scorer of texts (taken from the dataset's text side) against videos. Its
// executables are inference graphs that read the model's weights at every call
// (train.NewInferenceExec), so a scorer can be kept across training (validation): Refresh then
// re-encodes the texts with the current weights.
func (m *Model) NewScorer(texts *Dataset, videos VideoSource, opts ScorerOptions) (*Scorer, error) {
	cfg := m.Config
	if texts.TextDim != cfg.TextInputDim {
		return nil, fmt.Errorf("gare: texts of %q have width %d, the model expects %d", texts.Name, texts.TextDim, cfg.TextInputDim)
	}
	if texts.Frames != cfg.Frames || texts.VideoDim != cfg.VideoInputDim {
		return nil, fmt.Errorf("gare: dataset %q has %d frames × %d, the model expects %d × %d", texts.Name, texts.Frames, texts.VideoDim, cfg.Frames, cfg.VideoInputDim)
	}
	if cfg.UseDelta && !cfg.factored() && texts.WordFeats == nil && opts.Mode == ScoreModel {
		return nil, fmt.Errorf("gare: ContextWords needs word features, dataset %q has none", texts.Name)
	}
	s := &Scorer{m: m, mode: opts.Mode, texts: texts, videos: videos, tb: opts.TextBlock, vb: opts.VideoBlock,
		frames: cfg.Frames, videoDim: cfg.VideoInputDim}
	if s.tb <= 0 {
		s.tb = DefaultTextBlock
	}
	if s.vb <= 0 {
		s.vb = DefaultVideoBlock
	}
	s.tb, s.vb = min(s.tb, texts.NumTexts), min(s.vb, videos.NumVideos())
	if err := s.build(); err != nil {
		return nil, err
	}
	if s.textExec != nil {
		if err := s.encodeTexts(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *Scorer) build() error {
	m, cfg := s.m, s.m.Config
	var err error
	newExec := func(fn func(scope *model.Scope, in []*Node) []*Node) *model.Exec {
		if err != nil {
			return nil
		}
		var e *model.Exec
		e, err = train.NewInferenceExec(m.backend, m.Store, fn)
		return e
	}
	encodeFrames := func(w Weights, frames, mask *Node) *Node { return EncodeVideo(w, frames, mask) }
	switch {
	case s.mode == ScoreMeanCosine:
		s.textExec = newExec(func(scope *model.Scope, in []*Node) []*Node {
			return []*Node{unitRows(EncodeText(m.Weights(in[0].Graph()), in[0]))}
		})
		s.videoExec = newExec(func(scope *model.Scope, in []*Node) []*Node {
			w := m.Weights(in[0].Graph())
			return []*Node{unitRows(FrameMean(encodeFrames(w, in[0], in[1])))}
		})
		s.pairExec = newExec(func(scope *model.Scope, in []*Node) []*Node {
			return []*Node{MatMul(in[0], Transpose(in[1], 0, 1))}
		})
	case !cfg.UseDelta || cfg.factored():
		s.textExec = newExec(func(scope *model.Scope, in []*Node) []*Node {
			return []*Node{EncodeText(m.Weights(in[0].Graph()), in[0])}
		})
		s.videoExec = newExec(func(scope *model.Scope, in []*Node) []*Node {
			w := m.Weights(in[0].Graph())
			return newVideoSide(cfg, w.Psi, encodeFrames(w, in[0], in[1]), in[1]).list()
		})
		s.pairExec = newExec(func(scope *model.Scope, in []*Node) []*Node {
			w := m.Weights(in[0].Graph())
			return []*Node{factoredScores(cfg, w.Psi, in[0], videoSideFromList(in[1:]))}
		})
	default:
		// Word context: the per-pair forward on raw features, block by block.
		s.pairExec = newExec(func(scope *model.Scope, in []*Node) []*Node {
			w := m.Weights(in[0].Graph())
			out := Forward(cfg, w, Inputs{Text: in[0], Words: in[1], WordMask: in[2], Frames: in[3], FrameMask: in[4]}, nil)
			return []*Node{out.Sim}
		})
	}
	return err
}

// unitRows scales the rows of x [N, D] to unit length (no epsilon: features are never zero).
func unitRows(x *Node) *Node { return Div(x, Sqrt(ReduceAndKeep(Square(x), ReduceSum, -1))) }

// Refresh re-encodes the texts with the model's current weights (after training steps); the
// video side and the pair scores are computed at every call anyway.
func (s *Scorer) Refresh() error {
	if s.textExec == nil {
		return nil
	}
	return s.encodeTexts()
}

// encodeTexts runs the text tower once over all texts.
func (s *Scorer) encodeTexts() error {
	n, dt, d := s.texts.NumTexts, s.texts.TextDim, s.m.Config.Dim
	s.encoded = make([]float32, n*d)
	buf := make([]float32, s.tb*dt)
	for q0 := 0; q0 < n; q0 += s.tb {
		q1 := min(q0+s.tb, n)
		padRows(buf, s.texts.Text, q0, q1, s.tb, dt)
		out, err := s.textExec.Exec(tensors.FromFlatDataAndDimensions(buf, s.tb, dt))
		if err != nil {
			return fmt.Errorf("gare: encoding texts: %w", err)
		}
		flat := tensors.MustCopyFlatData[float32](out[0])
		copy(s.encoded[q0*d:q1*d], flat[:(q1-q0)*d])
	}
	return nil
}

// padRows copies rows [r0, r1) of src (rows of width w) into dst, which holds `rows` rows, and
// fills the remaining rows with copies of the last one (padding that is computed and discarded).
func padRows(dst, src []float32, r0, r1, rows, w int) {
	n := copy(dst, src[r0*w:r1*w]) / w
	for r := n; r < rows; r++ {
		copy(dst[r*w:(r+1)*w], src[(r1-1)*w:r1*w])
	}
}

// Shape implements retrieval.BlockScorer.
func (s *Scorer) Shape() (int, int) { return s.texts.NumTexts, s.videos.NumVideos() }

// ScoreBlock implements retrieval.BlockScorer: dst[(q−q0)·(i1−i0) + (i−i0)] = S(text q, video i).
func (s *Scorer) ScoreBlock(q0, q1, i0, i1 int, dst []float32) error {
	width := i1 - i0
	for v0 := i0; v0 < i1; v0 += s.vb {
		v1 := min(v0+s.vb, i1)
		frames, mask, err := s.videoBlock(v0, v1, nil)
		if err != nil {
			return err
		}
		var side []*tensors.Tensor
		if s.videoExec != nil {
			if side, err = s.videoExec.Exec(frames, mask); err != nil {
				return fmt.Errorf("gare: video block [%d, %d): %w", v0, v1, err)
			}
		}
		for t0 := q0; t0 < q1; t0 += s.tb {
			t1 := min(t0+s.tb, q1)
			scores, err := s.pairs(t0, t1, s.tb, side, frames, mask)
			if err != nil {
				return err
			}
			for r := t0; r < t1; r++ {
				copy(dst[(r-q0)*width+(v0-i0):(r-q0)*width+(v1-i0)], scores[(r-t0)*s.vb:(r-t0)*s.vb+(v1-v0)])
			}
		}
	}
	return nil
}

// videoBlock reads videos [v0, v1) (or the listed items) into padded [VideoBlock, F, Dv] tensors.
func (s *Scorer) videoBlock(v0, v1 int, items []int32) (frames, mask *tensors.Tensor, err error) {
	fw, n := s.frames*s.videoDim, s.vb
	if s.frameBuf == nil {
		s.frameBuf, s.maskBuf = make([]float32, n*fw), make([]float32, n*s.frames)
	}
	count := v1 - v0
	if items != nil {
		count = len(items)
		for k, it := range items {
			if err := s.videos.ReadVideos(int(it), int(it)+1, s.frameBuf[k*fw:(k+1)*fw], s.maskBuf[k*s.frames:(k+1)*s.frames]); err != nil {
				return nil, nil, err
			}
		}
	} else if err := s.videos.ReadVideos(v0, v1, s.frameBuf[:count*fw], s.maskBuf[:count*s.frames]); err != nil {
		return nil, nil, err
	}
	padRows(s.frameBuf, s.frameBuf, 0, count, n, fw)
	padRows(s.maskBuf, s.maskBuf, 0, count, n, s.frames)
	return tensors.FromFlatDataAndDimensions(s.frameBuf, n, s.frames, s.videoDim),
		tensors.FromFlatDataAndDimensions(s.maskBuf, n, s.frames), nil
}

// pairs scores texts [t0, t1) (padded to `rows` texts) against the prepared video block; the
// result has `rows` rows of VideoBlock scores.
func (s *Scorer) pairs(t0, t1, rows int, side []*tensors.Tensor, frames, mask *tensors.Tensor) ([]float32, error) {
	var args []any
	if s.encoded != nil {
		d := s.m.Config.Dim
		buf := make([]float32, rows*d)
		padRows(buf, s.encoded, t0, t1, rows, d)
		args = append(args, tensors.FromFlatDataAndDimensions(buf, rows, d))
		for _, x := range side {
			args = append(args, x)
		}
	} else {
		td, tw := s.texts.TextDim, s.texts.Words
		text := make([]float32, rows*td)
		words := make([]float32, rows*tw*td)
		wmask := make([]float32, rows*tw)
		padRows(text, s.texts.Text, t0, t1, rows, td)
		padRows(words, s.texts.WordFeats, t0, t1, rows, tw*td)
		padRows(wmask, s.texts.WordMask, t0, t1, rows, tw)
		args = append(args, tensors.FromFlatDataAndDimensions(text, rows, td),
			tensors.FromFlatDataAndDimensions(words, rows, tw, td), tensors.FromFlatDataAndDimensions(wmask, rows, tw), frames, mask)
	}
	out, err := s.pairExec.Exec(args...)
	if err != nil {
		return nil, fmt.Errorf("gare: scoring texts [%d, %d): %w", t0, t1, err)
	}
	return tensors.MustCopyFlatData[float32](out[0]), nil
}

// ScoreCandidates implements retrieval.CandidateScorer: the scores of text q against the listed
// videos, Δ computed for those pairs only (the second stage of the two-stage mode).
func (s *Scorer) ScoreCandidates(q int, items []int32, dst []float32) error {
	for k0 := 0; k0 < len(items); k0 += s.vb {
		k1 := min(k0+s.vb, len(items))
		frames, mask, err := s.videoBlock(0, 0, items[k0:k1])
		if err != nil {
			return err
		}
		var side []*tensors.Tensor
		if s.videoExec != nil {
			if side, err = s.videoExec.Exec(frames, mask); err != nil {
				return err
			}
		}
		scores, err := s.pairs(q, q+1, 1, side, frames, mask)
		if err != nil {
			return err
		}
		copy(dst[k0:k1], scores[:k1-k0])
	}
	return nil
}

// Matrix scores every text against every video into a retrieval.Matrix (small sets only: it holds
// NumTexts × NumVideos floats).
func (s *Scorer) Matrix() (retrieval.Matrix[float32], error) {
	nq, ni := s.Shape()
	data := make([]float32, nq*ni)
	if err := s.ScoreBlock(0, nq, 0, ni, data); err != nil {
		return retrieval.Matrix[float32]{}, err
	}
	for i, v := range data {
		if math.IsNaN(float64(v)) {
			return retrieval.Matrix[float32]{}, fmt.Errorf("gare: NaN score for text %d, video %d", i/ni, i%ni)
		}
	}
	return retrieval.NewMatrix(nq, ni, data)
}

var (
	_ retrieval.BlockScorer[float32]     = (*Scorer)(nil)
	_ retrieval.CandidateScorer[float32] = (*Scorer)(nil)
)

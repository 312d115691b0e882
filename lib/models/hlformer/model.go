package hlformer

import (
	"math"

	"github.com/geoalign/geoalign/lib/geom"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
	"github.com/gomlx/gomlx/ml/model"
)

const (
	// PoolingMaskFill is mask_logits' fill for padded query tokens in the attention pooling,
	// target·mask + (1 − mask)·(−1e10) (docs/official-code.md §3.2).
	PoolingMaskFill = -1e10
	// NormalizeEpsilon is F.normalize's eps: x / max(‖x‖, 1e-12), used for the cosine scores.
	NormalizeEpsilon = 1e-12
	// CurvatureInit, CurvatureMin and CurvatureMax: the POP curvature c = exp(curv) starts at 1 and is
	// clamped in place to [0.1, 10] (curv_init/10, curv_init·10; docs/official-code.md §3.2).
	CurvatureInit, CurvatureMin, CurvatureMax = 1.0, 0.1, 10.0
)

// Model is an HLFormer (or MS-SL-like) model: a Config plus the GoMLX graph functions that encode
// queries and videos and score them. Variables live in the scope passed to each function (the same
// scope must be used for training and evaluation).
type Model struct {
	Config Config
	// Trace, if set, receives every Lorentz block's trace while graphs are built.
	Trace TraceFn
}

// New validates c and returns the model.
func New(c Config) (*Model, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &Model{Config: c}, nil
}

// EncodeQuery is the query branch (HLFormer Eq. 7; docs/official-code.md §3.2): tokens [Q, Lq, D_q] with tokenMask
// [Q, Lq] (1 = token) → LinearLayer → positional encoding → one Euclidean block (no Gaussian mask) →
// attention pooling softmax_t(w·q_t) over the valid tokens → q [Q, d].
func (m *Model) EncodeQuery(scope *model.Scope, tokens, tokenMask *Node) *Node {
	c := m.Config
	scope = scope.At("query") // At: the training loss encodes the queries twice with the same weights
	x := LinearLayer(scope.In("input_proj"), tokens, c.Dim, c.InputDropout)
	x = PositionalEncoding(scope.In("position"), x, c.QueryLen, c.InputDropout)
	x = EuclideanBlock(scope.In("encoder"), x, tokenMask, 0, c)
	score := Squeeze(linear(scope.In("pooling"), x, 1, false), -1) // [Q, Lq]
	score = Add(Mul(score, tokenMask), MulScalar(OneMinus(tokenMask), PoolingMaskFill))
	return Einsum("ql,qld->qd", Softmax(score, -1), x)
}

// videoBranch is the shared part of the glance and gaze branches: LinearLayer → positional encoding
// (max_ctx_l positions) → HLFormer block (or, for the MS-SL-like encoder, one plain Euclidean block).
func (m *Model) videoBranch(scope *model.Scope, feats, mask *Node) *Node {
	c := m.Config
	x := LinearLayer(scope.In("input_proj"), feats, c.Dim, c.InputDropout)
	x = PositionalEncoding(scope.In("position"), x, max(c.FrameLen, c.ClipLen), c.InputDropout)
	if c.Encoder == MSSLEncoder {
		return EuclideanBlock(scope.In("encoder"), x, mask, 0, c)
	}
	return HLFormerBlock(scope.In("encoder"), x, mask, c, m.Trace)
}

// EncodeClips is the glance branch (HLFormer §3.2): clip features [V, ClipLen, D] → [V, ClipLen, d]
// (no padding: every video has ClipLen clips).
func (m *Model) EncodeClips(scope *model.Scope, clips *Node) *Node {
	return m.videoBranch(scope.In("clip"), clips, nil)
}

// EncodeFrames is the gaze branch (HLFormer §3.2): frame features [V, FrameLen, D] with frameMask
// [V, FrameLen] → [V, FrameLen, d], zero at padded frames (as in the code).
func (m *Model) EncodeFrames(scope *model.Scope, frames, frameMask *Node) *Node {
	out := m.videoBranch(scope.In("frame"), frames, frameMask)
	return Mul(out, InsertAxes(frameMask, -1))
}

// ClipProposals is the MS-SL-like encoder's clip level: the means of every window of 1…L consecutive
// clips (stride 1), clips [V, L, d] → [V, L(L+1)/2, d]. For other encoders it returns clips unchanged.
func (m *Model) ClipProposals(clips *Node) *Node {
	if m.Config.Encoder != MSSLEncoder {
		return clips
	}
	length := clips.Shape().Dim(1)
	var weights []float64
	for size := 1; size <= length; size++ {
		for start := 0; start+size <= length; start++ {
			row := make([]float64, length)
			for j := start; j < start+size; j++ {
				row[j] = 1 / float64(size)
			}
			weights = append(weights, row...)
		}
	}
	p := ConvertDType(Reshape(Const(clips.Graph(), weights), len(weights)/length, length), clips.DType())
	return Einsum("pc,vcd->vpd", p, clips)
}

// unitRows is F.normalize over the last axis: x / max(‖x‖, NormalizeEpsilon), evaluated as
// x / √max(‖x‖², NormalizeEpsilon²) so that zero rows (padded frames) get a zero gradient rather than
// 0·∞ = NaN from the square root's slope at 0.
func unitRows(x *Node) *Node {
	norm2 := ReduceAndKeep(Square(x), ReduceSum, -1)
	return Div(x, Sqrt(MaxScalar(norm2, NormalizeEpsilon*NormalizeEpsilon)))
}

// MaxOverTimeScores returns S[q, v] = max_t ⟨q̂, x̂_{v,t}⟩ (cosine, normalised = true; the code's
// get_clip_scale_scores, HLFormer Eq. 8–9) or max_t ⟨q, x_{v,t}⟩ (raw dot products, normalised = false;
// get_unnormalized_clip_scale_scores, fed to the NCE terms). queries [Q, d], context [V, T, d] → [Q, V].
// Padded (zero) frames score 0 and take part in the max, as in the code.
func MaxOverTimeScores(queries, context *Node, normalised bool) *Node {
	if normalised {
		queries, context = unitRows(queries), unitRows(context)
	}
	return ReduceMax(Einsum("qd,vtd->qvt", queries, context), -1)
}

// Similarity is the inference score S = α_c S_c + α_f S_f (HLFormer Eq. 9; 0.7/0.3) from cosine clip and
// frame scores [Q, V]; a missing branch (nil) contributes nothing.
func (m *Model) Similarity(clipScores, frameScores *Node) *Node {
	switch {
	case clipScores == nil:
		return frameScores
	case frameScores == nil:
		return clipScores
	}
	return Add(MulScalar(clipScores, m.Config.ClipScoreWeight), MulScalar(frameScores, m.Config.FrameScoreWeight))
}

// PooledVideo is the video vector of the POP branch (HLFormer §3.4; docs/official-code.md §3.2): the average of an
// attention pooling over the frame embeddings (softmax over all FrameLen positions, unmasked as in the
// code) and one over the clip embeddings, [V, T, d] → [V, d]. A disabled branch (nil) is left out.
func (m *Model) PooledVideo(scope *model.Scope, clips, frames *Node) *Node {
	pool := func(name string, x *Node) *Node {
		score := Squeeze(linear(scope.In("%s", name), x, 1, false), -1) // [V, T]
		return Einsum("vt,vtd->vd", Softmax(score, -1), x)
	}
	switch {
	case clips == nil:
		return pool("pool_frames", frames)
	case frames == nil:
		return pool("pool_clips", clips)
	}
	return DivScalar(Add(pool("pool_frames", frames), pool("pool_clips", clips)), 2)
}

// HyperbolicEmbeddings are the POP branch's points (MERU space components on the hyperboloid of
// curvature −C) and the curvature.
type HyperbolicEmbeddings struct {
	Videos  *Node // [V, d]
	Queries *Node // [Q, d]
	C       *Node // scalar curvature magnitude c = exp(curv) ∈ [CurvatureMin, CurvatureMax]
}

// Hyperbolic maps the pooled video vectors [V, d] and the pooled queries [Q, d] (from a second
// EncodeQuery call in training, as in the code) into the POP space (docs/official-code.md §3.2): each is scaled by its
// learnable exp(α) (α init log d^{−½}, clamped ≤ 0), then MERU's ExpMap0 with c = exp(curv), curv
// learnable (init log CurvatureInit) and clamped in place to [log CurvatureMin, log CurvatureMax].
func (m *Model) Hyperbolic(scope *model.Scope, videos, queries *Node) HyperbolicEmbeddings {
	videoScale, textScale, c := m.POPScales(scope, videos.Graph(), videos.DType())
	return HyperbolicEmbeddings{
		Videos:  geom.ExpMap0(Mul(videos, videoScale), c),
		Queries: geom.ExpMap0(Mul(queries, textScale), c),
		C:       c,
	}
}

// POPScales returns the POP branch's exp(video_alpha), exp(textual_alpha) and curvature c = exp(curv),
// each learnable scalar clamped in place as in the code (docs/official-code.md §3.2).
func (m *Model) POPScales(scope *model.Scope, g *Graph, dtype dtypes.DType) (videoScale, textScale, c *Node) {
	scope = scope.At("pop")
	alphaInit := -0.5 * math.Log(float64(m.Config.Dim))
	videoScale = Exp(clampedScalar(scope, g, dtype, "video_alpha", alphaInit, math.Inf(-1), 0))
	textScale = Exp(clampedScalar(scope, g, dtype, "textual_alpha", alphaInit, math.Inf(-1), 0))
	c = Exp(clampedScalar(scope, g, dtype, "curv", math.Log(CurvatureInit), math.Log(CurvatureMin), math.Log(CurvatureMax)))
	return videoScale, textScale, c
}

package hlformer

import (
	"github.com/geoalign/geoalign/lib/geom"
	"github.com/geoalign/geoalign/lib/loss"
	"github.com/geoalign/geoalign/lib/seedrand"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
	"github.com/gomlx/gomlx/ml/model"
)

// LossConfig holds the weights and constants of HLFormer's training objective (HLFormer Eq. 21, 29–32;
// docs/official-code.md §3.3):
//
//	L = λ_c·NCE(S_c^raw) + Trip(S_c) + λ_f·NCE(S_f^raw) + Trip(S_f) + λ₁·L_div + λ₂·L_pop.
//
// A zero weight drops its term (Table 2: "L_sim only" is Diversity = POP = 0).
type LossConfig struct {
	ClipNCE, FrameNCE float64 // λ_c, λ_f
	Diversity         float64 // λ₁
	POP               float64 // λ₂
	Margin            float64 // triplet margin m
	// DiversityMargin, DiversityScale, DiversityFocal are L_div's (δ, α, λ).
	DiversityMargin, DiversityScale, DiversityFocal float64
	// DiversityPaper uses the paper's Eq. 32 (no focal factor, i = j included) instead of the code's form.
	DiversityPaper bool
	HardPoolSize   int     // t2v hard-negative pool (20)
	MinRadius      float64 // the entailment cone's K (geom.MinRadius = 0.1)
}

// CharadesLoss is the official Charades-STA objective (docs/official-code.md §3.3 table; paper Table 4): λ_c = 0.02,
// λ_f = 0.04, λ₁ = 3e-3, λ₂ = 1e-3, m = 0.2, L_div (δ, α, λ) = (0.2, 32, 1), hard pool 20, K = 0.1.
func CharadesLoss() LossConfig {
	return LossConfig{
		ClipNCE: 0.02, FrameNCE: 0.04, Diversity: 3e-3, POP: 1e-3, Margin: 0.2,
		DiversityMargin: 0.2, DiversityScale: loss.HLFormerDiversityScale, DiversityFocal: loss.HLFormerFocal,
		HardPoolSize: loss.HLFormerHardPoolSize, MinRadius: geom.MinRadius,
	}
}

// Batch is one training batch as graph nodes: V videos with all their (kept) queries.
type Batch struct {
	Clips     *Node // [V, ClipLen, D]
	Frames    *Node // [V, FrameLen, D], zero-padded
	FrameMask *Node // [V, FrameLen], 1 = frame
	Tokens    *Node // [Q, QueryLen, D_q], zero-padded
	TokenMask *Node // [Q, QueryLen], 1 = token
	Labels    *Node // [Q] Int32: the batch index of each query's video
}

// LossTerms are the unweighted terms of one batch (nil when switched off) and the weighted total.
type LossTerms struct {
	Total                     *Node
	ClipNCE, ClipTriplet      *Node
	FrameNCE, FrameTriplet    *Node
	Diversity, POP, Curvature *Node
}

// Outputs lists the terms in a fixed order for a training step's auxiliary outputs (missing = 0):
// total, clip NCE, clip triplet, frame NCE, frame triplet, diversity, POP, curvature.
func (t LossTerms) Outputs() []*Node {
	zero := ZerosLike(t.Total)
	or := func(x *Node) *Node {
		if x == nil {
			return zero
		}
		return x
	}
	return []*Node{t.Total, or(t.ClipNCE), or(t.ClipTriplet), or(t.FrameNCE), or(t.FrameTriplet), or(t.Diversity), or(t.POP), or(t.Curvature)}
}

// LossTermNames names LossTerms.Outputs.
var LossTermNames = []string{"total", "clip_nce", "clip_trip", "frame_nce", "frame_trip", "div", "pop", "curv"}

// Loss builds HLFormer's training objective on a batch (docs/official-code.md §3.3). hard is a boolean scalar node: the
// hard-negative curriculum switch of the triplet terms (on from the code's epoch 20). The triplet
// negatives are drawn from the store's RNG.
func (m *Model) Loss(scope *model.Scope, b Batch, hard *Node, lc LossConfig) LossTerms {
	return m.loss(scope, b, nil, hard, lc)
}

// EncodedVideos are a batch's videos through the two video branches: Clips = EncodeClips [V, ClipLen, d]
// and Frames = EncodeFrames [V, FrameLen, d] (nil for a switched-off branch).
type EncodedVideos struct {
	Clips, Frames *Node
}

// EncodeVideos runs the glance and gaze branches that c switches on (clips, then frames: the order in
// which they draw their dropout masks from the store's RNG).
func (m *Model) EncodeVideos(scope *model.Scope, clips, frames, frameMask *Node) EncodedVideos {
	var v EncodedVideos
	if m.Config.Glance {
		v.Clips = m.EncodeClips(scope, clips)
	}
	if m.Config.Gaze {
		v.Frames = m.EncodeFrames(scope, frames, frameMask)
	}
	return v
}

// LossOfEncoded is Loss on videos already encoded (EncodeVideos), e.g. in another executable: b needs
// only Tokens, TokenMask and Labels. It is the head of the chunked training step (NewStep), where the
// videos are encoded a block at a time.
func (m *Model) LossOfEncoded(scope *model.Scope, b Batch, videos EncodedVideos, hard *Node, lc LossConfig) LossTerms {
	return m.loss(scope, b, &videos, hard, lc)
}

// loss is Loss, with the videos encoded inside (encoded == nil; the queries first, then the clips and
// frames, each branch just before its terms: the order of the single-graph step's RNG draws) or given.
func (m *Model) loss(scope *model.Scope, b Batch, encoded *EncodedVideos, hard *Node, lc LossConfig) LossTerms {
	c := m.Config
	var t LossTerms
	queries := m.EncodeQuery(scope, b.Tokens, b.TokenMask)
	var clips, frames *Node
	add := func(w float64, term *Node) {
		if t.Total == nil {
			t.Total = MulScalar(term, w)
		} else {
			t.Total = Add(t.Total, MulScalar(term, w))
		}
	}
	// The negatives are drawn by lib/seedrand's counter-based generator, keyed by the seed, the
	// branch and the global step: the same on every backend and step layout.
	triplet := func(branch string, scores *Node) *Node {
		state := seedrand.StepState(scope, scores.Graph(), "hlformer/triplet/"+branch)
		state, random := tripletWith(state, scores, b.Labels, false, lc)
		_, hardest := tripletWith(state, scores, b.Labels, true, lc)
		return Where(hard, hardest, random)
	}
	if c.Glance {
		if encoded != nil {
			clips = encoded.Clips
		} else {
			clips = m.EncodeClips(scope, b.Clips)
		}
		clips = m.ClipProposals(clips)
		t.ClipNCE = loss.MultiPositiveNCE(MaxOverTimeScores(queries, clips, false), b.Labels)
		t.ClipTriplet = triplet("clips", MaxOverTimeScores(queries, clips, true))
		add(lc.ClipNCE, t.ClipNCE)
		add(1, t.ClipTriplet)
	}
	if c.Gaze {
		if encoded != nil {
			frames = encoded.Frames
		} else {
			frames = m.EncodeFrames(scope, b.Frames, b.FrameMask)
		}
		t.FrameNCE = loss.MultiPositiveNCE(MaxOverTimeScores(queries, frames, false), b.Labels)
		t.FrameTriplet = triplet("frames", MaxOverTimeScores(queries, frames, true))
		add(lc.FrameNCE, t.FrameNCE)
		add(1, t.FrameTriplet)
	}
	if lc.Diversity == 0 && lc.POP == 0 {
		return t
	}
	// The code encodes the queries a second time (independent dropout) for L_div and L_pop.
	second := m.EncodeQuery(scope, b.Tokens, b.TokenMask)
	if lc.Diversity != 0 {
		if lc.DiversityPaper {
			t.Diversity = loss.QueryDiversityPaper(second, b.Labels, lc.DiversityMargin, lc.DiversityScale)
		} else {
			t.Diversity = loss.QueryDiversity(second, b.Labels, lc.DiversityMargin, lc.DiversityScale, lc.DiversityFocal)
		}
		add(lc.Diversity, t.Diversity)
	}
	if lc.POP != 0 {
		h := m.Hyperbolic(scope, m.PooledVideo(scope, clipsForPooling(m, clips), frames), second)
		apex := Gather(h.Videos, InsertAxes(b.Labels, -1)) // [Q, d]: the video of each query
		t.POP = loss.EntailmentCone(apex, h.Queries, h.C, lc.MinRadius)
		t.Curvature = h.C
		add(lc.POP, t.POP)
	}
	return t
}

// clipsForPooling undoes ClipProposals for the POP pooling: the MS-SL-like encoder pools its 32 clip
// embeddings (the first 32 proposals are the single clips), HLFormer its clip embeddings.
func clipsForPooling(m *Model, clips *Node) *Node {
	if clips == nil || m.Config.Encoder != MSSLEncoder {
		return clips
	}
	return Slice(clips, AxisRange(), AxisRange(0, m.Config.ClipLen))
}

// tripletWith is loss.TripletRanking with the margin and pool of lc.
func tripletWith(state, scores, labels *Node, hard bool, lc LossConfig) (*Node, *Node) {
	return loss.TripletRanking(state, scores, labels, loss.TripletOptions{Margin: lc.Margin, HardNegatives: hard, HardPoolSize: lc.HardPoolSize})
}

package synth

import (
	"fmt"
	"math/rand/v2"

	"github.com/geoalign/geoalign/lib/data/captions"
	"github.com/geoalign/geoalign/lib/data/prvr"
)

// PRVRConfig sets every knob of GeneratePRVR.
type PRVRConfig struct {
	Seed uint64
	// Depth, Branching, LatentDim, LevelDecay: the concept tree whose leaves are moment concepts.
	Depth, Branching, LatentDim int
	LevelDecay                  float64
	// Videos: number of untrimmed videos.
	Videos int
	// MomentsMin … MomentsMax: moments per video (uniform); each moment shows one leaf concept.
	MomentsMin, MomentsMax int
	// FramesMin … FramesMax: frames per moment (uniform). The relevant fraction of a video for a
	// query is its moment's frames over the video's frames: partial relevance.
	FramesMin, FramesMax int
	// FrameDim, QueryDim: feature dimensions of frames and query tokens.
	FrameDim, QueryDim int
	// QueriesPerVideo: queries per video, each describing one of its moments (uniformly).
	QueriesPerVideo int
	// QueryTokens: tokens per query; each token is the concept's projection plus TokenNoise.
	QueryTokens int
	// FrameNoise, TokenNoise: isotropic noise std of frames and tokens.
	FrameNoise, TokenNoise float64
}

// PRVRTruth records what GeneratePRVR put where.
type PRVRTruth struct {
	Hierarchy *Hierarchy
	// For query q: the moment's concept, its first frame and frame count in its video, and the
	// video's total frames (relevant fraction = MomentFrames / VideoFrames).
	Concept, MomentStart, MomentFrames, VideoFrames []int
}

// GeneratePRVR returns a synthetic PRVR split, processed exactly like the real tracks
// (prvr.ProcessVideo / ProcessQuery: 32 clips, ≤ 128 frames, L2-normalised), and its truth.
func GeneratePRVR(cfg PRVRConfig) (*prvr.Split, *PRVRTruth, error) {
	if cfg.Videos < 1 || cfg.MomentsMin < 1 || cfg.MomentsMax < cfg.MomentsMin || cfg.FramesMin < 1 ||
		cfg.FramesMax < cfg.FramesMin || cfg.FrameDim < 1 || cfg.QueryDim < 1 || cfg.QueriesPerVideo < 1 ||
		cfg.QueryTokens < 1 || cfg.FrameNoise < 0 || cfg.TokenNoise < 0 {
		return nil, nil, fmt.Errorf("synth: invalid PRVR config %+v", cfg)
	}
	h, err := NewHierarchy(cfg.Seed, cfg.Depth, cfg.Branching, cfg.LatentDim, cfg.LevelDecay)
	if err != nil {
		return nil, nil, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x70727672)) // stream "prvr"
	vproj := newProjection(rng, cfg.LatentDim, cfg.FrameDim)
	qproj := newProjection(rng, cfg.LatentDim, cfg.QueryDim)
	s := &prvr.Split{Name: "synthetic", Dim: cfg.FrameDim, QueryDim: cfg.QueryDim,
		FrameOffsets: []int{0}, TokenOffsets: []int{0}}
	truth := &PRVRTruth{Hierarchy: h}
	for v := 0; v < cfg.Videos; v++ {
		vid := fmt.Sprintf("syn%05d", v)
		s.VideoIDs = append(s.VideoIDs, vid)
		nm := cfg.MomentsMin + rng.IntN(cfg.MomentsMax-cfg.MomentsMin+1)
		var frames []float32
		concepts, starts, lens := make([]int, nm), make([]int, nm), make([]int, nm)
		for m := 0; m < nm; m++ {
			concepts[m] = h.Leaves[rng.IntN(len(h.Leaves))]
			lens[m] = cfg.FramesMin + rng.IntN(cfg.FramesMax-cfg.FramesMin+1)
			starts[m] = len(frames) / cfg.FrameDim
			row := make([]float32, cfg.FrameDim)
			for f := 0; f < lens[m]; f++ {
				vproj.apply(row, h.Vec(concepts[m]), nil, cfg.FrameNoise, rng)
				frames = append(frames, row...)
			}
		}
		n := len(frames) / cfg.FrameDim
		clips, sampled, ns := prvr.ProcessVideo(frames, n, cfg.FrameDim)
		s.Clips = append(s.Clips, clips...)
		s.Frames = append(s.Frames, sampled...)
		s.FrameOffsets = append(s.FrameOffsets, s.FrameOffsets[v]+ns)
		for k := 0; k < cfg.QueriesPerVideo; k++ {
			m := rng.IntN(nm)
			tok := make([]float32, cfg.QueryTokens*cfg.QueryDim)
			for t := 0; t < cfg.QueryTokens; t++ {
				qproj.apply(tok[t*cfg.QueryDim:(t+1)*cfg.QueryDim], h.Vec(concepts[m]), nil, cfg.TokenNoise, rng)
			}
			pt, nt := prvr.ProcessQuery(tok, cfg.QueryTokens, cfg.QueryDim)
			q := len(s.CapIDs)
			s.CapIDs = append(s.CapIDs, captions.EncID(vid, k))
			s.Texts = append(s.Texts, fmt.Sprintf("concept %d", concepts[m]))
			s.QueryVideo = append(s.QueryVideo, v)
			s.Tokens = append(s.Tokens, pt...)
			s.TokenOffsets = append(s.TokenOffsets, s.TokenOffsets[q]+nt)
			truth.Concept = append(truth.Concept, concepts[m])
			truth.MomentStart = append(truth.MomentStart, starts[m])
			truth.MomentFrames = append(truth.MomentFrames, lens[m])
			truth.VideoFrames = append(truth.VideoFrames, n)
		}
	}
	return s, truth, nil
}

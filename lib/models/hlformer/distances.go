package hlformer

import (
	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/geom"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
	"github.com/gomlx/gomlx/ml/model"
)

// HyperbolicDistances are distances from the origin of the POP space (curvature −c) of the test
// embeddings mapped as the POP branch maps its inputs (HLFormer Fig. 5): glance clips and gaze frames
// scaled by exp(video_alpha), queries by exp(textual_alpha), then MERU's exp₀.
type HyperbolicDistances struct {
	Clips, Frames, Queries []float64
	C                      float64
}

// POPDistances encodes the first maxVideos videos and maxQueries queries of s with the variables in
// store and returns their distances from the POP space's origin (geom.LorentzDistance to the origin).
func POPDistances(be compute.Backend, m *Model, store *model.Store, s *prvr.Split, maxVideos, maxQueries int) (*HyperbolicDistances, error) {
	c := m.Config
	dist := func(scope *model.Scope, x, scale, curv *Node) *Node {
		p := geom.ExpMap0(Mul(x, scale), curv)
		return geom.LorentzDistance(p, ZerosLike(p), curv)
	}
	exec, err := model.NewExec(be, store, func(scope *model.Scope, clips, frames, mask, tokens, tmask *Node) []*Node {
		inference(scope, clips.Graph())
		vs, ts, curv := m.POPScales(scope, clips.Graph(), clips.DType())
		out := []*Node{dist(scope, m.EncodeQuery(scope, tokens, tmask), ts, curv), curv}
		if c.Glance {
			out = append(out, dist(scope, m.EncodeClips(scope, clips), vs, curv))
		}
		if c.Gaze {
			out = append(out, dist(scope, m.EncodeFrames(scope, frames, mask), vs, curv))
		}
		return out
	})
	if err != nil {
		return nil, err
	}
	nv, nq := min(maxVideos, s.NumVideos()), min(maxQueries, s.NumQueries())
	res := &HyperbolicDistances{}
	idx := func(n, total int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = -1
			if i < total {
				out[i] = i
			}
		}
		return out
	}
	vids, qs := idx(max(nv, 1), nv), idx(max(nq, 1), nq)
	clips, frames, fmask := VideoInputs(s, vids, c, dtypes.Float32)
	tokens, tmask := QueryInputs(s, qs, c, dtypes.Float32)
	outs, err := exec.Exec(clips, frames, fmask, tokens, tmask)
	if err != nil {
		return nil, err
	}
	for _, q := range flat32(outs[0])[:nq] {
		res.Queries = append(res.Queries, float64(q))
	}
	res.C = float64(flat32(outs[1])[0])
	k := 2
	if c.Glance {
		for _, x := range flat32(outs[k])[:nv*c.ClipLen] {
			res.Clips = append(res.Clips, float64(x))
		}
		k++
	}
	if c.Gaze {
		fd := flat32(outs[k])
		for v := 0; v < nv; v++ {
			_, n := s.VideoFrames(v)
			for t := 0; t < min(n, c.FrameLen); t++ {
				res.Frames = append(res.Frames, float64(fd[v*c.FrameLen+t]))
			}
		}
	}
	return res, nil
}

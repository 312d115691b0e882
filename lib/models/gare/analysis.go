package gare

import (
	"fmt"
	"math"

	"github.com/geoalign/geoalign/lib/loss"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// Probe builds fn on the model's weights and the pairs idx of a paired dataset (texts idx[k] and
// their videos; the words too for ContextWords) and returns what it computes, without dropout: a
// look at any intermediate tensor of the forward pass (ψ's attention, Δ, a loss term) for a
// notebook or an analysis. in holds A = B = len(idx) texts and videos, text k matching video k.
func (m *Model) Probe(d *Dataset, idx []int, fn func(w Weights, in Inputs) []*Node) ([]*tensors.Tensor, error) {
	useWords := m.Config.UseDelta && m.Config.Context == ContextWords
	exec, err := model.NewExec(m.backend, m.Store, func(scope *model.Scope, in []*Node) []*Node {
		inputs := Inputs{Text: in[0], Frames: in[1], FrameMask: in[2]}
		if useWords {
			inputs.Words, inputs.WordMask = in[3], in[4]
		}
		return fn(m.Weights(in[0].Graph()), inputs)
	})
	if err != nil {
		return nil, err
	}
	return exec.Exec(batchTensors(d, idx, useWords)...)
}

// PairGradients are the gradients of the contrastive loss on one batch, per anchor text i
// (GARE Eq. 3 and 8, Fig. 2, 4, 7), scaled to the per-anchor loss (B·L_info, so that they do not
// shrink with the batch size):
//
//   - Positive[i] = ∂/∂a_ii and NegativeSum[i] = Σ_{j≠i} ∂/∂a_ij, where a_ij is the per-pair
//     adjusted side (Outputs.Adjusted): t_i + Δ_ij for GARE, where it is also the gradient acting on
//     Δ_ij; t_i itself for the baseline, where the sum of the two is what t_i receives through the
//     similarity;
//   - Total[i] = ∂/∂t_i through every path (similarities, text-conditioned pooling and, with Δ, ψ).
//
// Each is [B][D].
type PairGradients struct {
	Positive, NegativeSum, Total [][]float64
	// NegativeMaxNorm[i] is max_{j≠i} ‖∂/∂a_ij‖ (the largest single negative) and
	// NegativeMeanNorm[i] the mean of ‖∂/∂a_ij‖ over j ≠ i.
	NegativeMaxNorm, NegativeMeanNorm []float64
}

// Gradients computes PairGradients of L_info on the pairs idx of a paired dataset (no dropout).
func (m *Model) Gradients(d *Dataset, idx []int) (*PairGradients, error) {
	cfg := m.Config
	b := len(idx)
	res, err := m.Probe(d, idx, func(w Weights, in Inputs) []*Node {
		out := Forward(cfg, w, in, nil)
		info := MulScalar(loss.ScaledInfoNCE(out.Sim, Scalar(out.Sim.Graph(), out.Sim.DType(), cfg.LogitScale)), float64(b))
		return Gradient(info, out.Adjusted, out.Text)
	})
	if err != nil {
		return nil, fmt.Errorf("gare: gradients: %w", err)
	}
	dim := cfg.Dim
	adj := tensors.MustCopyFlatData[float32](res[0]) // [B, B, D]
	tot := tensors.MustCopyFlatData[float32](res[1]) // [B, D]
	g := &PairGradients{}
	for i := range b {
		pos, neg, total := make([]float64, dim), make([]float64, dim), make([]float64, dim)
		maxNeg, sumNeg := 0.0, 0.0
		for j := range b {
			row := adj[(i*b+j)*dim : (i*b+j+1)*dim]
			if i == j {
				for k, v := range row {
					pos[k] = float64(v)
				}
				continue
			}
			n := 0.0
			for k, v := range row {
				neg[k] += float64(v)
				n += float64(v) * float64(v)
			}
			maxNeg = math.Max(maxNeg, math.Sqrt(n))
			sumNeg += math.Sqrt(n)
		}
		for k := range total {
			total[k] = float64(tot[i*dim+k])
		}
		g.Positive = append(g.Positive, pos)
		g.NegativeSum = append(g.NegativeSum, neg)
		g.Total = append(g.Total, total)
		g.NegativeMaxNorm = append(g.NegativeMaxNorm, maxNeg)
		g.NegativeMeanNorm = append(g.NegativeMeanNorm, sumNeg/float64(max(b-1, 1)))
	}
	return g, nil
}

// PairGeometry holds per-pair geometric quantities of the trained model on a block of texts ×
// videos (GARE Fig. 3 and Fig. 8), all from the materialised forward pass without dropout:
// entry [i][j] is pair (text i, video j); the diagonal are the positives.
type PairGeometry struct {
	N int
	// Cos is S_ij.
	Cos [][]float64
	// TextNorm[i] = ‖t_i‖; AdjustedNorm = ‖t_i + Δ_ij‖ (text-corrected; ‖t_i‖ for the baseline).
	TextNorm     []float64
	AdjustedNorm [][]float64
	// Dist = ‖t_i + Δ_ij − v_ij‖ and BaseDist = ‖t_i − v_ij‖ with v_ij the pooled video.
	Dist, BaseDist [][]float64
	// AngleGap = ∠(Δ_ij, v̄_j − t_i) and AngleText = ∠(Δ_ij, t_i) in degrees (nil for the
	// baseline). v̄_j is the frame mean, ψ's own gap.
	AngleGap, AngleText [][]float64
	// DeltaNorm = ‖Δ_ij‖.
	DeltaNorm [][]float64
}

// Geometry computes PairGeometry for the first n texts and their videos of a paired dataset.
func (m *Model) Geometry(d *Dataset, n int) (*PairGeometry, error) {
	cfg := m.Config
	if d.VideoOf != nil {
		return nil, fmt.Errorf("gare: Geometry needs a paired dataset")
	}
	n = min(n, d.NumTexts)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	res, err := m.Probe(d, idx, func(w Weights, in Inputs) []*Node {
		out := Forward(cfg, w, in, nil)
		delta := out.Delta
		if delta == nil {
			delta = ZerosLike(out.Pooled)
		}
		return []*Node{out.Sim, out.Text, out.Pooled, delta, FrameMean(out.Frames)}
	})
	if err != nil {
		return nil, fmt.Errorf("gare: geometry: %w", err)
	}
	dim := cfg.Dim
	sim := tensors.MustCopyFlatData[float32](res[0])
	text := tensors.MustCopyFlatData[float32](res[1])
	pooled := tensors.MustCopyFlatData[float32](res[2])
	delta := tensors.MustCopyFlatData[float32](res[3])
	mean := tensors.MustCopyFlatData[float32](res[4])
	g := &PairGeometry{N: n}
	grid := func() [][]float64 {
		x := make([][]float64, n)
		for i := range x {
			x[i] = make([]float64, n)
		}
		return x
	}
	g.Cos, g.AdjustedNorm, g.Dist, g.BaseDist, g.DeltaNorm = grid(), grid(), grid(), grid(), grid()
	if cfg.UseDelta {
		g.AngleGap, g.AngleText = grid(), grid()
	}
	adj, gap := make([]float64, dim), make([]float64, dim)
	for i := range n {
		t := text[i*dim : (i+1)*dim]
		g.TextNorm = append(g.TextNorm, norm32(t))
		for j := range n {
			p := pooled[(i*n+j)*dim : (i*n+j+1)*dim]
			dl := delta[(i*n+j)*dim : (i*n+j+1)*dim]
			var dist, base, an, dn float64
			for k := range dim {
				adj[k] = float64(t[k]) + float64(dl[k])
				gap[k] = float64(mean[j*dim+k]) - float64(t[k])
				dist += (adj[k] - float64(p[k])) * (adj[k] - float64(p[k]))
				base += (float64(t[k]) - float64(p[k])) * (float64(t[k]) - float64(p[k]))
				an += adj[k] * adj[k]
				dn += float64(dl[k]) * float64(dl[k])
			}
			g.Cos[i][j] = float64(sim[i*n+j])
			g.Dist[i][j], g.BaseDist[i][j] = math.Sqrt(dist), math.Sqrt(base)
			g.AdjustedNorm[i][j], g.DeltaNorm[i][j] = math.Sqrt(an), math.Sqrt(dn)
			if cfg.UseDelta {
				g.AngleGap[i][j] = angle32(dl, gap)
				g.AngleText[i][j] = angle32(dl, toFloat64(t))
			}
		}
	}
	return g, nil
}

func norm32(x []float32) float64 {
	s := 0.0
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s)
}

func toFloat64(x []float32) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

// angle32 is the angle between x and y in degrees (90 when either is zero).
func angle32(x []float32, y []float64) float64 {
	var xy, xx, yy float64
	for k := range x {
		xy += float64(x[k]) * y[k]
		xx += float64(x[k]) * float64(x[k])
		yy += y[k] * y[k]
	}
	if xx == 0 || yy == 0 {
		return 90
	}
	c := math.Max(-1, math.Min(1, xy/math.Sqrt(xx*yy)))
	return math.Acos(c) * 180 / math.Pi
}

// PositiveNegative splits a per-pair grid into its diagonal (positives) and off-diagonal
// (negatives) entries.
func PositiveNegative(grid [][]float64) (pos, neg []float64) {
	for i, row := range grid {
		for j, v := range row {
			if i == j {
				pos = append(pos, v)
			} else {
				neg = append(neg, v)
			}
		}
	}
	return pos, neg
}

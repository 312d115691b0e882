package garestudy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/geoalign/geoalign/lib/models"
	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"gonum.org/v1/gonum/floats"
)

// GradientStats aggregates gare.PairGradients over probe batches (GARE Fig. 2, 4, 7): per
// dimension, the mean and variance over anchors of the positive gradient, of the summed negative
// gradient and of the total gradient on t_i; and per-anchor summaries.
type GradientStats struct {
	Name                      string
	PosMean, NegMean, SumMean []float64 // SumMean: positive + summed negatives (what a_ii's anchor receives)
	PosVar, NegVar, SumVar    []float64
	TotMean, TotVar           []float64 // total gradient on t_i through every path

	// Means over anchors: cos(positive, summed negatives); ‖pos + neg‖ / (‖pos‖ + ‖neg‖); norms.
	CosPosNeg, Cancellation     float64
	PosNorm, NegNorm, TotNorm   float64
	NegPairNorm, NegPairMaxNorm float64 // mean and max norm of a single negative pair's gradient
	Anchors                     int
}

// Gradients probes `batches` random batches of `batch` training pairs (seeded).
func Gradients(name string, m *gare.Model, d *gare.Dataset, batches, batch int, seed int64) (*GradientStats, error) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x67726164))
	var pos, neg, sum, tot [][]float64 // per anchor
	var negPair, negMax []float64
	for range batches {
		g, err := m.Gradients(d, rng.Perm(d.NumTexts)[:batch])
		if err != nil {
			return nil, err
		}
		for i, p := range g.Positive {
			s := floats.AddTo(make([]float64, len(p)), p, g.NegativeSum[i])
			pos, neg, sum, tot = append(pos, p), append(neg, g.NegativeSum[i]), append(sum, s), append(tot, g.Total[i])
		}
		negPair, negMax = append(negPair, g.NegativeMeanNorm...), append(negMax, g.NegativeMaxNorm...)
	}
	perAnchor := func(f func(i int) float64) float64 { return mean(mapped(seq(len(pos)), f)) }
	st := &GradientStats{Name: name, Anchors: len(pos),
		CosPosNeg:    perAnchor(func(i int) float64 { return dotv(pos[i], neg[i]) / (vnorm(pos[i]) * vnorm(neg[i])) }),
		Cancellation: perAnchor(func(i int) float64 { return vnorm(sum[i]) / (vnorm(pos[i]) + vnorm(neg[i])) }),
		PosNorm:      mean(mapped(pos, vnorm)), NegNorm: mean(mapped(neg, vnorm)), TotNorm: mean(mapped(tot, vnorm)),
		NegPairNorm: mean(negPair), NegPairMaxNorm: mean(negMax)}
	st.PosMean, st.PosVar = perDim(pos)
	st.NegMean, st.NegVar = perDim(neg)
	st.SumMean, st.SumVar = perDim(sum)
	st.TotMean, st.TotVar = perDim(tot)
	return st, nil
}

func perDim(rows [][]float64) (m, v []float64) {
	d := len(rows[0])
	m, v = make([]float64, d), make([]float64, d)
	for _, r := range rows {
		for k, x := range r {
			m[k] += x / float64(len(rows))
		}
	}
	for _, r := range rows {
		for k, x := range r {
			v[k] += (x - m[k]) * (x - m[k]) / float64(max(len(rows)-1, 1))
		}
	}
	return m, v
}

func vnorm(x []float64) float64 { return math.Sqrt(dotv(x, x)) }

func dotv(x, y []float64) float64 {
	s := 0.0
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// meanAbs is the mean of |x|.
func meanAbs(x []float64) float64 { return mean(mapped(x, math.Abs)) }

// mapped is f of every element of xs.
func mapped[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// seq is 0, 1, …, n − 1.
func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// DynamicsPoint summarises gare.PairGeometry on the probe at one training step (GARE Fig. 8).
type DynamicsPoint struct {
	Step                             int
	AngleGapPos, AngleGapNeg         float64 // ∠(Δ_ij, v̄_j − t_i), degrees
	AngleTextPos, AngleTextNeg       float64 // ∠(Δ_ij, t_i)
	TextNorm, AdjNormPos, AdjNormNeg float64 // ‖t_i‖, ‖t_i + Δ_ij‖
	DistPos, DistNeg                 float64 // ‖t_i + Δ_ij − v_ij‖
	BaseDistPos, BaseDistNeg         float64 // ‖t_i − v_ij‖
}

// Dynamics trains cfg under protocol p (seed: stage 2 warm-started from stage 1, as Protocol.Fit)
// while probing the geometry of the first `probe` training pairs every `every` steps; it returns
// the probes, in order. The run has its own run directory of the cache (Protocol.observed).
func Dynamics(b compute.Backend, p *Protocol, cfg gare.Config, train *gare.Dataset, seed int64, probe, every int) ([]DynamicsPoint, error) {
	dir, err := p.runDir(fmt.Sprintf("dynamics-%d-%d", probe, every), cfg, train, seed)
	if err != nil {
		return nil, err
	}
	var pts []DynamicsPoint
	_, err = p.observed(b, cfg, train, seed, dir, models.Output{Quiet: true}, every, func(m *gare.Model, step int) error {
		g, err := m.Geometry(train, probe)
		if err != nil {
			return err
		}
		pm := func(grid [][]float64) (float64, float64) {
			p, n := gare.PositiveNegative(grid)
			return mean(p), mean(n)
		}
		d := DynamicsPoint{Step: step, TextNorm: mean(g.TextNorm)}
		if g.AngleGap != nil {
			d.AngleGapPos, d.AngleGapNeg = pm(g.AngleGap)
			d.AngleTextPos, d.AngleTextNeg = pm(g.AngleText)
		}
		d.AdjNormPos, d.AdjNormNeg = pm(g.AdjustedNorm)
		d.DistPos, d.DistNeg = pm(g.Dist)
		d.BaseDistPos, d.BaseDistNeg = pm(g.BaseDist)
		pts = append(pts, d)
		return nil
	})
	return pts, err
}

// LiveSteps trains cfg's stage 2 of seed on d (warm-started from stage 1 of p, Config.Epochs
// epochs) in a temporary run directory, removed afterwards, with a record every step (the loop's
// records: Loss and the loss terms "info", "ib", "norm", "dir" of that step, the validation
// metrics), showing the progress bar: a notebook's few live training steps.
func LiveSteps(b compute.Backend, p *Protocol, cfg gare.Config, d *gare.Dataset, seed int64) ([]train.Record, error) {
	dir, err := os.MkdirTemp("", "gare-live-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	out := models.Output{Label: fmt.Sprintf("GARE stage 2 on %s, seed %d", d.Name, seed)}
	f, err := p.observed(b, cfg, d, seed, filepath.Join(dir, "run"), out, 1, nil)
	if err != nil {
		return nil, err
	}
	return f.Curve, nil
}

// CoveragePoint is the two-stage mode at one shortlist size K.
type CoveragePoint struct {
	K                  int
	Coverage, Complete float64 // of the full GARE ranking's top-10 (mean fraction, all-10 fraction)
	Reranked           retrieval.Metrics
}

// TwoStage evaluates the two-stage mode of GARE Appendix I on test: a dual-tower shortlist of K
// videos per text by cos(t_i, v̄_j), then GARE's Δ-adjusted scores on the shortlist only. The
// second stage reads the pair scores from the full GARE matrix (scores are per pair, so this is
// the same number the Scorer's CandidateScorer computes for the shortlisted pairs), which also
// gives the full ranking's top-10 for the coverage. It returns the curve over ks, the full GARE
// metrics and the cosine-only metrics.
func TwoStage(m *gare.Model, test *gare.Dataset, ks []int) (pts []CoveragePoint, full, cheap retrieval.Metrics, err error) {
	mat, err := scores(m, test, gare.ScorerOptions{})
	if err != nil {
		return nil, full, cheap, err
	}
	cheapMat, err := scores(m, test, gare.ScorerOptions{Mode: gare.ScoreMeanCosine})
	if err != nil {
		return nil, full, cheap, err
	}
	fullRes, err := retrieval.Evaluate[float32](mat, test.VideoOf, retrieval.Options{})
	if err != nil {
		return nil, full, cheap, err
	}
	for _, k := range ks {
		if k > test.NumVideos {
			continue
		}
		r, err := retrieval.TwoStage[float32](cheapMat, mat, test.VideoOf, retrieval.TwoStageOptions{Shortlist: k, CoverageTop: 10})
		if err != nil {
			return nil, full, cheap, fmt.Errorf("two-stage K = %d: %w", k, err)
		}
		cheap = r.Cheap.T2V
		pts = append(pts, CoveragePoint{K: k, Coverage: r.Coverage.Mean, Complete: r.Coverage.Complete, Reranked: r.Reranked})
	}
	return pts, fullRes.T2V, cheap, nil
}

// scores is m's score matrix of every text × video of test (Scorer.Matrix in mode opts).
func scores(m *gare.Model, test *gare.Dataset, opts gare.ScorerOptions) (retrieval.Matrix[float32], error) {
	sc, err := m.NewScorer(test, test.Videos(), opts)
	if err != nil {
		return retrieval.Matrix[float32]{}, err
	}
	return sc.Matrix()
}

// Efficiency times Δ-for-every-pair inference of the official configuration (D = 512, 12 frames,
// ψ with one head) on n random texts × n random videos given as the official evaluation loop
// receives them (after the temporal transformer), with the block-by-block Scorer (factored ψ),
// and checks a block × block corner against the literal per-pair computation
// (gare.ReferenceSimilarity), which it also times.
func Efficiency(b compute.Backend, n, block int) (*report.Table, error) {
	cfg := gare.DefaultConfig()
	cfg.TemporalLayers = 0
	m, err := gare.New(b, cfg, 1)
	if err != nil {
		return nil, err
	}
	d := gare.RandomDataset(n, cfg.TextInputDim, cfg.VideoInputDim, cfg.Frames, 0.4, 2)
	sc, err := m.NewScorer(d, d.Videos(), gare.ScorerOptions{})
	if err != nil {
		return nil, err
	}
	var mat retrieval.Matrix[float32]
	factored, err := timed(func() (err error) { mat, err = sc.Matrix(); return err })
	if err != nil {
		return nil, err
	}

	corner := d.Subset("corner", seq(block))
	exec, err := model.NewExec(b, m.Store, func(scope *model.Scope, in []*graph.Node) []*graph.Node {
		return []*graph.Node{gare.ReferenceSimilarity(cfg, m.Weights(in[0].Graph()), gare.Inputs{Text: in[0], Frames: in[1], FrameMask: in[2]})}
	})
	if err != nil {
		return nil, err
	}
	args := []any{tensors.FromFlatDataAndDimensions(corner.Text, block, corner.TextDim),
		tensors.FromFlatDataAndDimensions(corner.Video, block, corner.Frames, corner.VideoDim),
		tensors.FromFlatDataAndDimensions(corner.FrameMask, block, corner.Frames)}
	var out []*tensors.Tensor
	refTime, err := timed(func() (err error) { out, err = exec.Exec(args...); return err })
	if err != nil {
		return nil, err
	}
	ref := tensors.MustCopyFlatData[float32](out[0])
	worst := 0.0
	for i := range block {
		for j := range block {
			worst = math.Max(worst, math.Abs(float64(ref[i*block+j]-mat.Data[i*n+j])))
		}
	}
	t := report.NewTable("Δ for every pair: factored Scorer vs the literal per-pair ψ", report.Provenance{
		Data: fmt.Sprintf("random N(0, 0.4²) features, %d texts × %d videos, 12 frames, 512-d", n, n), Kind: report.Synthetic,
		Seeds: []int64{1}, Behavior: "official configuration (D = 512, ψ one head), inference (no dropout)",
		Notes: []string{"One timed run after a compiling run, on whatever else the machine is doing; `make bench` has the careful numbers."},
	}, "computation", "pairs", "seconds", "pairs per second", "max |S_factored − S_literal| on the shared block")
	t.AddRow("Scorer (factored ψ, 256 × 256 blocks)", n*n, fmt.Sprintf("%.2f", factored), fmt.Sprintf("%.3g", float64(n*n)/factored), fmt.Sprintf("%.2g", worst))
	t.AddRow(fmt.Sprintf("literal per-pair ψ (one %d × %d block)", block, block), block*block, fmt.Sprintf("%.2f", refTime),
		fmt.Sprintf("%.3g", float64(block*block)/refTime), "—")
	return t, nil
}

// timed runs f twice (the first run compiles) and returns the wall time of the second, in seconds.
func timed(f func() error) (float64, error) {
	if err := f(); err != nil {
		return 0, err
	}
	start := time.Now()
	err := f()
	return time.Since(start).Seconds(), err
}

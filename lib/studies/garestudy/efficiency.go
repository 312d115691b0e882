package garestudy

import (
	"fmt"
	"math"
	"time"

	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style.
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

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
	exec, err := model.NewExec(b, m.Store, func(scope *model.Scope, in []*Node) []*Node {
		return []*Node{gare.ReferenceSimilarity(cfg, m.Weights(in[0].Graph()), gare.Inputs{Text: in[0], Frames: in[1], FrameMask: in[2]})}
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

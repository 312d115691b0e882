package loss

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck
	"github.com/gomlx/gomlx/core/tensors"
)

// deltaAt returns Δ_ij (a slice into the data) of a [A, B, D] tensor.
func deltaAt(delta mat, i, j int) []float64 {
	b, d := delta.dims[1], delta.dims[2]
	return delta.data[(i*b+j)*d : (i*b+j+1)*d]
}

// refIBRelax: one Gaussian per anchor, fitted over the other axis with the unbiased std + 1e-6, KL to
// N(0, I) per dimension, summed (code) or averaged (paper) over d, mean over anchors.
func refIBRelax(delta mat, textAnchor, perDim bool) float64 {
	a, b, d := delta.dims[0], delta.dims[1], delta.dims[2]
	anchors, samples := b, a
	get := func(anchor, sample int) []float64 { return deltaAt(delta, sample, anchor) }
	if textAnchor {
		anchors, samples = a, b
		get = func(anchor, sample int) []float64 { return deltaAt(delta, anchor, sample) }
	}
	total := 0.0
	for an := 0; an < anchors; an++ {
		kl := 0.0
		for k := 0; k < d; k++ {
			mu := 0.0
			for s := 0; s < samples; s++ {
				mu += get(an, s)[k]
			}
			mu /= float64(samples)
			ss := 0.0
			for s := 0; s < samples; s++ {
				ss += (get(an, s)[k] - mu) * (get(an, s)[k] - mu)
			}
			sigma := math.Sqrt(ss/float64(samples-1)) + 1e-6
			kl += math.Log(1/sigma) + (sigma*sigma+mu*mu)/2 - 0.5
		}
		if perDim {
			kl /= float64(d)
		}
		total += kl
	}
	return total / float64(anchors)
}

func TestIBRelax(t *testing.T) {
	rng := newRand(31)
	delta := randMat(rng, -1, 1, 3, 4, 5) // A ≠ B so that the anchor axis matters
	for _, tc := range []struct {
		name       string
		textAnchor bool
		perDim     bool
		fn         func(*Node) *Node
	}{
		{"code (video anchor, sum over d)", false, false, IBRelax},
		{"text anchor", true, false, func(x *Node) *Node { return IBRelaxWith(x, IBRelaxOptions{Anchor: IBAnchorText}) }},
		{"per dimension", false, true, func(x *Node) *Node { return IBRelaxWith(x, IBRelaxOptions{PerDimension: true}) }},
		{"text anchor, per dimension", true, true, func(x *Node) *Node {
			return IBRelaxWith(x, IBRelaxOptions{Anchor: IBAnchorText, PerDimension: true})
		}},
	} {
		value, grads := evalLoss(t, func(in []*Node) *Node { return tc.fn(in[0]) }, []int{0}, delta.tensor())
		ref := func() float64 { return refIBRelax(delta, tc.textAnchor, tc.perDim) }
		assertClose(t, tc.name+" value", value, ref(), valueTolerance)
		assertAllClose(t, tc.name+" gradient", grads[0], finiteDifference(ref, delta.data), gradTolerance)
	}
}

// TestIBRelaxConstantColumn: Δ identical across texts (zero spread) gives σ = 1e-6 exactly, a finite value
// (−log 1e-6 per dimension dominates) and a finite gradient (the code's would be NaN).
func TestIBRelaxConstantColumn(t *testing.T) {
	delta := mat{data: make([]float64, 2*2*3), dims: []int{2, 2, 3}}
	for i := range delta.data {
		delta.data[i] = float64(i%6) * 0.1 // Δ_0j = Δ_1j
	}
	value, grads := evalLoss(t, func(in []*Node) *Node { return IBRelax(in[0]) }, []int{0}, delta.tensor())
	assertClose(t, "constant-column IB", value, refIBRelax(delta, false, false), 1e-9)
	if !allFinite(grads[0]) {
		t.Errorf("non-finite gradient for a zero-spread Δ: %v", grads[0])
	}
}

// refNegNormVariance is −mean_i var_j ‖Δ_ij‖ with the unbiased variance.
func refNegNormVariance(delta mat) float64 {
	return -meanOverAnchors(delta, func(rows [][]float64) float64 {
		norms := make([]float64, len(rows))
		for j, r := range rows {
			norms[j] = refNorm(r)
		}
		return stat.Variance(norms, nil)
	})
}

// meanOverAnchors is mean_i f(Δ_i0, …, Δ_i(b−1)) over the a anchors of an [a, b, d] delta.
func meanOverAnchors(delta mat, f func(rows [][]float64) float64) float64 {
	a, b := delta.dims[0], delta.dims[1]
	total := 0.0
	for i := range a {
		rows := make([][]float64, b)
		for j := range rows {
			rows[j] = deltaAt(delta, i, j)
		}
		total += f(rows)
	}
	return total / float64(a)
}

func TestNormVariance(t *testing.T) {
	rng := newRand(32)
	const lower = GARENormLowerBound
	small := randMat(rng, -0.3, 0.3, 3, 4, 5) // spread well below λ: the term is active
	raw := refNegNormVariance(small)
	if raw < -lower {
		t.Fatalf("test draw should be inside the bound, raw %g", raw)
	}
	for name, fn := range map[string]func(*Node, float64) *Node{"NormVariance": NormVariance, "NormVarianceClamped": NormVarianceClamped} {
		value, grads := evalLoss(t, func(in []*Node) *Node { return fn(in[0], lower) }, []int{0}, small.tensor())
		ref := func() float64 { return refNegNormVariance(small) }
		assertClose(t, name+" (active)", value, raw, valueTolerance)
		assertAllClose(t, name+" gradient (active)", grads[0], finiteDifference(ref, small.data), gradTolerance)
	}

	// Past the bound: scale one video's Δ up for every text so the variance of the norms exceeds λ.
	big := small.clone()
	for i := 0; i < 3; i++ {
		for k, x := range deltaAt(big, i, 0) {
			deltaAt(big, i, 0)[k] = 5 * x / math.Max(refNorm(deltaAt(small, i, 0)), 1e-3)
		}
	}
	if refNegNormVariance(big) >= -lower {
		t.Fatalf("test draw should be past the bound, raw %g", refNegNormVariance(big))
	}
	cut, gCut := evalLoss(t, func(in []*Node) *Node { return NormVariance(in[0], lower) }, []int{0}, big.tensor())
	clamped, gClamped := evalLoss(t, func(in []*Node) *Node { return NormVarianceClamped(in[0], lower) }, []int{0}, big.tensor())
	assertClose(t, "code: hard cut-off to 0", cut, 0, 0)
	assertClose(t, "paper: max(raw, −λ)", clamped, -lower, 0)
	for i := range gCut[0] {
		if gCut[0][i] != 0 || gClamped[0][i] != 0 {
			t.Fatalf("past the bound both variants have zero gradient, got %g and %g at %d", gCut[0][i], gClamped[0][i], i)
		}
	}
}

// TestNormVarianceZeroDelta: Δ_ij = 0 exactly gives a finite gradient (torch.norm's subgradient 0).
func TestNormVarianceZeroDelta(t *testing.T) {
	delta := randMat(newRand(33), -1, 1, 2, 3, 4)
	for k := range deltaAt(delta, 0, 1) {
		deltaAt(delta, 0, 1)[k] = 0
	}
	value, grads := evalLoss(t, func(in []*Node) *Node { return NormVariance(in[0], 10) }, []int{0}, delta.tensor())
	assertClose(t, "NormVariance with a zero Δ", value, refNegNormVariance(delta), 1e-12)
	if !allFinite(grads[0]) {
		t.Errorf("non-finite gradient: %v", grads[0])
	}
}

// refDirectional computes mean_i log(mean_{j,k} exp(−α(1 − cos)) + 1e-8) (optionally over j ≠ k) and the
// Appendix C.2 orthogonality term mean_i (1/B²) Σ_{j≠k} cos².
func refDirectional(delta mat, alpha float64, offDiagonal bool) float64 {
	a, b := delta.dims[0], delta.dims[1]
	total := 0.0
	for i := 0; i < a; i++ {
		s, n := 0.0, 0
		for j := 0; j < b; j++ {
			for k := 0; k < b; k++ {
				if offDiagonal && j == k {
					continue
				}
				s += math.Exp(-alpha * (1 - refCos(deltaAt(delta, i, j), deltaAt(delta, i, k))))
				n++
			}
		}
		total += math.Log(s/float64(n) + 1e-8)
	}
	return total / float64(a)
}

func refOrthogonality(delta mat) float64 {
	return meanOverAnchors(delta, func(rows [][]float64) float64 {
		s := 0.0
		for j := range rows {
			for k := range rows {
				if j != k {
					c := refCos(rows[j], rows[k])
					s += c * c
				}
			}
		}
		return s / float64(len(rows)*len(rows))
	})
}

func TestDirectionalTerms(t *testing.T) {
	delta := randMat(newRand(34), -1, 1, 3, 4, 5)
	for _, tc := range []struct {
		name string
		fn   func(*Node) *Node
		ref  func() float64
	}{
		{"DirectionalDiversity (code, j = k included)", func(x *Node) *Node { return DirectionalDiversity(x, GAREAlpha) },
			func() float64 { return refDirectional(delta, GAREAlpha, false) }},
		{"DirectionalDiversityOffDiagonal", func(x *Node) *Node { return DirectionalDiversityOffDiagonal(x, 0.5) },
			func() float64 { return refDirectional(delta, 0.5, true) }},
		{"DirectionalOrthogonality (App. C.2)", DirectionalOrthogonality, func() float64 { return refOrthogonality(delta) }},
	} {
		value, grads := evalLoss(t, func(in []*Node) *Node { return tc.fn(in[0]) }, []int{0}, delta.tensor())
		assertClose(t, tc.name+" value", value, tc.ref(), valueTolerance)
		assertAllClose(t, tc.name+" gradient", grads[0], finiteDifference(tc.ref, delta.data), gradTolerance)
	}
}

// TestDirectionalDiversityCollapsed: all Δ_ij of an anchor parallel — every cosine is 1, L_dir = log(1 + 1e-8).
func TestDirectionalDiversityCollapsed(t *testing.T) {
	delta := mat{data: make([]float64, 2*3*2), dims: []int{2, 3, 2}}
	for i := 0; i < 2; i++ {
		for j := 0; j < 3; j++ {
			copy(deltaAt(delta, i, j), []float64{float64(j + 1), 2 * float64(j+1)})
		}
	}
	value, _ := evalLoss(t, func(in []*Node) *Node { return DirectionalDiversity(in[0], 2) }, nil, delta.tensor())
	assertClose(t, "collapsed L_dir", value, math.Log(1+1e-8), 1e-12)
	orth, _ := evalLoss(t, func(in []*Node) *Node { return DirectionalOrthogonality(in[0]) }, nil, delta.tensor())
	assertClose(t, "collapsed L_orth", orth, 6.0/9, 1e-12)
}

func TestScaledInfoNCEAndTotal(t *testing.T) {
	rng := newRand(35)
	const b, d = 3, 4
	sim := randMat(rng, -1, 1, b, b)
	delta := randMat(rng, -0.5, 0.5, b, b, d)
	scale := []float64{GARELogitScale}
	info := func() float64 {
		rows := refRowsCE(b, func(i, j int) float64 { return scale[0] * sim.data[i*b+j] }, 0)
		cols := refRowsCE(b, func(i, j int) float64 { return scale[0] * sim.data[j*b+i] }, 0)
		return 0.5 * (rows + cols)
	}
	value, grads := evalLoss(t, func(in []*Node) *Node { return ScaledInfoNCE(in[0], in[1]) }, []int{0, 1},
		sim.tensor(), tensors.FromScalar(scale[0]))
	assertClose(t, "ScaledInfoNCE", value, info(), valueTolerance)
	assertAllClose(t, "d/dsim", grads[0], finiteDifference(info, sim.data), 1e-5)
	assertAllClose(t, "d/dscale", grads[1], finiteDifference(info, scale), 1e-5)

	for name, cfg := range map[string]GAREConfig{"code": DefaultGAREConfig(), "paper": PaperGAREConfig()} {
		cfg := cfg
		total := func() float64 {
			t := info() + cfg.Beta*refIBRelax(delta, cfg.IB.Anchor == IBAnchorText, cfg.IB.PerDimension)
			norm := refNegNormVariance(delta)
			if cfg.NormClamped {
				norm = math.Max(norm, -cfg.LowerBound)
			} else if norm < -cfg.LowerBound {
				norm = 0
			}
			t += cfg.LambdaNorm * norm
			return t + cfg.LambdaDir*refDirectional(delta, cfg.Alpha, cfg.Directional == DirectionalLogMeanExpOffDiagonal)
		}
		value, grads := evalLoss(t, func(in []*Node) *Node { return GARETotal(in[0], in[1], in[2], cfg).Total },
			[]int{0, 2}, sim.tensor(), tensors.FromScalar(scale[0]), delta.tensor())
		assertClose(t, name+" GARETotal", value, total(), valueTolerance)
		assertAllClose(t, name+" GARETotal d/dsim", grads[0], finiteDifference(total, sim.data), 1e-5)
		assertAllClose(t, name+" GARETotal d/ddelta", grads[1], finiteDifference(total, delta.data), 1e-5)
	}
	cfg := DefaultGAREConfig()
	if cfg.Beta != 1e-4 || cfg.LambdaNorm != 0.01 || cfg.LambdaDir != 0.01 || cfg.Alpha != 2 || cfg.LowerBound != 0.5 {
		t.Errorf("DefaultGAREConfig does not carry the code's weights (docs/official-code.md §4.3): %+v", cfg)
	}
}

func TestGAREShapeErrors(t *testing.T) {
	expectPanic(t, func() {
		evalLoss(t, func(in []*Node) *Node { return IBRelax(in[0]) }, nil, randMat(newRand(1), 0, 1, 3, 4).tensor())
	}, "IBRelax", "rank 3")
	expectPanic(t, func() {
		evalLoss(t, func(in []*Node) *Node { return IBRelax(in[0]) }, nil, randMat(newRand(1), 0, 1, 1, 4, 2).tensor())
	}, "IBRelax", "at least 2")
}

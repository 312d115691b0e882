package loss

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck
	"github.com/gomlx/gomlx/core/tensors"
)

// refVolumeContrastive is ½[CE_rows(−V/τ) + CE_rows(−Vᵀ/τ)] with label smoothing, in plain Go.
func refVolumeContrastive(vol []float64, n int, tau, eps float64) float64 {
	rows := refRowsCE(n, func(i, j int) float64 { return -vol[i*n+j] / tau }, eps)
	cols := refRowsCE(n, func(i, j int) float64 { return -vol[j*n+i] / tau }, eps)
	return 0.5 * (rows + cols)
}

func TestVolumeContrastiveValueAndGradient(t *testing.T) {
	rng := newRand(1)
	const n = 4
	for _, eps := range []float64{0, GRAMLabelSmoothing, 0.3} {
		vol := randMat(rng, 0.2, 1.0, n, n)
		tau := mat{data: []float64{0.07}, dims: nil}
		value, grads := evalLoss(t, func(in []*Node) *Node { return VolumeContrastive(in[0], in[1], eps) },
			[]int{0, 1}, vol.tensor(), tensors.FromScalar(tau.data[0]))
		ref := func() float64 { return refVolumeContrastive(vol.data, n, tau.data[0], eps) }
		assertClose(t, "VolumeContrastive value", value, ref(), valueTolerance)
		assertAllClose(t, "d/dvol", grads[0], finiteDifference(ref, vol.data), gradTolerance)
		assertAllClose(t, "d/dtau", grads[1], finiteDifference(ref, tau.data), gradTolerance)
	}
}

// TestLabelSmoothingByHand checks the smoothing convention on a 2×2 case worked out by hand:
// logits row (0, log 3) with target 0: p = (1/4, 3/4); q = (1−ε+ε/2, ε/2).
func TestLabelSmoothingByHand(t *testing.T) {
	eps := 0.1
	logits := mat{data: []float64{0, math.Log(3), math.Log(3), 0}, dims: []int{2, 2}}
	value, _ := evalLoss(t, func(in []*Node) *Node { return DiagonalCrossEntropy(in[0], eps) }, nil, logits.tensor())
	// Both rows have the target's probability 1/4 and the other's 3/4.
	want := -((1-eps+eps/2)*math.Log(0.25) + (eps/2)*math.Log(0.75))
	assertClose(t, "smoothed CE", value, want, 1e-12)
}

// testVolume3 is a VolumeFunc for the tests: sqrt(|det G|) of the Gram matrix of (a_i, v_j, w_j), written
// with the 3×3 cofactor formula on dot products (independent of lib/geom).
func testVolume3(anchor *Node, others ...*Node) *Node {
	v, w := others[0], others[1]
	aa := InsertAxes(ReduceSum(Square(anchor), -1), 1) // [B1, 1]
	vv := InsertAxes(ReduceSum(Square(v), -1), 0)      // [1, B2]
	ww := InsertAxes(ReduceSum(Square(w), -1), 0)      // [1, B2]
	vw := InsertAxes(ReduceSum(Mul(v, w), -1), 0)      // [1, B2]
	av := MatMul(anchor, Transpose(v, 0, 1))           // [B1, B2]
	aw := MatMul(anchor, Transpose(w, 0, 1))           // [B1, B2]
	det := Add(Mul(Mul(aa, vv), ww), MulScalar(Mul(Mul(av, aw), vw), 2))
	det = Sub(det, Add(Add(Mul(aa, Square(vw)), Mul(vv, Square(aw))), Mul(ww, Square(av))))
	return Sqrt(Abs(det))
}

func refVolume3(a, v, w []float64) float64 {
	g := [3][3]float64{}
	vecs := [3][]float64{a, v, w}
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			g[i][j] = floats.Dot(vecs[i], vecs[j])
		}
	}
	det := g[0][0]*(g[1][1]*g[2][2]-g[1][2]*g[2][1]) - g[0][1]*(g[1][0]*g[2][2]-g[1][2]*g[2][0]) +
		g[0][2]*(g[1][0]*g[2][1]-g[1][1]*g[2][0])
	return math.Sqrt(math.Abs(det))
}

func refVolumeMatrix3(a, v, w mat) []float64 {
	n := a.dims[0]
	vol := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			vol[i*n+j] = refVolume3(a.row(i), v.row(j), w.row(j))
		}
	}
	return vol
}

// TestVolumeContrastiveOneSided checks docs/official-code.md §1.3: the same value as the two-sided loss, with the
// anchor→data term differentiated only through the anchor and the data→anchor term only through the data.
func TestVolumeContrastiveOneSided(t *testing.T) {
	rng := newRand(2)
	const n, d = 3, 4
	eps := GRAMLabelSmoothing
	a, v, w, tau, inputs, wrt := threeModalBatch(rng, n, d, 0.2)
	oneSided, gOne := evalLoss(t, func(in []*Node) *Node {
		return VolumeContrastiveOneSided(testVolume3, in[3], eps, in[0], in[1], in[2])
	}, wrt, inputs...)
	twoSided, gTwo := evalLoss(t, func(in []*Node) *Node {
		return VolumeContrastive(testVolume3(in[0], in[1], in[2]), in[3], eps)
	}, wrt, inputs...)

	full := func() float64 { return refVolumeContrastive(refVolumeMatrix3(a, v, w), n, tau[0], eps) }
	rowsTerm := func() float64 { // ½ CE_rows(−V/τ): the part the anchor sees
		vol := refVolumeMatrix3(a, v, w)
		return 0.5 * refRowsCE(n, func(i, j int) float64 { return -vol[i*n+j] / tau[0] }, eps)
	}
	colsTerm := func() float64 { // ½ CE_rows(−Vᵀ/τ): the part the data side sees
		vol := refVolumeMatrix3(a, v, w)
		return 0.5 * refRowsCE(n, func(i, j int) float64 { return -vol[j*n+i] / tau[0] }, eps)
	}
	assertClose(t, "one-sided value", oneSided, full(), valueTolerance)
	assertClose(t, "two-sided value", twoSided, full(), valueTolerance)

	assertAllClose(t, "one-sided d/danchor", gOne[0], finiteDifference(rowsTerm, a.data), gradTolerance)
	assertAllClose(t, "one-sided d/dv", gOne[1], finiteDifference(colsTerm, v.data), gradTolerance)
	assertAllClose(t, "one-sided d/dw", gOne[2], finiteDifference(colsTerm, w.data), gradTolerance)
	assertAllClose(t, "one-sided d/dtau", gOne[3], finiteDifference(full, tau), gradTolerance)

	assertAllClose(t, "two-sided d/danchor", gTwo[0], finiteDifference(full, a.data), gradTolerance)
	assertAllClose(t, "two-sided d/dv", gTwo[1], finiteDifference(full, v.data), gradTolerance)
	if diff := maxAbsDiff(gOne[0], gTwo[0]); diff < 1e-4 {
		t.Errorf("one-sided and two-sided anchor gradients should differ, max diff %g", diff)
	}
}

func TestDAMNegativeWeights(t *testing.T) {
	rng := newRand(3)
	const n = 5
	vol := randMat(rng, 0.1, 1.0, n, n)
	tau := 0.07
	value, grads := evalLoss(t, func(in []*Node) *Node {
		w := DAMNegativeWeights(in[0], in[1])
		// A weighted sum, so that the gradient (which must be zero) is requested through the weights.
		return ReduceAllSum(Mul(w, Add(in[0], Const(in[0].Graph(), 1.0))))
	}, []int{0, 1}, vol.tensor(), tensors.FromScalar(tau))
	want := 0.0
	for i := 0; i < n; i++ {
		row := make([]float64, n)
		for j := range row {
			row[j] = -vol.data[i*n+j] / tau
		}
		lp := refLogSoftmaxRow(row)
		for j := 0; j < n; j++ {
			if j != i {
				want += (math.Exp(lp[j]) + 1e-4) * (vol.data[i*n+j] + 1)
			}
		}
	}
	assertClose(t, "Σ w·(V+1)", value, want, valueTolerance)
	// With w constant, d/dV of Σ w·(V+1) is w itself: any gradient through the weights would show here.
	wantGrad := make([]float64, n*n)
	for k := range wantGrad {
		wantGrad[k] = weightOf(vol.data, n, tau, k)
	}
	assertAllClose(t, "d/dV (weights are stop-gradient)", grads[0], wantGrad, 1e-12)
	if grads[1][0] != 0 {
		t.Errorf("tau must get no gradient through the DAM weights, got %g", grads[1][0])
	}
}

// weightOf is the reference DAM weight of flat entry k of an n×n volume matrix.
func weightOf(vol []float64, n int, tau float64, k int) float64 {
	i, j := k/n, k%n
	if i == j {
		return 0
	}
	row := make([]float64, n)
	for c := range row {
		row[c] = -vol[i*n+c] / tau
	}
	return math.Exp(refLogSoftmaxRow(row)[j]) + 1e-4
}

// TestDAMWeightsTies: equal volumes give the uniform softmax 1/B plus the floor, and 0 on the diagonal.
func TestDAMWeightsTies(t *testing.T) {
	const n = 4
	vol := mat{data: make([]float64, n*n), dims: []int{n, n}}
	for i := range vol.data {
		vol.data[i] = 0.5
	}
	exec := MustNewExec(backend.MustNew(), func(v, tau *Node) *Node { return DAMNegativeWeights(v, tau) })
	w := flatOf(t, exec.MustExec(vol.tensor(), tensors.FromScalar(0.07))[0])
	for k, got := range w {
		want := 1.0/n + 1e-4
		if k/n == k%n {
			want = 0
		}
		assertClose(t, "tied weight", got, want, 1e-12)
	}
}

// TestSampleCategoricalFrequencies draws 40 000 samples from fixed weights (one graph call) and checks
// each frequency within 5 standard errors, and that zero weights are never drawn.
func TestSampleCategoricalFrequencies(t *testing.T) {
	weights := []float64{0.5, 0, 2, 1.5} // probabilities 0.125, 0, 0.5, 0.375
	const draws = 40000
	exec := MustNewExec(backend.MustNew(), func(w *Node) *Node {
		g := w.Graph()
		rng := Const(g, must(RNGStateFromSeed(7)))
		_, idx := SampleCategorical(rng, BroadcastToDims(InsertAxes(w, 0), draws, 4))
		return idx
	})
	idx := flatOf(t, exec.MustExec(tensors.FromFlatDataAndDimensions(weights, 4))[0])
	counts := make([]float64, 4)
	for _, i := range idx {
		counts[int(i)]++
	}
	total := 4.0
	for k, w := range weights {
		p := w / total
		freq := counts[k] / draws
		se := math.Sqrt(p * (1 - p) / draws)
		if w == 0 && counts[k] != 0 {
			t.Errorf("weight 0 drawn %v times", counts[k])
		}
		if math.Abs(freq-p) > 5*se+1e-12 {
			t.Errorf("category %d: frequency %.4f, want %.4f ± %.4f", k, freq, p, 5*se)
		}
	}
}

// TestSampleDAMNegativesNeverPositive: with the diagonal weight 0, no row ever draws itself, and hard
// negatives (small volume) are drawn more often than easy ones.
func TestSampleDAMNegativesNeverPositive(t *testing.T) {
	const n, draws = 4, 5000
	// Row i: the volume to column (i+1)%n is small (a hard negative), others large.
	vol := mat{data: make([]float64, n*n), dims: []int{n, n}}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			vol.data[i*n+j] = 0.9
			if j == i {
				vol.data[i*n+j] = 0.05 // the positive is the most attractive of all; it must still be excluded
			}
			if j == (i+1)%n {
				vol.data[i*n+j] = 0.3
			}
		}
	}
	exec := MustNewExec(backend.MustNew(), func(v, tau *Node) *Node {
		g := v.Graph()
		rng := Const(g, must(RNGStateFromSeed(11)))
		w := DAMNegativeWeights(v, tau)
		_, idx := SampleCategorical(rng, BroadcastToDims(InsertAxes(w, 0), draws, n, n))
		return idx
	})
	idx := flatOf(t, exec.MustExec(vol.tensor(), tensors.FromScalar(0.1))[0])
	hard := 0
	for k, j := range idx {
		i := k % n
		if int(j) == i {
			t.Fatalf("row %d drew its own positive", i)
		}
		if int(j) == (i+1)%n {
			hard++
		}
	}
	// P(hard) = e^{-3} / (e^{-3} + 2 e^{-9}) + floor effects ≈ 0.995.
	if frac := float64(hard) / float64(len(idx)); frac < 0.98 {
		t.Errorf("hard negative drawn in %.3f of rows, want ≈ 0.995", frac)
	}
	// And the direct helper runs and never returns the diagonal.
	exec2 := MustNewExec(backend.MustNew(), func(v, tau *Node) *Node {
		_, idx := SampleDAMNegatives(Const(v.Graph(), must(RNGStateFromSeed(3))), v, tau)
		return idx
	})
	neg := flatOf(t, exec2.MustExec(vol.tensor(), tensors.FromScalar(0.1))[0])
	for i, j := range neg {
		if int(j) == i {
			t.Errorf("SampleDAMNegatives: row %d drew itself", i)
		}
	}
}

func TestMatchingCrossEntropy(t *testing.T) {
	rng := newRand(4)
	const n = 6
	logits := randMat(rng, -2, 2, n, 2)
	matched := []int{1, 1, 0, 0, 0, 0} // the code's layout for B = 2: positives, then the two negative sets
	ref := func() float64 {
		total := 0.0
		for i := 0; i < n; i++ {
			// Binary cross-entropy on p = softmax(logits)[1] (GRAM Eq. 7) — equal to the 2-class CE.
			p := 1 / (1 + math.Exp(logits.data[2*i]-logits.data[2*i+1]))
			if matched[i] == 1 {
				total -= math.Log(p)
			} else {
				total -= math.Log(1 - p)
			}
		}
		return total / n
	}
	value, grads := evalLoss(t, func(in []*Node) *Node { return MatchingCrossEntropy(in[0], in[1]) },
		[]int{0}, logits.tensor(), labelsTensor(matched))
	assertClose(t, "MatchingCrossEntropy", value, ref(), valueTolerance)
	assertAllClose(t, "d/dlogits", grads[0], finiteDifference(ref, logits.data), gradTolerance)

	boolLabels := make([]bool, n)
	for i, m := range matched {
		boolLabels[i] = m == 1
	}
	valueBool, _ := evalLoss(t, func(in []*Node) *Node { return MatchingCrossEntropy(in[0], in[1]) },
		nil, logits.tensor(), tensors.FromFlatDataAndDimensions(boolLabels, n))
	assertClose(t, "MatchingCrossEntropy (bool labels)", valueBool, ref(), valueTolerance)
}

func TestGRAMShapeErrors(t *testing.T) {
	g := NewGraph(backend.MustNew(), "errors")
	vol := Zeros(g, shapes.Make(dtypes.Float64, 3, 4))
	tau := Scalar(g, dtypes.Float64, 0.07)
	expectPanic(t, func() { VolumeContrastive(vol, tau, 0.1) }, "VolumeContrastive", "square")
	sq := Zeros(g, shapes.Make(dtypes.Float64, 3, 3))
	expectPanic(t, func() { VolumeContrastive(sq, sq, 0.1) }, "VolumeContrastive", "tau", "scalar")
	expectPanic(t, func() { VolumeContrastive(sq, tau, 1.0) }, "label smoothing")
	expectPanic(t, func() { MatchingCrossEntropy(sq, Zeros(g, shapes.Make(dtypes.Int32, 3))) }, "MatchingCrossEntropy", "[N, 2]")
}

package loss

import (
	"math"
	"sort"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/geoalign/geoalign/lib/backend"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck
	"github.com/gomlx/gomlx/core/tensors"
)

// A small PRVR batch: 4 videos, 7 queries; video 2 has no query in the batch (a masked column).
var (
	prvrLabels   = []int{0, 0, 0, 1, 1, 3, 3}
	prvrQ, prvrV = 7, 4
)

// refMultiPositiveNCE follows the formula term by term; videos without captions contribute 0.
func refMultiPositiveNCE(s []float64, labels []int, q, v int) float64 {
	t2v := 0.0
	for i := 0; i < q; i++ {
		t2v += refLogSumExp(s[i*v:(i+1)*v]) - s[i*v+labels[i]]
	}
	v2t := 0.0
	for j := 0; j < v; j++ {
		var col, pos []float64
		for i := 0; i < q; i++ {
			col = append(col, s[i*v+j])
			if labels[i] == j {
				pos = append(pos, s[i*v+j])
			}
		}
		if len(pos) > 0 {
			v2t += refLogSumExp(col) - refLogSumExp(pos)
		}
	}
	return t2v/float64(q) + v2t/float64(v)
}

func TestMultiPositiveNCE(t *testing.T) {
	rng := newRand(21)
	scores := randMat(rng, -3, 3, prvrQ, prvrV)
	value, grads := evalLoss(t, func(in []*Node) *Node { return MultiPositiveNCE(in[0], in[1]) },
		[]int{0}, scores.tensor(), labelsTensor(prvrLabels))
	ref := func() float64 { return refMultiPositiveNCE(scores.data, prvrLabels, prvrQ, prvrV) }
	assertClose(t, "MultiPositiveNCE", value, ref(), valueTolerance)
	assertAllClose(t, "d/dscores", grads[0], finiteDifference(ref, scores.data), gradTolerance)
}

// TestMultiPositiveNCETies: with all scores equal, t2v = log V and v2t = mean over videos with captions of
// log(Q / n_v) (0 for the caption-less video), a closed form.
func TestMultiPositiveNCETies(t *testing.T) {
	scores := mat{data: make([]float64, prvrQ*prvrV), dims: []int{prvrQ, prvrV}}
	for i := range scores.data {
		scores.data[i] = 0.37
	}
	value, grads := evalLoss(t, func(in []*Node) *Node { return MultiPositiveNCE(in[0], in[1]) },
		[]int{0}, scores.tensor(), labelsTensor(prvrLabels))
	want := math.Log(float64(prvrV)) + (math.Log(7.0/3)+math.Log(7.0/2)+math.Log(7.0/2))/float64(prvrV)
	assertClose(t, "tied MultiPositiveNCE", value, want, 1e-12)
	if !allFinite(grads[0]) {
		t.Errorf("non-finite gradient: %v", grads[0])
	}
	// The caption-less video's column gets gradient only from the t2v softmax: 1/(Q·V) per entry.
	for i := 0; i < prvrQ; i++ {
		assertClose(t, "gradient on the caption-less column", grads[0][i*prvrV+2], 1.0/float64(prvrQ*prvrV), 1e-12)
	}
}

func refTriplet(s []float64, labels, t2vNeg, v2tNeg []int, q, v int, margin float64) float64 {
	t2v := 0.0
	for i := 0; i < q; i++ {
		t2v += math.Max(0, margin+s[i*v+t2vNeg[i]]-s[i*v+labels[i]])
	}
	v2t := 0.0
	for j := 0; j < v; j++ {
		pos, n := 0.0, 0
		for i := 0; i < q; i++ {
			if labels[i] == j {
				pos += s[i*v+j]
				n++
			}
		}
		if n == 0 {
			continue
		}
		v2t += math.Max(0, margin+s[v2tNeg[j]*v+j]-pos/float64(n))
	}
	return t2v/float64(q) + v2t/float64(v)
}

func TestTripletRankingWithNegatives(t *testing.T) {
	rng := newRand(22)
	scores := randMat(rng, -1, 1, prvrQ, prvrV)
	t2vNeg := []int{1, 3, 2, 0, 2, 1, 0}
	v2tNeg := []int{4, 6, 0, 2}
	const margin = 0.2
	value, grads := evalLoss(t, func(in []*Node) *Node {
		return TripletRankingWithNegatives(in[0], in[1], in[2], in[3], margin)
	}, []int{0}, scores.tensor(), labelsTensor(prvrLabels), labelsTensor(t2vNeg), labelsTensor(v2tNeg))
	ref := func() float64 { return refTriplet(scores.data, prvrLabels, t2vNeg, v2tNeg, prvrQ, prvrV, margin) }
	// Keep the finite differences away from the hinge's kink.
	for i := 0; i < prvrQ; i++ {
		if math.Abs(margin+scores.data[i*prvrV+t2vNeg[i]]-scores.data[i*prvrV+prvrLabels[i]]) < 1e-3 {
			t.Skip("random draw too close to the hinge")
		}
	}
	assertClose(t, "TripletRankingWithNegatives", value, ref(), valueTolerance)
	assertAllClose(t, "d/dscores", grads[0], finiteDifference(ref, scores.data), gradTolerance)
	if value <= 0 {
		t.Errorf("test draw should have active hinges, got loss %g", value)
	}
}

// samplerRun compiles the negative sampler once and runs it for several RNG seeds.
func samplerRun(t *testing.T, scores mat, labels []int, hard bool, pool int, seeds int) (t2v, v2t [][]int) {
	exec := MustNewExec(backend.MustNew(), func(rngState, s, l *Node) (*Node, *Node) {
		_, a, b := SampleTripletNegatives(rngState, s, l, hard, pool)
		return a, b
	})
	for seed := 0; seed < seeds; seed++ {
		out := exec.MustExec(must(RNGStateFromSeed(int64(seed))), scores.tensor(), labelsTensor(labels))
		t2v = append(t2v, toInts(flatOf(t, out[0])))
		v2t = append(v2t, toInts(flatOf(t, out[1])))
	}
	return t2v, v2t
}

func toInts(xs []float64) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = int(x)
	}
	return out
}

// refNegativesByScore returns, for query i, the other videos sorted by descending score.
func refNegativesByScore(s []float64, labels []int, q, v, i int) []int {
	var negs []int
	for j := 0; j < v; j++ {
		if j != labels[i] {
			negs = append(negs, j)
		}
	}
	sort.SliceStable(negs, func(a, b int) bool { return s[i*v+negs[a]] > s[i*v+negs[b]] })
	return negs
}

func TestSampleTripletNegativesHard(t *testing.T) {
	rng := newRand(23)
	scores := randMat(rng, -1, 1, prvrQ, prvrV)
	// Pool 1: fully deterministic — the single hardest negative in both directions.
	t2v, v2t := samplerRun(t, scores, prvrLabels, true, 1, 3)
	for _, draw := range t2v {
		for i, j := range draw {
			if want := refNegativesByScore(scores.data, prvrLabels, prvrQ, prvrV, i)[0]; j != want {
				t.Errorf("hard t2v, pool 1: query %d got video %d, want %d", i, j, want)
			}
		}
	}
	for _, draw := range v2t {
		for j, qi := range draw {
			best, bestScore := -1, math.Inf(-1)
			for i := 0; i < prvrQ; i++ {
				if prvrLabels[i] != j && scores.data[i*prvrV+j] > bestScore {
					best, bestScore = i, scores.data[i*prvrV+j]
				}
			}
			if qi != best {
				t.Errorf("hard v2t: video %d got query %d, want the hardest %d", j, qi, best)
			}
		}
	}
	// Pool 2 of 3 negatives: every draw in the top 2, and both members drawn.
	t2v, _ = samplerRun(t, scores, prvrLabels, true, 2, 60)
	for i := 0; i < prvrQ; i++ {
		top := refNegativesByScore(scores.data, prvrLabels, prvrQ, prvrV, i)[:2]
		seen := map[int]int{}
		for _, draw := range t2v {
			seen[draw[i]]++
			if draw[i] != top[0] && draw[i] != top[1] {
				t.Fatalf("hard t2v, pool 2: query %d drew video %d outside its top-2 %v", i, draw[i], top)
			}
		}
		if len(seen) != 2 {
			t.Errorf("hard t2v, pool 2: query %d drew %v in 60 draws, want both of %v", i, seen, top)
		}
	}
}

func TestSampleTripletNegativesUniform(t *testing.T) {
	rng := newRand(24)
	scores := randMat(rng, -1, 1, prvrQ, prvrV)
	const seeds = 120
	t2v, v2t := samplerRun(t, scores, prvrLabels, false, 0, seeds)
	for i := 0; i < prvrQ; i++ {
		counts := map[int]int{}
		for _, draw := range t2v {
			if draw[i] == prvrLabels[i] {
				t.Fatalf("t2v: query %d drew its own video", i)
			}
			counts[draw[i]]++
		}
		// 3 negatives, 120 draws: each expected 40; a count below 15 is a > 4σ event.
		for j := 0; j < prvrV; j++ {
			if j != prvrLabels[i] && counts[j] < 15 {
				t.Errorf("t2v: query %d drew video %d only %d/%d times", i, j, counts[j], seeds)
			}
		}
	}
	for j := 0; j < prvrV; j++ {
		counts := map[int]int{}
		for _, draw := range v2t {
			if prvrLabels[draw[j]] == j {
				t.Fatalf("v2t: video %d drew its own caption %d", j, draw[j])
			}
			counts[draw[j]]++
		}
		negatives := 0
		for i := 0; i < prvrQ; i++ {
			if prvrLabels[i] != j {
				negatives++
			}
		}
		if len(counts) != negatives {
			t.Errorf("v2t: video %d drew %d distinct negatives in %d draws, want all %d", j, len(counts), seeds, negatives)
		}
	}
}

// TestTripletRankingHardDeterministic: with hard negatives and a pool of 1 the whole loss is deterministic,
// so it can be checked end to end (sampler + loss) against the reference with the hardest negatives.
func TestTripletRankingHardDeterministic(t *testing.T) {
	rng := newRand(25)
	scores := randMat(rng, -1, 1, prvrQ, prvrV)
	const margin = 0.1
	value, _ := evalLoss(t, func(in []*Node) *Node {
		_, l := TripletRanking(Const(in[0].Graph(), must(RNGStateFromSeed(1))), in[0], in[1],
			TripletOptions{Margin: margin, HardNegatives: true, HardPoolSize: 1})
		return l
	}, nil, scores.tensor(), labelsTensor(prvrLabels))
	t2vNeg := make([]int, prvrQ)
	for i := range t2vNeg {
		t2vNeg[i] = refNegativesByScore(scores.data, prvrLabels, prvrQ, prvrV, i)[0]
	}
	v2tNeg := make([]int, prvrV)
	for j := range v2tNeg {
		best := math.Inf(-1)
		for i := 0; i < prvrQ; i++ {
			if prvrLabels[i] != j && scores.data[i*prvrV+j] > best {
				best, v2tNeg[j] = scores.data[i*prvrV+j], i
			}
		}
	}
	assertClose(t, "TripletRanking (hard, pool 1)", value, refTriplet(scores.data, prvrLabels, t2vNeg, v2tNeg, prvrQ, prvrV, margin), valueTolerance)
}

// TestHardNegativeTies: equal scores — the v2t hardest negative is the lowest-index negative query.
func TestHardNegativeTies(t *testing.T) {
	scores := mat{data: make([]float64, prvrQ*prvrV), dims: []int{prvrQ, prvrV}}
	for i := range scores.data {
		scores.data[i] = 0.5
	}
	_, v2t := samplerRun(t, scores, prvrLabels, true, 1, 1)
	want := []int{3, 0, 0, 0} // video 0's first negative is query 3; the others' is query 0
	for j := range want {
		if v2t[0][j] != want[j] {
			t.Errorf("tied hard v2t: video %d got query %d, want %d", j, v2t[0][j], want[j])
		}
	}
}

func refQueryDiversity(queries mat, labels []int, margin, scale, focal float64, includeSelf bool) float64 {
	n := queries.dims[0]
	total := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if labels[i] != labels[j] || (i == j && !includeSelf) {
				continue
			}
			c := refCos(queries.row(i), queries.row(j))
			total += math.Pow(1+c, focal) * math.Log(1+math.Exp(scale*(c+margin)))
		}
	}
	return total / float64(n)
}

func TestQueryDiversity(t *testing.T) {
	rng := newRand(26)
	queries := randMat(rng, -1, 1, prvrQ, 5)
	const margin, scale = 0.2, 32.0
	for _, tc := range []struct {
		name        string
		focal       float64
		includeSelf bool
		fn          func(q, l *Node) *Node
	}{
		{"code (focal 1)", 1, false, func(q, l *Node) *Node { return QueryDiversity(q, l, margin, scale, HLFormerFocal) }},
		{"focal 2.5", 2.5, false, func(q, l *Node) *Node { return QueryDiversity(q, l, margin, scale, 2.5) }},
		{"paper Eq. 32", 0, true, func(q, l *Node) *Node { return QueryDiversityPaper(q, l, margin, scale) }},
		{"no focal, i ≠ j", 0, false, func(q, l *Node) *Node {
			return QueryDiversityWith(q, l, QueryDiversityOptions{Margin: margin, Scale: scale})
		}},
	} {
		value, grads := evalLoss(t, func(in []*Node) *Node { return tc.fn(in[0], in[1]) }, []int{0},
			queries.tensor(), labelsTensor(prvrLabels))
		ref := func() float64 { return refQueryDiversity(queries, prvrLabels, margin, scale, tc.focal, tc.includeSelf) }
		assertClose(t, tc.name+" value", value, ref(), valueTolerance)
		assertAllClose(t, tc.name+" gradient", grads[0], finiteDifference(ref, queries.data), 1e-5)
	}
}

// refExteriorAngle is π − ∠Oxy from the hyperbolic law of cosines, in plain Go: with distances scaled by
// √c (curvature −1 units), cosh D_Oy = cosh D_Ox cosh D_xy − sinh D_Ox sinh D_xy cos∠Oxy.
func refExteriorAngle(x, y []float64, c float64) float64 {
	xt := math.Sqrt(1/c + floats.Dot(x, x))
	yt := math.Sqrt(1/c + floats.Dot(y, y))
	dOx := math.Acosh(math.Sqrt(c) * xt)
	dOy := math.Acosh(math.Sqrt(c) * yt)
	dxy := math.Acosh(c * (xt*yt - floats.Dot(x, y)))
	cosAngle := (math.Cosh(dOx)*math.Cosh(dxy) - math.Cosh(dOy)) / (math.Sinh(dOx) * math.Sinh(dxy))
	return math.Pi - math.Acos(cosAngle)
}

func refEntailmentCone(apex, x mat, c, k float64) float64 {
	n := apex.dims[0]
	total := 0.0
	for r := 0; r < n; r++ {
		aperture := math.Asin(2 * k / (math.Sqrt(c) * refNorm(apex.row(r))))
		total += math.Max(0, refExteriorAngle(apex.row(r), x.row(r), c)-aperture)
	}
	return total / float64(n)
}

func TestEntailmentCone(t *testing.T) {
	const n, d, k = 6, 3, 0.1
	rng := newRand(27)
	apex := randMat(rng, 0.3, 1.5, n, d)
	x := randMat(rng, -1.5, 1.5, n, d)
	// Rows 0 and 1: x a bit farther out along the apex's own direction — inside the cone, zero loss.
	for r := 0; r < 2; r++ {
		for i := 0; i < d; i++ {
			x.data[r*d+i] = 1.6 * apex.data[r*d+i]
		}
	}
	c := []float64{0.7}
	value, grads := evalLoss(t, func(in []*Node) *Node { return EntailmentCone(in[0], in[1], in[2], k) },
		[]int{0, 1, 2}, apex.tensor(), x.tensor(), tensors.FromScalar(c[0]))
	ref := func() float64 { return refEntailmentCone(apex, x, c[0], k) }
	for r := 0; r < n; r++ {
		margin := refExteriorAngle(apex.row(r), x.row(r), c[0]) - math.Asin(2*k/(math.Sqrt(c[0])*refNorm(apex.row(r))))
		if math.Abs(margin) < 1e-3 {
			t.Fatalf("row %d too close to the cone boundary for finite differences", r)
		}
		if r < 2 && margin >= 0 {
			t.Fatalf("row %d should be inside the cone, margin %g", r, margin)
		}
	}
	// The official eps (1e-8 in the aperture's denominator and the acos clamp) moves values by ~1e-8.
	assertClose(t, "EntailmentCone", value, ref(), 1e-7)
	if value <= 0 {
		t.Errorf("some rows should violate the cone, loss %g", value)
	}
	assertAllClose(t, "d/dapex", grads[0], finiteDifference(ref, apex.data), 1e-5)
	assertAllClose(t, "d/dx", grads[1], finiteDifference(ref, x.data), 1e-5)
	assertAllClose(t, "d/dc", grads[2], finiteDifference(ref, c), 1e-5)
	for r := 0; r < 2; r++ {
		for i := 0; i < d; i++ {
			if grads[1][r*d+i] != 0 {
				t.Errorf("row %d is inside the cone, its x gradient must be 0, got %g", r, grads[1][r*d+i])
			}
		}
	}
}

func TestHLFormerShapeErrors(t *testing.T) {
	expectPanic(t, func() {
		evalLoss(t, func(in []*Node) *Node { return MultiPositiveNCE(in[0], in[1]) }, nil,
			randMat(newRand(1), 0, 1, 3, 2).tensor(), labelsTensor([]int{0, 1}))
	}, "MultiPositiveNCE", "labels has 2 entries")
	expectPanic(t, func() {
		evalLoss(t, func(in []*Node) *Node { return QueryDiversity(in[0], in[1], 0.2, 32, 1) }, nil,
			randMat(newRand(1), 0, 1, 3, 2).tensor(), randMat(newRand(1), 0, 1, 3).tensor())
	}, "QueryDiversity", "integer")
}

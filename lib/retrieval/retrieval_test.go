package retrieval

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

func mat(rows [][]float64) Matrix[float64] {
	m := Matrix[float64]{Rows: len(rows), Cols: len(rows[0])}
	for _, r := range rows {
		m.Data = append(m.Data, r...)
	}
	return m
}

func mustEval[F Float](t *testing.T, sc BlockScorer[F], gt []int, opts Options) Result {
	t.Helper()
	res, err := Evaluate(sc, gt, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func checkMetrics(t *testing.T, what string, m Metrics, recall []float64, mdr, mnr float64) {
	t.Helper()
	for i := range recall {
		if !near(m.Recall[i], recall[i]) {
			t.Errorf("%s: R@%d = %v, want %v", what, m.Ks[i], m.Recall[i], recall[i])
		}
	}
	sum := 0.0
	for _, r := range recall {
		sum += r
	}
	if !near(m.MdR, mdr) || !near(m.MnR, mnr) || !near(m.SumR, sum) {
		t.Errorf("%s: MdR %v MnR %v SumR %v, want %v %v %v", what, m.MdR, m.MnR, m.SumR, mdr, mnr, sum)
	}
}

// Ranks worked out by hand.
func TestHandComputed3x3(t *testing.T) {
	s := mat([][]float64{
		{0.9, 0.1, 0.2}, // GT 0.9 is the best → 1
		{0.3, 0.8, 0.9}, // 0.9 beats GT 0.8 → 2
		{0.5, 0.6, 0.4}, // 0.5 and 0.6 beat GT 0.4 → 3
	})
	res := mustEval[float64](t, s, nil, Options{VideoToText: true})
	if !reflect.DeepEqual(res.T2VRanks, []int{1, 2, 3}) {
		t.Fatalf("t2v ranks %v", res.T2VRanks)
	}
	checkMetrics(t, "t2v", res.T2V, []float64{100.0 / 3, 100, 100}, 2, 2)
	// Columns: video 0: 0.9 vs 0.3, 0.5 → 1; video 1: 0.8 vs 0.1, 0.6 → 1;
	// video 2: 0.4 vs 0.2, 0.9 → 2.
	if !reflect.DeepEqual(res.V2TRanks, []int{1, 1, 2}) {
		t.Fatalf("v2t ranks %v", res.V2TRanks)
	}
	checkMetrics(t, "v2t", *res.V2T, []float64{200.0 / 3, 100, 100}, 1, 4.0/3)
	if res.T2V.Tied != 0 || res.V2T.Tied != 0 {
		t.Errorf("tied = %d, %d; no ties here", res.T2V.Tied, res.V2T.Tied)
	}
}

func TestPerfectAndWorstRankings(t *testing.T) {
	const n = 12
	perfect := Matrix[float32]{Rows: n, Cols: n, Data: make([]float32, n*n)}
	worst := Matrix[float32]{Rows: n, Cols: n, Data: make([]float32, n*n)}
	for i := range n {
		for j := range n {
			// Distinct off-diagonal scores; the diagonal is above / below all of them.
			perfect.Data[i*n+j] = float32(i*n+j) / (n * n)
			worst.Data[i*n+j] = float32(i*n+j) / (n * n)
		}
		perfect.Data[i*n+i] = 2
		worst.Data[i*n+i] = -1
	}
	p := mustEval[float32](t, perfect, nil, Options{Ks: PRVRKs, VideoToText: true})
	checkMetrics(t, "perfect t2v", p.T2V, []float64{100, 100, 100, 100}, 1, 1)
	checkMetrics(t, "perfect v2t", *p.V2T, []float64{100, 100, 100, 100}, 1, 1)
	w := mustEval[float32](t, worst, nil, Options{Ks: []int{1, 11, 12}, VideoToText: true})
	// Every GT is last: rank 12. R@11 = 0, R@12 = 100.
	checkMetrics(t, "worst t2v", w.T2V, []float64{0, 0, 100}, n, n)
	checkMetrics(t, "worst v2t", *w.V2T, []float64{0, 0, 100}, n, n)
}

func TestTieRules(t *testing.T) {
	// Row 0: GT (column 1) ties with columns 0 and 2: 0 greater, 2 equal, 1 before.
	// Row 1: GT (column 0) below 0.7, tied with column 3 (after it).
	s := mat([][]float64{
		{0.5, 0.5, 0.5, 0.1},
		{0.2, 0.7, 0.1, 0.2},
	})
	gt := []int{1, 0}
	for _, c := range []struct {
		tie   TieRule
		ranks []int
	}{
		{TiePessimistic, []int{3, 3}},
		{TieOptimistic, []int{1, 2}},
		{TieByIndex, []int{2, 2}},
	} {
		res := mustEval[float64](t, s, gt, Options{Ties: c.tie})
		if !reflect.DeepEqual(res.T2VRanks, c.ranks) || res.T2V.Tied != 2 {
			t.Errorf("%v: ranks %v tied %d, want %v tied 2", c.tie, res.T2VRanks, res.T2V.Tied, c.ranks)
		}
	}
}

// A model that collapsed to a constant score: pessimistic ties give R@1 = 0, optimistic
// 100, and a stable argsort puts the diagonal GT of row i at position i.
func TestConstantScores(t *testing.T) {
	const n = 10
	s := Matrix[float32]{Rows: n, Cols: n, Data: make([]float32, n*n)}
	pes := mustEval[float32](t, s, nil, Options{VideoToText: true})
	checkMetrics(t, "pessimistic", pes.T2V, []float64{0, 0, 100}, n, n)
	checkMetrics(t, "pessimistic v2t", *pes.V2T, []float64{0, 0, 100}, n, n)
	opt := mustEval[float32](t, s, nil, Options{Ties: TieOptimistic})
	checkMetrics(t, "optimistic", opt.T2V, []float64{100, 100, 100}, 1, 1)
	idx := mustEval[float32](t, s, nil, Options{Ties: TieByIndex, VideoToText: true})
	checkMetrics(t, "index", idx.T2V, []float64{10, 50, 100}, 5.5, 5.5)
	checkMetrics(t, "index v2t", *idx.V2T, []float64{10, 50, 100}, 5.5, 5.5)
	if pes.T2V.Tied != n {
		t.Errorf("tied = %d, want %d", pes.T2V.Tied, n)
	}
}

func TestMedianRules(t *testing.T) {
	ranks := []int{10, 1, 3, 2}
	np, _ := FromRanks(ranks, []int{1}, MedianNumPy)
	lo, _ := FromRanks(ranks, []int{1}, MedianLower)
	if np.MdR != 2.5 || lo.MdR != 2 || np.MnR != 4 {
		t.Fatalf("numpy MdR %v, lower MdR %v, MnR %v; want 2.5, 2, 4", np.MdR, lo.MdR, np.MnR)
	}
	odd, _ := FromRanks([]int{5, 1, 3}, []int{1}, MedianNumPy)
	if odd.MdR != 3 {
		t.Fatalf("odd MdR %v, want 3", odd.MdR)
	}
	// 427 hits of 1000 print as 42.7 (the papers' one decimal), not 42.699999….
	r := make([]int, 1000)
	for i := range r {
		r[i] = 2
		if i < 427 {
			r[i] = 1
		}
	}
	m, _ := FromRanks(r, []int{1}, MedianNumPy)
	if b, _ := json.Marshal(m); !strings.Contains(string(b), `"R@1":42.7,`) {
		t.Fatalf("JSON %s", b)
	}
}

// PRVR: four captions, two videos; text→video only, SumR over R@1,5,10,100.
func TestPRVR(t *testing.T) {
	s := mat([][]float64{
		{0.9, 0.2}, // GT 0 → 1
		{0.1, 0.3}, // GT 0 → 2
		{0.4, 0.6}, // GT 1 → 1
		{0.8, 0.5}, // GT 1 → 2
	})
	res := mustEval[float64](t, s, []int{0, 0, 1, 1}, Options{Ks: PRVRKs})
	checkMetrics(t, "prvr", res.T2V, []float64{50, 100, 100, 100}, 1.5, 1.5)
	if res.T2V.SumR != 350 || res.V2T != nil {
		t.Fatalf("SumR %v, V2T %v", res.T2V.SumR, res.V2T)
	}
}

// Video→text with several GT captions per video: the best caption's rank, counting
// only non-GT captions above it.
func TestVideoToTextMultiCaption(t *testing.T) {
	s := mat([][]float64{ // rows = captions, columns = videos
		{0.1, 0.9, 0.0}, // caption of video 0
		{0.7, 0.2, 0.0}, // caption of video 0
		{0.8, 0.3, 0.5}, // caption of video 1
		{0.6, 0.1, 0.4}, // caption of video 2
		{0.2, 0.8, 0.3}, // caption of video 2
	})
	gt := []int{0, 0, 1, 2, 2}
	res := mustEval[float64](t, s, gt, Options{VideoToText: true})
	// Video 0: best GT 0.7 (caption 1); non-GT 0.8 above → 2.
	// Video 1: GT 0.3; non-GT 0.9, 0.8 above → 3.
	// Video 2: best GT 0.4 (caption 3); non-GT 0.5 above → 2.
	if !reflect.DeepEqual(res.V2TRanks, []int{2, 3, 2}) {
		t.Fatalf("v2t ranks %v", res.V2TRanks)
	}
	// Video 1 has no caption in this ground truth: an error, as in GRAM (min of []).
	if _, err := Evaluate[float64](s, []int{0, 0, 0, 2, 2}, Options{VideoToText: true}); err == nil ||
		!strings.Contains(err.Error(), "item 1 is the ground truth of no query") {
		t.Fatalf("err = %v", err)
	}
}

func TestBadInput(t *testing.T) {
	s := mat([][]float64{{1, 2, 3}, {4, 5, 6}})
	cases := []struct {
		sc   BlockScorer[float64]
		gt   []int
		opts Options
		want string
	}{
		{s, nil, Options{}, "not square"},
		{s, []int{0}, Options{}, "1 ground-truth entries for 2 queries"},
		{s, []int{0, 3}, Options{}, "query 1: ground-truth item 3 out of range"},
		{s, []int{0, -1}, Options{}, "out of range"},
		{s, []int{0, 1}, Options{Ks: []int{0}}, "K = 0"},
		{s, []int{0, 1}, Options{TopK: 4}, "TopK"},
		{mat([][]float64{{1, math.NaN()}, {0, 1}}), nil, Options{}, "NaN score at query 0, item 1"},
		{mat([][]float64{{1, 0}, {0, math.NaN()}}), nil, Options{}, "NaN score at query 1, item 1"},
	}
	for i, c := range cases {
		if _, err := Evaluate(c.sc, c.gt, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("case %d: err = %v, want %q", i, err, c.want)
		}
	}
}

func TestJSON(t *testing.T) {
	s := mat([][]float64{{0.9, 0.1}, {0.4, 0.3}})
	res := mustEval[float64](t, s, nil, Options{Ks: []int{1, 5}, VideoToText: true})
	b, err := json.Marshal(res.Report)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"t2v":{"R@1":50,"R@5":100,"MdR":1.5,"MnR":1.5,"SumR":150},"v2t":{"R@1":100,"R@5":100,"MdR":1,"MnR":1,"SumR":200}}`
	if compact(string(b)) != want {
		t.Fatalf("JSON\n%s\nwant\n%s", b, want)
	}
	// Read back (Queries and Tied are not in the format): the same JSON again.
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.T2V.SumR != 150 || back.V2T == nil || back.V2T.R(5) != 100 || back.T2V.MdR != 1.5 {
		t.Fatalf("read back %+v", back)
	}
	if b2, _ := json.Marshal(back); string(b2) != string(b) {
		t.Fatalf("round trip\n%s\n%s", b2, b)
	}
	if err := json.Unmarshal([]byte(`{"t2v":{"R@x":1}}`), &back); err == nil {
		t.Fatal("R@x accepted")
	}
}

func compact(s string) string { return strings.ReplaceAll(s, " ", "") }

// refRank is an independent reference: the ground truth's position in a stable
// descending argsort (what np.argsort(-s, kind="stable") gives), adjusted to the
// other tie rules by walking over the equal-score neighbours in sorted order. gts are
// the ground-truth indices (the best of them counts).
func refRank(row []float64, gts []int, tie TieRule) int {
	order := make([]int, len(row))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return row[order[a]] > row[order[b]] })
	isGT := map[int]bool{}
	for _, g := range gts {
		isGT[g] = true
	}
	p := slices.IndexFunc(order, func(i int) bool { return isGT[i] })
	v := row[order[p]]
	switch tie {
	case TieOptimistic:
		for p > 0 && row[order[p-1]] == v {
			p--
		}
	case TiePessimistic:
		for q := p + 1; q < len(order) && row[order[q]] == v; q++ {
			if !isGT[order[q]] {
				p++
			}
		}
	}
	return p + 1
}

// Random matrices with many ties, against the reference, for every tie rule, both
// directions, one and several ground truths, and the top-K lists.
func TestAgainstSortReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 60 {
		nq, ni := 1+rng.IntN(30), 1+rng.IntN(12)
		levels := 1 + rng.IntN(5) // few distinct values: lots of ties
		if trial%3 == 0 {
			levels = 1 << 30
		}
		s := Matrix[float64]{Rows: nq, Cols: ni, Data: make([]float64, nq*ni)}
		for i := range s.Data {
			s.Data[i] = float64(rng.IntN(levels))
		}
		var gt []int
		if trial%2 == 0 || nq != ni {
			// Every item gets at least one query when possible, so v2t is defined.
			gt = make([]int, nq)
			for q := range gt {
				gt[q] = rng.IntN(ni)
				if q < ni {
					gt[q] = q
				}
			}
		}
		full := gt
		if full == nil {
			full = make([]int, nq)
			for i := range full {
				full[i] = i
			}
		}
		v2t := nq >= ni
		k := min(3, ni)
		for _, tie := range []TieRule{TiePessimistic, TieOptimistic, TieByIndex} {
			res, err := Evaluate[float64](s, gt, Options{Ties: tie, VideoToText: v2t, TopK: k})
			if err != nil {
				t.Fatal(err)
			}
			for q := range nq {
				row := s.Data[q*ni : (q+1)*ni]
				if want := refRank(row, []int{full[q]}, tie); res.T2VRanks[q] != want {
					t.Fatalf("trial %d %v: t2v rank of query %d = %d, want %d (row %v, gt %d)", trial, tie, q, res.T2VRanks[q], want, row, full[q])
				}
				order := make([]int, ni)
				for i := range order {
					order[i] = i
				}
				sort.SliceStable(order, func(a, b int) bool { return row[order[a]] > row[order[b]] })
				items, _ := res.Top.Row(q)
				for i := range k {
					if int(items[i]) != order[i] {
						t.Fatalf("trial %d: top-%d of query %d = %v, want prefix of %v", trial, k, q, items, order)
					}
				}
			}
			if !v2t {
				continue
			}
			for c := range ni {
				col := make([]float64, nq)
				var gts []int
				for q := range nq {
					col[q] = s.Data[q*ni+c]
					if full[q] == c {
						gts = append(gts, q)
					}
				}
				if want := refRank(col, gts, tie); res.V2TRanks[c] != want {
					t.Fatalf("trial %d %v: v2t rank of item %d = %d, want %d (column %v, gts %v)", trial, tie, c, res.V2TRanks[c], want, col, gts)
				}
			}
		}
	}
}

// Permuting videos (columns) and relabelling the ground truth accordingly, or permuting
// captions (rows) together with their labels, leaves every metric unchanged.
func TestPermutationInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const nq, ni = 40, 25
	for _, levels := range []int{1 << 30, 4} { // continuous scores, then heavy ties
		s := Matrix[float64]{Rows: nq, Cols: ni, Data: make([]float64, nq*ni)}
		for i := range s.Data {
			s.Data[i] = float64(rng.IntN(levels))
		}
		gt := make([]int, nq)
		for q := range gt {
			gt[q] = q % ni
		}
		colPerm, rowPerm := rng.Perm(ni), rng.Perm(nq) // new column j is old column colPerm[j]
		inv := make([]int, ni)
		for j, c := range colPerm {
			inv[c] = j
		}
		p := Matrix[float64]{Rows: nq, Cols: ni, Data: make([]float64, nq*ni)}
		pgt := make([]int, nq)
		for r := range nq {
			old := rowPerm[r]
			for j := range ni {
				p.Data[r*ni+j] = s.Data[old*ni+colPerm[j]]
			}
			pgt[r] = inv[gt[old]]
		}
		for _, tie := range []TieRule{TiePessimistic, TieOptimistic} {
			opts := Options{Ks: []int{1, 2, 5}, Ties: tie, VideoToText: true}
			a := mustEval[float64](t, s, gt, opts)
			b := mustEval[float64](t, p, pgt, opts)
			if !reflect.DeepEqual(a.Report, b.Report) {
				t.Errorf("levels %d %v: metrics changed under permutation:\n%+v\n%+v", levels, tie, a.Report, b.Report)
			}
		}
	}
}

// blockOnly hides Matrix's in-memory fast path and checks the memory contract: it is
// never asked for a block larger than the configured query × item block.
type blockOnly struct {
	m             Matrix[float32]
	maxQ, maxI    int
	calls, scored int
	t             *testing.T
}

func (b *blockOnly) Shape() (int, int) { return b.m.Shape() }
func (b *blockOnly) ScoreBlock(q0, q1, i0, i1 int, dst []float32) error {
	if q1-q0 > b.maxQ || i1-i0 > b.maxI || len(dst) != (q1-q0)*(i1-i0) {
		b.t.Fatalf("block [%d,%d)×[%d,%d) (dst %d) exceeds %d×%d", q0, q1, i0, i1, len(dst), b.maxQ, b.maxI)
	}
	b.calls++
	b.scored += len(dst)
	return b.m.ScoreBlock(q0, q1, i0, i1, dst)
}

func TestStreamingMatchesInMemory(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const nq, ni = 53, 53
	m := Matrix[float32]{Rows: nq, Cols: ni, Data: make([]float32, nq*ni)}
	for i := range m.Data {
		m.Data[i] = float32(rng.IntN(50)) // some ties
	}
	opts := Options{Ks: []int{1, 5, 10}, VideoToText: true, TopK: 4, Ties: TieByIndex}
	want := mustEval[float32](t, m, nil, opts)
	for _, blk := range [][2]int{{7, 5}, {1, 53}, {53, 1}, {100, 100}} {
		o := opts
		o.QueryBlock, o.ItemBlock = blk[0], blk[1]
		b := &blockOnly{m: m, maxQ: blk[0], maxI: blk[1], t: t}
		got := mustEval[float32](t, b, nil, o)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("blocks %v: streaming result differs from in-memory", blk)
		}
		if b.scored != 2*nq*ni { // text→video pass + video→text pass
			t.Fatalf("blocks %v: scored %d entries, want %d", blk, b.scored, 2*nq*ni)
		}
	}
	// Transposing twice is the identity; once swaps the directions.
	tt := mustEval(t, Transpose(Transpose[float32](m)), nil, opts)
	if !reflect.DeepEqual(tt.Report, want.Report) {
		t.Fatal("double transpose changed the metrics")
	}
	tr := mustEval(t, Transpose[float32](m), nil, Options{Ks: opts.Ks, Ties: TieByIndex, VideoToText: true})
	if !reflect.DeepEqual(tr.T2VRanks, want.V2TRanks) || !reflect.DeepEqual(tr.V2TRanks, want.T2VRanks) {
		t.Fatal("transpose did not swap the directions")
	}
}

func TestTwoStage(t *testing.T) {
	// Expensive scores: a clean diagonal. Cheap scores: a noisy version, so the
	// shortlist sometimes misses the GT.
	rng := rand.New(rand.NewPCG(7, 8))
	const n, k = 30, 5
	exp := Matrix[float64]{Rows: n, Cols: n, Data: make([]float64, n*n)}
	cheap := Matrix[float64]{Rows: n, Cols: n, Data: make([]float64, n*n)}
	for i := range exp.Data {
		exp.Data[i] = rng.Float64()
		cheap.Data[i] = exp.Data[i] + 0.5*rng.Float64()
	}
	for i := range n {
		exp.Data[i*n+i] += 0.5
	}
	for _, tie := range []TieRule{TiePessimistic, TieOptimistic, TieByIndex} {
		res, err := TwoStage[float64](cheap, exp, nil, TwoStageOptions{
			Options: Options{Ties: tie}, Shortlist: k, CoverageTop: 3,
		})
		if err != nil {
			t.Fatal(err)
		}
		// Reference: GRAM's refine_score_matrix: expensive score on the shortlist, a
		// floor below everything elsewhere, then the sort reference.
		for q := range n {
			row := make([]float64, n)
			for i := range row {
				row[i] = -1e9
			}
			items, _ := res.Cheap.Top.Row(q)
			for _, it := range items {
				row[it] = exp.Data[q*n+int(it)]
			}
			if want := refRank(row, []int{q}, tie); res.Ranks[q] != want {
				t.Fatalf("%v: query %d reranked rank %d, want %d", tie, q, res.Ranks[q], want)
			}
		}
		// Coverage reference: the expensive top-3 by sorting.
		var mean, complete float64
		for q := range n {
			row := exp.Data[q*n : (q+1)*n]
			order := make([]int, n)
			for i := range order {
				order[i] = i
			}
			sort.SliceStable(order, func(a, b int) bool { return row[order[a]] > row[order[b]] })
			items, _ := res.Cheap.Top.Row(q)
			hit := 0
			for _, it := range order[:3] {
				if slices.Contains(items, int32(it)) {
					hit++
				}
			}
			mean += float64(hit) / 3 / n
			if hit == 3 {
				complete += 1.0 / n
			}
		}
		if c := res.Coverage; !near(c.Mean, mean) || !near(c.Complete, complete) || c.Queries != n {
			t.Fatalf("coverage %+v, want mean %v complete %v", c, mean, complete)
		}
	}
	// A shortlist of every item is a full rerank: the expensive ranking itself.
	res, err := TwoStage[float64](cheap, exp, nil, TwoStageOptions{Shortlist: n, CoverageTop: 10, CoverageQueries: []int{0, 4}})
	if err != nil {
		t.Fatal(err)
	}
	full := mustEval[float64](t, exp, nil, Options{})
	if !reflect.DeepEqual(res.Ranks, full.T2VRanks) || res.Coverage.Mean != 1 || res.Coverage.Queries != 2 {
		t.Fatalf("full shortlist: ranks %v vs %v, coverage %+v", res.Ranks, full.T2VRanks, res.Coverage)
	}
}

// The vectorised float32 counting loops (GOEXPERIMENT=simd on AVX-512) agree with the
// scalar ones on every length (tails), ties, ±Inf and NaN.
func TestCountingKernelsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0.5}
	for n := range 70 {
		row, best := make([]float32, n), make([]float32, n)
		for i := range row {
			row[i], best[i] = float32(rng.IntN(4))/4, float32(rng.IntN(4))/4
			if rng.IntN(8) == 0 {
				row[i] = specials[rng.IntN(len(specials))]
			}
		}
		for _, v := range []float32{0.5, float32(math.Inf(1)), -1} {
			a, b := countAboveBelow(row, v)
			wa, wb := countAboveBelowScalar(row, v)
			if a != wa || b != wb {
				t.Fatalf("n=%d v=%v: above/below %d/%d, scalar %d/%d", n, v, a, b, wa, wb)
			}
		}
		g, al := make([]int32, n), make([]int32, n)
		wg, wal := make([]int32, n), make([]int32, n)
		for range 3 {
			countColumns(row, best, g, al)
			countColumnsScalar(row, best, wg, wal)
		}
		if !reflect.DeepEqual(g, wg) || !reflect.DeepEqual(al, wal) {
			t.Fatalf("n=%d: columns %v %v, scalar %v %v", n, g, al, wg, wal)
		}
	}
}

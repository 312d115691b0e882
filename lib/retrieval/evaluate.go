package retrieval

import "fmt"

// BlockScorer produces a score matrix (rows = queries, e.g. texts; columns = items,
// e.g. videos; higher = better) one block at a time, so that no one ever has to hold
// the whole matrix. A materialised Matrix, a .npy file read row block by row block, the
// GoMLX scorers of package graphscore (cosine; the volume, Δ-adjusted and
// max-over-clips similarities of later packages) all implement it.
type BlockScorer[F Float] interface {
	// Shape is the number of queries and items.
	Shape() (queries, items int)
	// ScoreBlock writes the scores of queries [q0, q1) against items [i0, i1) into
	// dst, row-major: dst[(q-q0)*(i1-i0) + (i-i0)]. len(dst) == (q1-q0)*(i1-i0).
	ScoreBlock(q0, q1, i0, i1 int, dst []F) error
}

// Options control Evaluate. The zero value evaluates text→video R@1/5/10 with
// pessimistic ties and NumPy's median.
type Options struct {
	Ks     []int      // cut-offs; nil means TextVideoKs
	Ties   TieRule    // where the ground truth lands among equal scores
	Median MedianRule // MdR for an even number of queries

	// VideoToText also ranks the columns: for each video, the best rank of its
	// ground-truth captions among all captions. It costs a second pass over the scorer.
	VideoToText bool

	// TopK keeps the K best items of every query in Result.Top (0: none).
	TopK int

	// QueryBlock is the number of queries scored at a time: memory is about
	// QueryBlock × items scores. 0 picks the largest block within DefaultStripBytes.
	QueryBlock int
	// ItemBlock is the number of items per ScoreBlock call (0: all items in one call).
	ItemBlock int
}

// DefaultStripBytes bounds the query strip (QueryBlock × items scores) that Evaluate
// holds when Options.QueryBlock is 0: 64 MiB, i.e. 838 rows of a 20,000-item float32
// matrix.
const DefaultStripBytes = 64 << 20

// Report is what the papers print: text→video metrics and, when requested,
// video→text. Its JSON is the output of `geoalign metrics --json`.
type Report struct {
	T2V Metrics  `json:"t2v"`
	V2T *Metrics `json:"v2t,omitempty"`
}

// Result is a Report with the per-query ranks behind it.
type Result struct {
	Report
	Items    int   // number of items (columns)
	T2VRanks []int // 1-based rank of the ground-truth item of each query
	V2TRanks []int // 1-based best rank of the ground-truth queries of each item (if VideoToText)
	Top      *Top  // the TopK best items per query (if TopK > 0)
}

// Top holds the K best items of every query, best first; equal scores are listed by
// increasing item index. Row q is Items[q*K : (q+1)*K].
type Top struct {
	K      int
	Items  []int32
	Scores []float64
}

// Row returns the items and scores of query q.
func (t *Top) Row(q int) ([]int32, []float64) {
	return t.Items[q*t.K : (q+1)*t.K], t.Scores[q*t.K : (q+1)*t.K]
}

// Evaluate ranks the ground truth of every query of sc and computes the metrics.
//
// gt[q] is the ground-truth item of query q (PRVR: the video a caption belongs to;
// MSR-VTT with all captions: the caption's video). nil means the diagonal, which needs a
// square matrix: one caption per video in the same order (MSR-VTT 1k-A, GRAM's
// first-caption rule, docs/official-code.md §1.6). With Options.VideoToText each item is also ranked
// against the queries, and an item with several ground-truth queries takes the best of
// their ranks (GRAM's multi-caption video→text).
//
// Scores are consumed in strips of Options.QueryBlock queries, so memory is bounded by
// the strip (plus the optional top-K), whatever the number of queries.
func Evaluate[F Float](sc BlockScorer[F], gt []int, opts Options) (Result, error) {
	nq, ni := sc.Shape()
	gt, err := checkGroundTruth(gt, nq, ni)
	if err != nil {
		return Result{}, err
	}
	if opts.TopK < 0 || opts.TopK > ni {
		return Result{}, fmt.Errorf("retrieval: TopK = %d outside [0, %d items]", opts.TopK, ni)
	}
	ks := opts.Ks
	if ks == nil {
		ks = TextVideoKs
	}
	if err := checkKs(ks); err != nil {
		return Result{}, err
	}
	st := newStrips(sc, opts)

	// Pass 1, text→video: each strip of rows is ranked row by row.
	ranks := make([]int, nq)
	gtScore := make([]F, nq)
	tiedRow := make([]bool, nq)
	var top *Top
	if opts.TopK > 0 {
		top = &Top{K: opts.TopK, Items: make([]int32, nq*opts.TopK), Scores: make([]float64, nq*opts.TopK)}
	}
	for q0 := 0; q0 < nq; q0 += st.rows {
		q1 := min(q0+st.rows, nq)
		strip, err := st.strip(q0, q1)
		if err != nil {
			return Result{}, err
		}
		nanErr := make(chan error, 1) // the first NaN found by any goroutine
		parallelRanges(q1-q0, (q1-q0)*ni, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				q := q0 + i
				row := strip[i*ni : (i+1)*ni]
				greater, equal, before, nanAt := rowCounts(row, gt[q])
				if nanAt >= 0 {
					select {
					case nanErr <- fmt.Errorf("retrieval: NaN score at query %d, item %d", q, nanAt):
					default:
					}
					return
				}
				ranks[q] = opts.Ties.rank(greater, equal, before)
				tiedRow[q] = equal > 0
				gtScore[q] = row[gt[q]]
				if top != nil {
					topK(row, top.Items[q*top.K:(q+1)*top.K], top.Scores[q*top.K:(q+1)*top.K])
				}
			}
		})
		select {
		case err := <-nanErr:
			return Result{}, err
		default:
		}
	}
	res := Result{Items: ni, T2VRanks: ranks, Top: top}
	if res.T2V, err = FromRanks(ranks, ks, opts.Median); err != nil {
		return Result{}, err
	}
	for _, t := range tiedRow {
		if t {
			res.T2V.Tied++
		}
	}
	if !opts.VideoToText {
		return res, nil
	}

	// Pass 2, video→text: the same scores again, counted per column against the
	// ground-truth scores collected in pass 1.
	cs := newColumnState[F](ni, opts.Ties)
	for q := range nq {
		cs.setGT(q, gt[q], gtScore[q])
	}
	for c := range ni {
		if !cs.hasGT[c] {
			return Result{}, fmt.Errorf("retrieval: video→text: item %d is the ground truth of no query", c)
		}
	}
	for q0 := 0; q0 < nq; q0 += st.rows {
		q1 := min(q0+st.rows, nq)
		if err := st.blocks(q0, q1, func(block []F, i0, i1 int) {
			cs.addRows(block, q0, q1-q0, i0, i1-i0, gt)
		}); err != nil {
			return Result{}, err
		}
	}
	v2tRanks, tied, err := cs.ranks(opts.Ties)
	if err != nil {
		return Result{}, err
	}
	v2t, err := FromRanks(v2tRanks, ks, opts.Median)
	if err != nil {
		return Result{}, err
	}
	v2t.Tied = tied
	res.V2T, res.V2TRanks = &v2t, v2tRanks
	return res, nil
}

// NotSquareError: the diagonal ground truth (gt == nil) needs as many queries as items.
type NotSquareError struct{ Queries, Items int }

func (e *NotSquareError) Error() string {
	return fmt.Sprintf("%d queries × %d items is not square: give the ground-truth item of each query", e.Queries, e.Items)
}

// checkGroundTruth returns gt, or the diagonal if gt is nil, after range checks.
func checkGroundTruth(gt []int, nq, ni int) ([]int, error) {
	if nq == 0 || ni == 0 {
		return nil, fmt.Errorf("retrieval: empty score matrix (%d queries × %d items)", nq, ni)
	}
	if gt == nil {
		if nq != ni {
			return nil, &NotSquareError{nq, ni}
		}
		gt = make([]int, nq)
		for i := range gt {
			gt[i] = i
		}
		return gt, nil
	}
	if len(gt) != nq {
		return nil, &GroundTruthError{fmt.Sprintf("%d ground-truth entries for %d queries", len(gt), nq)}
	}
	for q, g := range gt {
		if g < 0 || g >= ni {
			return nil, &GroundTruthError{fmt.Sprintf("query %d: ground-truth item %d out of range [0, %d)", q, g, ni)}
		}
	}
	return gt, nil
}

// rowViewer is implemented by scorers whose rows are already in memory (Matrix): the
// strips are then views, not copies.
type rowViewer[F Float] interface {
	rows(q0, q1 int) []F
}

// strips cuts the query range into strips and fetches them from the scorer.
type strips[F Float] struct {
	sc         BlockScorer[F]
	view       rowViewer[F]
	rows, cols int // rows per strip, items
	itemBlock  int
	buf, tmp   []F
}

func newStrips[F Float](sc BlockScorer[F], opts Options) *strips[F] {
	nq, ni := sc.Shape()
	st := &strips[F]{sc: sc, cols: ni, rows: opts.QueryBlock, itemBlock: opts.ItemBlock}
	st.view, _ = sc.(rowViewer[F])
	if st.rows <= 0 {
		var z F
		st.rows = max(1, DefaultStripBytes/(ni*sizeOf(z)))
	}
	st.rows = min(st.rows, nq)
	if st.itemBlock <= 0 || st.itemBlock > ni {
		st.itemBlock = ni
	}
	return st
}

func sizeOf[F Float](z F) int {
	if _, ok := any(z).(float32); ok {
		return 4
	}
	return 8
}

// strip returns the scores of queries [q0, q1) against all items, row-major.
func (st *strips[F]) strip(q0, q1 int) ([]F, error) {
	if st.view != nil {
		return st.view.rows(q0, q1), nil
	}
	n := (q1 - q0) * st.cols
	if st.buf == nil {
		st.buf = make([]F, st.rows*st.cols)
	}
	out := st.buf[:n]
	if st.itemBlock == st.cols {
		return out, st.score(q0, q1, 0, st.cols, out)
	}
	err := st.blocks(q0, q1, func(block []F, i0, i1 int) {
		w := i1 - i0
		for r := 0; r < q1-q0; r++ {
			copy(out[r*st.cols+i0:r*st.cols+i1], block[r*w:(r+1)*w])
		}
	})
	return out, err
}

// blocks calls fn with the score blocks of queries [q0, q1) × consecutive item ranges.
func (st *strips[F]) blocks(q0, q1 int, fn func(block []F, i0, i1 int)) error {
	if st.view != nil {
		fn(st.view.rows(q0, q1), 0, st.cols)
		return nil
	}
	if st.tmp == nil {
		if st.itemBlock == st.cols && st.buf != nil {
			st.tmp = st.buf
		} else {
			st.tmp = make([]F, st.rows*st.itemBlock)
		}
	}
	for i0 := 0; i0 < st.cols; i0 += st.itemBlock {
		i1 := min(i0+st.itemBlock, st.cols)
		block := st.tmp[:(q1-q0)*(i1-i0)]
		if err := st.score(q0, q1, i0, i1, block); err != nil {
			return err
		}
		fn(block, i0, i1)
	}
	return nil
}

func (st *strips[F]) score(q0, q1, i0, i1 int, dst []F) error {
	if err := st.sc.ScoreBlock(q0, q1, i0, i1, dst); err != nil {
		return fmt.Errorf("scoring queries [%d, %d) × items [%d, %d): %w", q0, q1, i0, i1, err)
	}
	return nil
}

// topK writes the len(items) best entries of row into items/scores, best first, equal
// scores by increasing index. It keeps a min-heap of the best so far (root = the worst
// kept), so a row costs O(n) comparisons plus O(K log K) per improvement.
func topK[F Float](row []F, items []int32, scores []float64) {
	k := len(items)
	h := heap[F]{idx: items[:0], val: make([]F, 0, k)}
	for j, x := range row {
		if len(h.idx) < k {
			h.push(int32(j), x)
		} else if x > h.val[0] { // an equal score has a larger index: never better
			h.idx[0], h.val[0] = int32(j), x
			h.down(0)
		}
	}
	// Pop worst-first into the tail.
	for n := k - 1; n >= 0; n-- {
		i, v := h.idx[0], h.val[0]
		last := len(h.idx) - 1
		h.idx[0], h.val[0] = h.idx[last], h.val[last]
		h.idx, h.val = h.idx[:last], h.val[:last]
		h.down(0)
		items[n], scores[n] = i, float64(v)
	}
}

// heap is a binary min-heap ordered by "worse": lower score, or equal score and larger
// index.
type heap[F Float] struct {
	idx []int32
	val []F
}

func (h *heap[F]) worse(a, b int) bool {
	return h.val[a] < h.val[b] || (h.val[a] == h.val[b] && h.idx[a] > h.idx[b])
}

func (h *heap[F]) swap(a, b int) {
	h.idx[a], h.idx[b] = h.idx[b], h.idx[a]
	h.val[a], h.val[b] = h.val[b], h.val[a]
}

func (h *heap[F]) push(i int32, v F) {
	h.idx, h.val = append(h.idx, i), append(h.val, v)
	for c := len(h.idx) - 1; c > 0; {
		p := (c - 1) / 2
		if !h.worse(c, p) {
			break
		}
		h.swap(c, p)
		c = p
	}
}

func (h *heap[F]) down(p int) {
	n := len(h.idx)
	for {
		c := 2*p + 1
		if c >= n {
			return
		}
		if c+1 < n && h.worse(c+1, c) {
			c++
		}
		if !h.worse(c, p) {
			return
		}
		h.swap(c, p)
		p = c
	}
}

// Matrix is a materialised row-major score matrix; it implements BlockScorer (its
// strips are views, never copies) and CandidateScorer.
type Matrix[F Float] struct {
	Rows, Cols int
	Data       []F // len Rows*Cols, Data[r*Cols+c]
}

// NewMatrix wraps data (rows × cols, row-major) after checking its length.
func NewMatrix[F Float](rows, cols int, data []F) (Matrix[F], error) {
	if rows < 0 || cols < 0 || len(data) != rows*cols {
		return Matrix[F]{}, fmt.Errorf("retrieval: %d scores for a %d × %d matrix", len(data), rows, cols)
	}
	return Matrix[F]{Rows: rows, Cols: cols, Data: data}, nil
}

// Shape implements BlockScorer.
func (m Matrix[F]) Shape() (int, int) { return m.Rows, m.Cols }

// ScoreBlock implements BlockScorer by copying.
func (m Matrix[F]) ScoreBlock(q0, q1, i0, i1 int, dst []F) error {
	w := i1 - i0
	for q := q0; q < q1; q++ {
		copy(dst[(q-q0)*w:(q-q0+1)*w], m.Data[q*m.Cols+i0:q*m.Cols+i1])
	}
	return nil
}

func (m Matrix[F]) rows(q0, q1 int) []F { return m.Data[q0*m.Cols : q1*m.Cols] }

// ScoreCandidates implements CandidateScorer by lookup.
func (m Matrix[F]) ScoreCandidates(q int, items []int32, dst []F) error {
	row := m.Data[q*m.Cols : (q+1)*m.Cols]
	for i, it := range items {
		dst[i] = row[it]
	}
	return nil
}

// Transpose returns the scorer of the transposed matrix (items become queries), for a
// video→text two-stage evaluation or a text→video one on video-major scores.
func Transpose[F Float](sc BlockScorer[F]) BlockScorer[F] { return transposed[F]{sc} }

type transposed[F Float] struct{ sc BlockScorer[F] }

func (t transposed[F]) Shape() (int, int) {
	q, i := t.sc.Shape()
	return i, q
}

func (t transposed[F]) ScoreBlock(q0, q1, i0, i1 int, dst []F) error {
	tmp := make([]F, len(dst))
	if err := t.sc.ScoreBlock(i0, i1, q0, q1, tmp); err != nil {
		return err
	}
	nq, ni := q1-q0, i1-i0
	for i := range ni {
		for q := range nq {
			dst[q*ni+i] = tmp[i*nq+q]
		}
	}
	return nil
}

package retrieval

import (
	"fmt"
	"runtime"
	"sync"
)

// Ranks are computed by counting, not sorting: the rank of the ground truth in a row
// needs only how many items score higher (and, for the tie rules, equal), which is one
// O(items) pass with no allocation, against O(items·log items) for the argsort of the
// official scripts.

// rowCounts compares every item of row with the ground truth at column g and returns
// how many score higher, how many (other than g) score the same, and how many of those
// come before g. NaN anywhere is reported as nanAt ≥ 0 (its column), else nanAt = -1.
func rowCounts[F Float](row []F, g int) (greater, equal, equalBefore, nanAt int) {
	v := row[g]
	if v != v {
		return 0, 0, 0, g
	}
	greater, less := countAboveBelow(row, v)
	if greater+less == len(row)-1 { // only g itself is neither above nor below
		return greater, 0, 0, -1
	}
	// Ties or NaN: a second pass over the row, rare enough not to matter.
	for j, x := range row {
		switch {
		case x != x:
			return 0, 0, 0, j
		case x == v && j != g:
			equal++
			if j < g {
				equalBefore++
			}
		}
	}
	return greater, equal, equalBefore, -1
}

// countAboveBelow counts the entries of row above and below v (NaN is neither).
func countAboveBelow[F Float](row []F, v F) (above, below int) {
	if r, ok := any(row).([]float32); ok {
		if a, b, ok := countAboveBelowF32(r, any(v).(float32)); ok {
			return a, b
		}
	}
	return countAboveBelowScalar(row, v)
}

// countAboveBelowScalar is branch-free and unrolled four ways: with data-dependent
// branches the loop runs ~8× slower (random scores mispredict), and four independent
// accumulators let the CPU overlap them.
func countAboveBelowScalar[F Float](row []F, v F) (above, below int) {
	var a0, a1, a2, a3, b0, b1, b2, b3 int
	i := 0
	for ; i+4 <= len(row); i += 4 {
		r := row[i : i+4 : i+4]
		a0 += b2i(r[0] > v)
		a1 += b2i(r[1] > v)
		a2 += b2i(r[2] > v)
		a3 += b2i(r[3] > v)
		b0 += b2i(r[0] < v)
		b1 += b2i(r[1] < v)
		b2 += b2i(r[2] < v)
		b3 += b2i(r[3] < v)
	}
	for ; i < len(row); i++ {
		a0 += b2i(row[i] > v)
		b0 += b2i(row[i] < v)
	}
	return a0 + a1 + a2 + a3, b0 + b1 + b2 + b3
}

// b2i compiles to a SETcc, not a branch.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func b2i32(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// columnState ranks the ground truth of every column (video→text) while rows stream
// past: the ground-truth score of each column is known beforehand (it was seen in the
// text→video pass), so each column needs only counters, never its scores.
//
// With several ground-truth rows per column (several captions per video) the rank is
// the best one's, as GRAM's video→text takes the minimum rank over the GT captions
// (docs/official-code.md §1.6): best is the highest GT score, bestRow the smallest GT row holding it (the
// one a stable sort lists first), and only non-GT rows are counted.
type columnState[F Float] struct {
	best    []F
	bestRow []int32
	// greater and atLeast count the non-GT rows scoring > and ≥ the column's best GT
	// score; equalBefore (TieByIndex only) the equal ones with a smaller row index.
	greater, atLeast, equalBefore []int32
	hasGT                         []bool
	byIndex                       bool
}

func newColumnState[F Float](cols int, tie TieRule) *columnState[F] {
	s := &columnState[F]{
		best: make([]F, cols), bestRow: make([]int32, cols),
		greater: make([]int32, cols), atLeast: make([]int32, cols),
		hasGT: make([]bool, cols), byIndex: tie == TieByIndex,
	}
	if s.byIndex {
		s.equalBefore = make([]int32, cols)
	}
	return s
}

// setGT records that row r is a ground truth of column c with score v.
func (s *columnState[F]) setGT(r, c int, v F) {
	if !s.hasGT[c] || v > s.best[c] {
		s.best[c], s.bestRow[c], s.hasGT[c] = v, int32(r), true
	}
	// Rows arrive in increasing order, so an equal score keeps the smaller row.
}

// addRows counts rows [r0, r0+n) of block (row-major, n × width, covering columns
// [c0, c0+width)) against the best GT score of each column; gt[r] is the ground-truth
// column of row r. Columns are split among goroutines; NaN was ruled out by the
// text→video pass over the same scores.
func (s *columnState[F]) addRows(block []F, r0, n, c0, width int, gt []int) {
	parallelRanges(width, n*width, func(lo, hi int) {
		s.addRowsRange(block, r0, n, c0, width, gt, lo, hi)
	})
}

// addRowsRange is addRows on the block's columns [lo, hi). (A method, not the closure
// body: the compiler does not inline the counting helpers inside generic closures,
// which made the loop 5× slower.)
func (s *columnState[F]) addRowsRange(block []F, r0, n, c0, width int, gt []int, lo, hi int) {
	best := s.best[c0+lo : c0+hi]
	greater, atLeast := s.greater[c0+lo:c0+hi], s.atLeast[c0+lo:c0+hi]
	for i := 0; i < n; i++ {
		r := r0 + i
		row := block[i*width+lo : i*width+hi]
		countColumns(row, best, greater, atLeast)
		if s.byIndex {
			bestRow, before := s.bestRow[c0+lo:c0+hi], s.equalBefore[c0+lo:c0+hi]
			for j, x := range row {
				if x == best[j] && int32(r) < bestRow[j] {
					before[j]++
				}
			}
		}
		// Undo the comparison of row r with its own column: a GT row is not a
		// competitor. Its score is ≤ the column's best, so only atLeast can have moved
		// (and not equalBefore: bestRow is the first GT row with that score).
		if g := gt[r] - c0; g >= lo && g < hi && row[g-lo] == best[g-lo] {
			atLeast[g-lo]--
		}
	}
}

// countColumns adds, column by column, whether row beats (greater) or reaches
// (atLeast) the column's best ground-truth score.
func countColumns[F Float](row, best []F, greater, atLeast []int32) {
	if r, ok := any(row).([]float32); ok && countColumnsF32(r, any(best).([]float32), greater, atLeast) {
		return
	}
	countColumnsScalar(row, best, greater, atLeast)
}

// countColumnsScalar is branch-free.
func countColumnsScalar[F Float](row, best []F, greater, atLeast []int32) {
	n := len(row)
	best, greater, atLeast = best[:n], greater[:n], atLeast[:n]
	for j := 0; j < n; j++ {
		x, b := row[j], best[j]
		greater[j] += b2i32(x > b)
		atLeast[j] += b2i32(x >= b)
	}
}

// ranks returns the 1-based rank of every column and how many columns had ties.
func (s *columnState[F]) ranks(tie TieRule) (ranks []int, tied int, err error) {
	ranks = make([]int, len(s.best))
	for c := range ranks {
		if !s.hasGT[c] {
			return nil, 0, fmt.Errorf("retrieval: video→text: video %d has no ground-truth caption", c)
		}
		g, e := int(s.greater[c]), int(s.atLeast[c]-s.greater[c])
		if e > 0 {
			tied++
		}
		before := 0
		if s.byIndex {
			before = int(s.equalBefore[c])
		}
		ranks[c] = tie.rank(g, e, before)
	}
	return ranks, tied, nil
}

// parallelRanges splits [0, n) into one contiguous range per available core and runs
// fn on each; work (≈ element operations) below parallelMinWork runs inline.
func parallelRanges(n, work int, fn func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	if workers > n {
		workers = n
	}
	if workers <= 1 || work < parallelMinWork {
		if n > 0 {
			fn(0, n)
		}
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := n*w/workers, n*(w+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}

// parallelMinWork is the amount of work (element comparisons) below which starting
// goroutines costs more than it saves (~10 µs of comparisons).
const parallelMinWork = 1 << 15

package graphscore

import (
	"fmt"
	"sync"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/geoalign/geoalign/lib/loss"
)

// Func scores a block of queries against a block of items. Each input is one of the
// query tensors (then the item tensors) cut to the block's rows: queries[k] has shape
// [bq, …], items[k] [bi, …]. It returns [bq, bi], higher = better.
type Func func(queries, items []*graph.Node) *graph.Node

// Scorer evaluates a Func block by block. It implements retrieval.BlockScorer[float32]
// and retrieval.CandidateScorer[float32]. It is not safe for concurrent use.
type Scorer struct {
	exec          *graph.Exec
	queries       []hostRows
	items         []hostRows
	nq, ni        int
	mu            sync.Mutex
	itemBlocks    map[[2]int][]*tensors.Tensor // item blocks are reused by every query block
	maxItemBlocks int
}

// hostRows is a float32 tensor [n, …] kept as flat host data.
type hostRows struct {
	data []float32
	dims []int // dims[0] = n
	row  int   // elements per row
}

func (h hostRows) slice(r0, r1 int) *tensors.Tensor {
	dims := append([]int{r1 - r0}, h.dims[1:]...)
	return tensors.FromFlatDataAndDimensions(h.data[r0*h.row:r1*h.row], dims...)
}

func (h hostRows) gather(rows []int32) *tensors.Tensor {
	flat := make([]float32, 0, len(rows)*h.row)
	for _, r := range rows {
		flat = append(flat, h.data[int(r)*h.row:int(r+1)*h.row]...)
	}
	dims := append([]int{len(rows)}, h.dims[1:]...)
	return tensors.FromFlatDataAndDimensions(flat, dims...)
}

func toHost(t *tensors.Tensor, what string, k int) (hostRows, error) {
	s := t.Shape()
	if s.Rank() < 1 {
		return hostRows{}, fmt.Errorf("graphscore: %s tensor %d is a scalar, want [n, …]", what, k)
	}
	data, err := tensors.CopyFlatData[float32](t)
	if err != nil {
		return hostRows{}, fmt.Errorf("graphscore: %s tensor %d (%s): want float32: %w", what, k, s, err)
	}
	for i, v := range data {
		if v != v {
			return hostRows{}, fmt.Errorf("graphscore: %s tensor %d has NaN at flat index %d", what, k, i)
		}
	}
	h := hostRows{data: data, dims: s.Dimensions, row: 1}
	for _, d := range s.Dimensions[1:] {
		h.row *= d
	}
	return h, nil
}

// toHostRows is toHost of every tensor of one side (what: "query" or "item"), which must agree on
// their number of rows n.
func toHostRows(ts []*tensors.Tensor, what string) (hs []hostRows, n int, err error) {
	for k, t := range ts {
		h, err := toHost(t, what, k)
		if err != nil {
			return nil, 0, err
		}
		if k > 0 && h.dims[0] != n {
			return nil, 0, fmt.Errorf("graphscore: %s tensor %d has %d rows, tensor 0 has %d", what, k, h.dims[0], n)
		}
		n = h.dims[0]
		hs = append(hs, h)
	}
	return hs, n, nil
}

// New prepares fn over the given query and item tensors (float32, all query tensors with
// the same leading dimension, likewise items).
func New(backend compute.Backend, fn Func, queries, items []*tensors.Tensor) (*Scorer, error) {
	if len(queries) == 0 || len(items) == 0 {
		return nil, fmt.Errorf("graphscore: need at least one query and one item tensor")
	}
	s := &Scorer{itemBlocks: map[[2]int][]*tensors.Tensor{}, maxItemBlocks: maxCachedItemBlocks}
	var err error
	if s.queries, s.nq, err = toHostRows(queries, "query"); err != nil {
		return nil, err
	}
	if s.items, s.ni, err = toHostRows(items, "item"); err != nil {
		return nil, err
	}
	nqt := len(queries)
	exec, err := graph.NewExec(backend, func(inputs []*graph.Node) *graph.Node {
		return fn(inputs[:nqt], inputs[nqt:])
	})
	if err != nil {
		return nil, err
	}
	s.exec = exec.SetMaxCache(maxCompiledShapes)
	return s, nil
}

// maxCachedItemBlocks bounds the item blocks kept ready between calls: the blocks of one
// blocking of the items (Evaluate uses the same item ranges for every query block).
const maxCachedItemBlocks = 64

// maxCompiledShapes bounds the compiled graphs kept: full and last query block × full
// and last item block, plus the shapes of ScoreCandidates.
const maxCompiledShapes = 16

// Cosine is the scorer of cosine similarity between query embeddings [nq, d] and item
// embeddings [ni, d], with lib/loss.CosineSimilarityMatrix (F.normalize floor, as the
// official codes).
func Cosine(backend compute.Backend, queries, items *tensors.Tensor) (*Scorer, error) {
	return New(backend, func(q, it []*graph.Node) *graph.Node {
		return loss.CosineSimilarityMatrix(q[0], it[0])
	}, []*tensors.Tensor{queries}, []*tensors.Tensor{items})
}

// Shape implements retrieval.BlockScorer.
func (s *Scorer) Shape() (int, int) { return s.nq, s.ni }

// ScoreBlock implements retrieval.BlockScorer.
func (s *Scorer) ScoreBlock(q0, q1, i0, i1 int, dst []float32) error {
	if q0 < 0 || q1 > s.nq || q0 >= q1 || i0 < 0 || i1 > s.ni || i0 >= i1 || len(dst) != (q1-q0)*(i1-i0) {
		return fmt.Errorf("graphscore: block [%d,%d)×[%d,%d) with %d outputs does not fit %d×%d", q0, q1, i0, i1, len(dst), s.nq, s.ni)
	}
	args := make([]any, 0, len(s.queries)+len(s.items))
	var fresh []*tensors.Tensor
	for _, h := range s.queries {
		t := h.slice(q0, q1)
		fresh = append(fresh, t)
		args = append(args, t)
	}
	for _, t := range s.itemBlock(i0, i1) {
		args = append(args, t)
	}
	defer finalize(fresh)
	return s.run(args, q1-q0, i1-i0, dst)
}

// ScoreCandidates implements retrieval.CandidateScorer: query q against the listed items.
func (s *Scorer) ScoreCandidates(q int, items []int32, dst []float32) error {
	if q < 0 || q >= s.nq || len(dst) != len(items) || len(items) == 0 {
		return fmt.Errorf("graphscore: query %d with %d candidates, %d outputs", q, len(items), len(dst))
	}
	args := make([]any, 0, len(s.queries)+len(s.items))
	var fresh []*tensors.Tensor
	for _, h := range s.queries {
		fresh = append(fresh, h.slice(q, q+1))
	}
	for _, h := range s.items {
		for _, it := range items {
			if it < 0 || int(it) >= s.ni {
				return fmt.Errorf("graphscore: candidate item %d out of range [0, %d)", it, s.ni)
			}
		}
		fresh = append(fresh, h.gather(items))
	}
	for _, t := range fresh {
		args = append(args, t)
	}
	defer finalize(fresh)
	return s.run(args, 1, len(items), dst)
}

func (s *Scorer) itemBlock(i0, i1 int) []*tensors.Tensor {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := [2]int{i0, i1}
	if ts, ok := s.itemBlocks[key]; ok {
		return ts
	}
	if len(s.itemBlocks) >= s.maxItemBlocks {
		for k, ts := range s.itemBlocks {
			finalize(ts)
			delete(s.itemBlocks, k)
		}
	}
	var ts []*tensors.Tensor
	for _, h := range s.items {
		ts = append(ts, h.slice(i0, i1))
	}
	s.itemBlocks[key] = ts
	return ts
}

func (s *Scorer) run(args []any, bq, bi int, dst []float32) error {
	out, err := s.exec.Call(args...)
	if err != nil {
		return err
	}
	defer finalize(out)
	if got := out[0].Shape(); got.Rank() != 2 || got.Dimensions[0] != bq || got.Dimensions[1] != bi {
		return fmt.Errorf("graphscore: score function returned %s for a %d×%d block", got, bq, bi)
	}
	return tensors.ConstFlatData(out[0], func(flat []float32) { copy(dst, flat) })
}

// Close frees the compiled graphs and cached blocks.
func (s *Scorer) Close() {
	s.exec.Finalize()
	for k, ts := range s.itemBlocks {
		finalize(ts)
		delete(s.itemBlocks, k)
	}
}

func finalize(ts []*tensors.Tensor) {
	for _, t := range ts {
		_ = t.FinalizeAll()
	}
}

package gram

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/geoalign/geoalign/lib/geom"
	"github.com/geoalign/geoalign/lib/loss"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// Embeddings are a model's contra-head outputs on a split, before L2 normalisation: Heads[m][i] is
// sample i of modality m (anchor first), Dim values each.
type Embeddings struct {
	N, Dim     int
	Heads      [][][]float32
	Labels     []int
	Relevant   Relevance // nil: instance-level (the split's)
	Attributes map[string][]float64
}

// NumModalities is the number of modalities embedded (anchor included).
func (e *Embeddings) NumModalities() int { return len(e.Heads) }

// Unit returns the L2-normalised embeddings of modality m, in float64 (host-side statistics).
func (e *Embeddings) Unit(m int) [][]float64 {
	out := make([][]float64, e.N)
	for i, row := range e.Heads[m] {
		u := make([]float64, len(row))
		s := 0.0
		for j, x := range row {
			u[j] = float64(x)
			s += u[j] * u[j]
		}
		if s > 0 {
			inv := 1 / math.Sqrt(s)
			for j := range u {
				u[j] *= inv
			}
		}
		out[i] = u
	}
	return out
}

// SelectModalities returns the embeddings of the given modalities only (the first is the anchor).
func (e *Embeddings) SelectModalities(modalities []int) *Embeddings {
	out := *e
	out.Heads = nil
	for _, m := range modalities {
		out.Heads = append(out.Heads, e.Heads[m])
	}
	return &out
}

// ScoreKind names how an anchor is scored against a data tuple.
type ScoreKind int

const (
	// VolumeScore is −V of Score.Geometry (GRAM's retrieval score, docs/official-code.md §1.6: no temperature).
	VolumeScore ScoreKind = iota
	// MeanCosineScore is the mean over the data modalities of cos(anchor, m) (pairwise baseline).
	MeanCosineScore
	// CosineScore is cos(anchor, Score.Modality): a single data modality.
	CosineScore
)

// Score is a retrieval score: Kind plus, for VolumeScore, the geometry (α for Hybrid; RawLift as in
// Config) and, for CosineScore, the data modality.
type Score struct {
	Kind     ScoreKind
	Geometry Geometry
	Alpha    float64
	RawLift  bool
	Modality int
}

func (s Score) String() string {
	switch s.Kind {
	case VolumeScore:
		if s.Geometry == Hybrid {
			return fmt.Sprintf("−V_α (α = %.3f)", s.Alpha)
		}
		return fmt.Sprintf("−V_%s", map[Geometry]string{Euclidean: "euc", Hyperbolic: "hyp"}[s.Geometry])
	case MeanCosineScore:
		return "mean pairwise cosine"
	case CosineScore:
		return fmt.Sprintf("cos(anchor, modality %d)", s.Modality)
	}
	return fmt.Sprintf("Score(%d)", int(s.Kind))
}

// scoreGraph returns the [N, N] score (higher = better) of the anchor rows against the data tuples.
func scoreGraph(s Score, alpha *graph.Node, heads []*graph.Node) *graph.Node {
	anchor, others := heads[0], heads[1:]
	switch s.Kind {
	case VolumeScore:
		return graph.Neg(VolumeFunc(s.Geometry, s.RawLift, alpha)(anchor, others...))
	case MeanCosineScore:
		return MeanCosine(anchor, others...)
	case CosineScore:
		if s.Modality < 1 || s.Modality >= len(heads) {
			panic(fmt.Sprintf("gram: cosine score of modality %d, have modalities 1..%d", s.Modality, len(heads)-1))
		}
		return loss.CosineSimilarityMatrix(anchor, heads[s.Modality])
	}
	panic(fmt.Sprintf("gram: unknown score kind %d", s.Kind))
}

// scoreExecKey identifies a compiled score graph (α is an input, so it is not part of the key;
// GoMLX caches one executable per input shape).
type scoreExecKey struct {
	backend    compute.Backend
	kind       ScoreKind
	geometry   Geometry
	rawLift    bool
	modality   int
	modalities int
}

var scoreExecs sync.Map // scoreExecKey → *graph.Exec

// ScoreMatrix computes the N×N score matrix of the embeddings, row i = anchor i, column j = data
// tuple j, higher = better, row-major float32.
func ScoreMatrix(backend compute.Backend, emb *Embeddings, s Score) ([]float32, error) {
	if emb.NumModalities() < 2 {
		return nil, fmt.Errorf("gram: need ≥ 2 embedded modalities, got %d", emb.NumModalities())
	}
	key := scoreExecKey{backend, s.Kind, s.Geometry, s.RawLift, s.Modality, emb.NumModalities()}
	e, ok := scoreExecs.Load(key)
	if !ok {
		exec, err := graph.NewExec(backend, func(inputs []*graph.Node) *graph.Node {
			return scoreGraph(s, inputs[0], inputs[1:])
		})
		if err != nil {
			return nil, err
		}
		e, _ = scoreExecs.LoadOrStore(key, exec)
	}
	args := []any{float32(s.Alpha)}
	for _, h := range emb.Heads {
		args = append(args, h)
	}
	outs, err := e.(*graph.Exec).Exec(args...)
	if err != nil {
		return nil, err
	}
	defer outs[0].FinalizeAll()
	return tensors.MustCopyFlatData[float32](outs[0]), nil
}

// Evaluation is a retrieval evaluation on a split with the GRAM protocol (docs/official-code.md §1.6): one anchor per
// data tuple, square score matrix, both directions, R@1/5/10, MdR (torch.median's lower median) and
// MnR. T2V ranks the data tuples for each anchor (text → video+audio), V2T the anchors for each tuple.
//
// With a Relevance (ClassLevel), a query's hit is its best-scoring relevant item and the other
// relevant items are not counted against it: each query is ranked by its first relevant item
// ("R@K = some relevant item in the top K").
type Evaluation struct {
	Score      string
	ClassLevel bool
	T2V, V2T   retrieval.Metrics
}

// Report is the evaluation as lib/retrieval reports it (both directions).
func (e Evaluation) Report() retrieval.Report {
	v2t := e.V2T
	return retrieval.Report{T2V: e.T2V, V2T: &v2t}
}

// Evaluate scores the embeddings with s and ranks both directions through lib/retrieval, with the
// embeddings' relevance (instance-level when nil).
func Evaluate(backend compute.Backend, emb *Embeddings, s Score) (Evaluation, error) {
	scores, err := ScoreMatrix(backend, emb, s)
	if err != nil {
		return Evaluation{}, err
	}
	ev, err := EvaluateScores(scores, emb.N, emb.Relevant)
	ev.Score = s.String()
	return ev, err
}

// EvaluateScores ranks an N×N score matrix (row = anchor, column = data tuple, higher = better)
// in both directions; rel nil is instance-level relevance (the diagonal).
func EvaluateScores(scores []float32, n int, rel Relevance) (Evaluation, error) {
	ev := Evaluation{ClassLevel: rel != nil}
	opts := retrieval.Options{Median: retrieval.MedianLower}
	if rel == nil {
		m, err := retrieval.NewMatrix(n, n, scores)
		if err != nil {
			return ev, err
		}
		opts.VideoToText = true
		res, err := retrieval.Evaluate[float32](m, nil, opts)
		if err != nil {
			return ev, err
		}
		ev.T2V, ev.V2T = res.T2V, *res.V2T
		return ev, nil
	}
	for dir := 0; dir < 2; dir++ {
		rows := make([]float32, n*n)
		relevant := rel // T2V: row = anchor, item = tuple
		if dir == 0 {
			copy(rows, scores)
		} else { // V2T: row = tuple, item = anchor
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					rows[j*n+i] = scores[i*n+j]
				}
			}
			relevant = func(tuple, anchor int) bool { return rel(anchor, tuple) }
		}
		gt, err := firstRelevant(rows, n, relevant)
		if err != nil {
			return ev, err
		}
		m, err := retrieval.NewMatrix(n, n, rows)
		if err != nil {
			return ev, err
		}
		res, err := retrieval.Evaluate[float32](m, gt, opts)
		if err != nil {
			return ev, err
		}
		if dir == 0 {
			ev.T2V = res.T2V
		} else {
			ev.V2T = res.T2V
		}
	}
	return ev, nil
}

// firstRelevant turns a relevance into one ground truth per row for lib/retrieval: in each row it
// keeps the best-scoring relevant item as the ground truth and sets the other relevant items to −∞,
// so that the rank counts only irrelevant items above the first relevant one. rows is modified in
// place; relevant(row, item).
func firstRelevant(rows []float32, n int, relevant func(row, item int) bool) ([]int, error) {
	gt := make([]int, n)
	negInf := float32(math.Inf(-1))
	isRel := make([]bool, n)
	for q := 0; q < n; q++ {
		row := rows[q*n : (q+1)*n]
		best := -1
		for i, x := range row {
			isRel[i] = relevant(q, i)
			if isRel[i] && (best < 0 || x > row[best]) {
				best = i
			}
		}
		if best < 0 {
			return nil, fmt.Errorf("gram: query %d has no relevant item", q)
		}
		for i := range row {
			if i != best && isRel[i] {
				row[i] = negInf
			}
		}
		gt[q] = best
	}
	return gt, nil
}

// MarshalJSON stores the metrics as lib/retrieval prints them.
func (e Evaluation) MarshalJSON() ([]byte, error) {
	type wire struct {
		Score      string            `json:"score"`
		ClassLevel bool              `json:"class_level"`
		T2V        retrieval.Metrics `json:"t2v"`
		V2T        retrieval.Metrics `json:"v2t"`
	}
	return json.Marshal(wire{e.Score, e.ClassLevel, e.T2V, e.V2T})
}

// UnmarshalJSON reads what MarshalJSON wrote (for resumed training histories).
func (e *Evaluation) UnmarshalJSON(b []byte) error {
	var w struct {
		Score      string             `json:"score"`
		ClassLevel bool               `json:"class_level"`
		T2V        map[string]float64 `json:"t2v"`
		V2T        map[string]float64 `json:"v2t"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	e.Score, e.ClassLevel = w.Score, w.ClassLevel
	e.T2V, e.V2T = metricsFromMap(w.T2V), metricsFromMap(w.V2T)
	return nil
}

func metricsFromMap(m map[string]float64) retrieval.Metrics {
	var out retrieval.Metrics
	var ks []int
	for k := range m {
		if strings.HasPrefix(k, "R@") {
			if v, err := strconv.Atoi(k[2:]); err == nil {
				ks = append(ks, v)
			}
		}
	}
	sort.Ints(ks)
	out.Ks = ks
	for _, k := range ks {
		out.Recall = append(out.Recall, m["R@"+strconv.Itoa(k)])
	}
	out.MdR, out.MnR, out.SumR = m["MdR"], m["MnR"], m["SumR"]
	return out
}

type matchedExecKey struct {
	backend compute.Backend
	rawLift bool
}

var matchedExecs sync.Map // matchedExecKey → *graph.Exec (one executable per input shape inside)

// MatchedVolumes returns, for every sample i, the Euclidean and the hyperbolic volume of its own
// tuple (anchor_i, m1_i, m2_i, ...), from lib/geom's GramVolume and HyperbolicGramVolume on the unit
// vectors (rawLift: the hyperbolic one lifts the raw heads). These are HyperGRAM's "volume
// statistics" of matched triplets, and their mean is GRAM's alignment score (GRAM §3.5, Fig. 3).
func MatchedVolumes(backend compute.Backend, emb *Embeddings, rawLift bool) (euc, hyp []float64, err error) {
	k, n, d := emb.NumModalities(), emb.N, emb.Dim
	flat := make([]float32, 0, n*k*d)
	for i := 0; i < n; i++ {
		for m := 0; m < k; m++ {
			flat = append(flat, emb.Heads[m][i]...)
		}
	}
	tuples := tensors.FromFlatDataAndDimensions(flat, n, k, d)
	key := matchedExecKey{backend, rawLift}
	e, ok := matchedExecs.Load(key)
	if !ok {
		exec, err := graph.NewExec(backend, func(v *graph.Node) []*graph.Node {
			unit := Unit(v)
			lifted := unit
			if rawLift {
				lifted = v
			}
			return []*graph.Node{
				graph.ConvertDType(geom.GramVolume(unit), dtypes.Float64),
				graph.ConvertDType(geom.HyperbolicGramVolume(lifted), dtypes.Float64),
			}
		})
		if err != nil {
			return nil, nil, err
		}
		e, _ = matchedExecs.LoadOrStore(key, exec)
	}
	outs, err := e.(*graph.Exec).Exec(tuples)
	if err != nil {
		return nil, nil, err
	}
	euc, hyp = outs[0].Value().([]float64), outs[1].Value().([]float64)
	for _, o := range outs {
		o.FinalizeAll()
	}
	return euc, hyp, nil
}

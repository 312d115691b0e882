package reproduce

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/retrieval"
)

// Runs are one variant of an experiment trained once per seed: Results[i] is the run of Seeds[i].
// R is the study's own result type (what its training function returns); Runs only does the
// arithmetic of the evidence on it: per-seed values of a Metric, their mean ± std for tables, and
// the Samples and Comparisons of the claim rule. Two variants trained on the same seeds, in the
// same order, are paired seed by seed (Differences, Compare).
type Runs[R any] struct {
	Name    string // the variant, as tables and claims name it
	Seeds   []int64
	Results []R
	// Epoch, when set, is the 1-based epoch of training behind a run's kept model: the samples'
	// BestEpoch, for the rule's collapse-by-epoch gate (nil: unknown).
	Epoch func(R) int
}

// Metric is one number of a run, with what tables and the claim rule need to know of it.
type Metric[R any] struct {
	Name     string
	Of       func(R) float64
	Decimals int  // of table cells
	Higher   bool // larger values are better
	// Best is the metric's best attainable value (100 for R@K, 1 for a mean rank), for the rule's
	// ceiling gate; 0 means none.
	Best float64
	// Random is a retrieval metric's expected value under random ranking of a test split of texts ×
	// videos, for the rule's collapse gate (nil: none; RandomLevel).
	Random func(texts, videos int) float64
}

// RandomLevel is m.Random(texts, videos), 0 (none) when m has no Random.
func (m Metric[R]) RandomLevel(texts, videos int) float64 {
	if m.Random == nil {
		return 0
	}
	return m.Random(texts, videos)
}

// RandomSumR is SumR, the sum of R@K over ks (%), expected under a uniformly random ranking of n
// videos with one ground truth per query, Σ_K retrieval.RandomRecall(K, n, 1) = Σ_K 100·min(K, n)/n:
// the collapse gate's level of a SumR metric (Metric.Random), over retrieval.TextVideoKs for GARE,
// retrieval.PRVRKs for HLFormer.
func RandomSumR(n int, ks ...int) float64 {
	sum := 0.0
	for _, k := range ks {
		sum += retrieval.RandomRecall(k, n, 1)
	}
	return sum
}

// MetricNames are the names of metrics, in order: a table's metric columns.
func MetricNames[R any](metrics []Metric[R]) []string {
	names := make([]string, len(metrics))
	for i, m := range metrics {
		names[i] = m.Name
	}
	return names
}

// Values are metric m of every run, in the order of Seeds.
func (r Runs[R]) Values(m Metric[R]) []float64 {
	out := make([]float64, len(r.Results))
	for i, res := range r.Results {
		out[i] = m.Of(res)
	}
	return out
}

// Summary is mean ± sample std of metric m over the seeds (report.Summarize).
func (r Runs[R]) Summary(m Metric[R]) report.MeanStd { return report.Summarize(r.Values(m)) }

// Cell is a table cell of metric m: mean ± std over the seeds with m.Decimals, or the value of a
// single seed marked "(1 seed)" so that no spread is read into it.
func (r Runs[R]) Cell(m Metric[R]) string {
	ms := r.Summary(m)
	if ms.N == 1 {
		return fmt.Sprintf("%.*f (1 seed)", m.Decimals, ms.Mean)
	}
	return ms.Format(m.Decimals)
}

// Sample is metric m over the seeds as a trained model's sample of the claim rule, with the
// epochs of its kept models when Epoch is set.
func (r Runs[R]) Sample(m Metric[R]) Sample {
	s := Sample{Name: r.Name, Seeds: r.Seeds, Values: r.Values(m), Learned: true}
	if r.Epoch != nil {
		for _, res := range r.Results {
			s.BestEpoch = append(s.BestEpoch, r.Epoch(res))
		}
	}
	return s
}

// Differences are b − a of metric m, seed by seed: a and b were trained on the same seeds, so that
// each pair shares its batch order and the initial weights of the parts the variants share.
func Differences[R any](a, b Runs[R], m Metric[R]) []float64 {
	va, vb := a.Values(m), b.Values(m)
	out := make([]float64, len(va))
	for i := range va {
		out[i] = vb[i] - va[i]
	}
	return out
}

// Paired is mean ± std over the seeds of Differences(a, b, m).
func Paired[R any](a, b Runs[R], m Metric[R]) report.MeanStd {
	return report.Summarize(Differences(a, b, m))
}

// Compare completes c — its paper, claim and data, and where they apply the floor and random level
// of the split — as the claim "b beats a on metric m": both samples (Runs.Sample), the metric's
// name, direction and best value.
func Compare[R any](c Comparison, a, b Runs[R], m Metric[R]) Comparison {
	c.Metric, c.Higher, c.Best = m.Name, m.Higher, m.Best
	c.A, c.B = a.Sample(m), b.Sample(m)
	return c
}

// BeatsFloor completes c as the claim "b beats the zero-training floor of the same split" on
// metric m. The floor is one deterministic value (floor.Values[0]), repeated over b's seeds as
// sample A, so the rule's paired test is the one-sample test against it.
func BeatsFloor[R any](c Comparison, floor Sample, b Runs[R], m Metric[R]) Comparison {
	c = Compare(c, b, b, m)
	c.A = Sample{Name: floor.Name, Seeds: b.Seeds, Values: slices.Repeat(floor.Values[:1], len(b.Seeds))}
	c.Floor = nil // the claim is the floor test itself
	return c
}

// AddRow adds r's row to t: its name, each metric as Cell, then the extra cells ("" printed "—":
// a paper's numbers where it has them).
func (r Runs[R]) AddRow(t *report.Table, metrics []Metric[R], extra ...string) {
	cells := []any{r.Name}
	for _, m := range metrics {
		cells = append(cells, r.Cell(m))
	}
	t.AddRow(append(cells, dashed(extra)...)...)
}

// AddFloorRow adds the row of a deterministic baseline to t: its name, each metric of its one
// result with m.Decimals, then the extra cells ("" printed "—").
func AddFloorRow[R any](t *report.Table, name string, floor R, metrics []Metric[R], extra ...string) {
	cells := []any{name}
	for _, m := range metrics {
		cells = append(cells, fmt.Sprintf("%.*f", m.Decimals, m.Of(floor)))
	}
	t.AddRow(append(cells, dashed(extra)...)...)
}

// dashed are cells as table cells, "—" for "".
func dashed(cells []string) []any {
	out := make([]any, len(cells))
	for i, c := range cells {
		out[i] = cmp.Or(c, "—")
	}
	return out
}

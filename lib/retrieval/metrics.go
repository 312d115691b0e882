package retrieval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Float is the element type of score matrices.
type Float interface{ float32 | float64 }

// The K lists of the two conventions (docs/official-code.md §5). SumR is the sum of the
// recalls at the requested Ks, so it follows whichever list is used.
var (
	// TextVideoKs: GRAM, GARE and the CLIP4Clip family report R@1, R@5, R@10.
	TextVideoKs = []int{1, 5, 10}
	// PRVRKs: HLFormer / MS-SL report R@1, R@5, R@10, R@100 and SumR = their sum.
	PRVRKs = []int{1, 5, 10, 100}
)

// TieRule says where the ground truth lands among items with exactly its score.
//
// Without ties every rule, and every official evaluation script, gives the same rank:
// 1 + the number of items scoring strictly higher. Metrics.Tied counts the queries for
// which the rule mattered.
type TieRule int

const (
	// TiePessimistic places the ground truth after every item with an equal score:
	// rank = 1 + #greater + #equal. Ties never inflate a recall; a collapsed model
	// that gives every item the same score gets R@K = 0. The default.
	TiePessimistic TieRule = iota
	// TieOptimistic places the ground truth before every item with an equal score:
	// rank = 1 + #greater. This is the first match of CLIP4Clip's compute_metrics
	// (GARE, docs/official-code.md §4.5), which locates the GT value in the sorted row (np.where(sx-d==0));
	// that code also appends one extra entry per tied item, inflating the denominator,
	// which no rule here reproduces.
	TieOptimistic
	// TieByIndex orders equal scores by item index, as a stable argsort does
	// (np.argsort(-s, kind="stable"), torch.sort(stable=True), descending):
	// rank = 1 + #greater + #(equal items with a smaller index). GRAM's torch.sort and
	// MS-SL/HLFormer's np.argsort (docs/official-code.md §1.6, §3.6) are not stable, so with ties their
	// ranks depend on the sort implementation; this is the deterministic rule nearest
	// to them. Unlike the other two it is not invariant to reordering items.
	TieByIndex
)

func (t TieRule) String() string {
	switch t {
	case TiePessimistic:
		return "pessimistic"
	case TieOptimistic:
		return "optimistic"
	case TieByIndex:
		return "index"
	}
	return "TieRule(" + strconv.Itoa(int(t)) + ")"
}

// ParseTieRule parses "pessimistic", "optimistic" or "index".
func ParseTieRule(s string) (TieRule, error) {
	for _, t := range []TieRule{TiePessimistic, TieOptimistic, TieByIndex} {
		if s == t.String() {
			return t, nil
		}
	}
	return 0, fmt.Errorf("unknown tie rule %q (want pessimistic, optimistic or index)", s)
}

// rank is the 1-based rank given the counts of items (other than the ground truth)
// scoring higher, scoring equal, and scoring equal with a smaller index.
func (t TieRule) rank(greater, equal, equalBefore int) int {
	switch t {
	case TieOptimistic:
		return 1 + greater
	case TieByIndex:
		return 1 + greater + equalBefore
	}
	return 1 + greater + equal
}

// MedianRule says which median MdR reports for an even number of queries.
type MedianRule int

const (
	// MedianNumPy averages the two middle ranks, as np.median does (CLIP4Clip/GARE,
	// MS-SL/HLFormer). The default.
	MedianNumPy MedianRule = iota
	// MedianLower takes the lower middle rank, as torch.median does (GRAM, docs/official-code.md §1.6,
	// which computes MdR but does not log it).
	MedianLower
)

func (m MedianRule) String() string {
	if m == MedianLower {
		return "lower"
	}
	return "numpy"
}

// ParseMedianRule parses "numpy" or "lower".
func ParseMedianRule(s string) (MedianRule, error) {
	switch s {
	case "numpy":
		return MedianNumPy, nil
	case "lower":
		return MedianLower, nil
	}
	return 0, fmt.Errorf("unknown median rule %q (want numpy or lower)", s)
}

// Metrics are the retrieval metrics of one direction (text→video or video→text).
type Metrics struct {
	Queries int       // number of ranked queries (texts for t2v, videos for v2t)
	Ks      []int     // the cut-offs, ascending as given
	Recall  []float64 // Recall[i] = R@Ks[i] in percent: 100·#(rank ≤ K)/Queries
	MdR     float64   // median 1-based rank (see MedianRule)
	MnR     float64   // mean 1-based rank
	SumR    float64   // sum of Recall
	// Tied is the number of queries whose ground truth shares its score with another
	// item; when it is 0 the TieRule made no difference.
	Tied int
}

// R returns R@k, or NaN if k was not requested.
func (m Metrics) R(k int) float64 {
	if i := slices.Index(m.Ks, k); i >= 0 {
		return m.Recall[i]
	}
	return math.NaN()
}

// MarshalJSON writes {"R@1": …, "R@5": …, …, "MdR": …, "MnR": …, "SumR": …} in that
// order: the format of `geoalign metrics --json`.
func (m Metrics) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	field := func(name string, v float64) {
		if b.Len() > 1 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(name))
		b.WriteString(": ")
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	}
	for i, k := range m.Ks {
		field("R@"+strconv.Itoa(k), m.Recall[i])
	}
	field("MdR", m.MdR)
	field("MnR", m.MnR)
	field("SumR", m.SumR)
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes (R@K keys in any order, sorted by K; Queries and
// Tied are not part of the format and stay 0), e.g. a training history read back on resume.
func (m *Metrics) UnmarshalJSON(b []byte) error {
	var fields map[string]float64
	if err := json.Unmarshal(b, &fields); err != nil {
		return err
	}
	*m = Metrics{}
	for name := range fields {
		switch name {
		case "MdR", "MnR", "SumR":
			continue
		}
		k, err := strconv.Atoi(strings.TrimPrefix(name, "R@"))
		if !strings.HasPrefix(name, "R@") || err != nil || k < 1 {
			return fmt.Errorf("retrieval: unknown metric %q", name)
		}
		m.Ks = append(m.Ks, k)
	}
	slices.Sort(m.Ks)
	for _, k := range m.Ks {
		m.Recall = append(m.Recall, fields["R@"+strconv.Itoa(k)])
	}
	m.MdR, m.MnR, m.SumR = fields["MdR"], fields["MnR"], fields["SumR"]
	return nil
}

func (m Metrics) String() string {
	var b bytes.Buffer
	for i, k := range m.Ks {
		fmt.Fprintf(&b, "R@%d %.1f  ", k, m.Recall[i])
	}
	fmt.Fprintf(&b, "MdR %g  MnR %.1f  SumR %.1f  (%d queries", m.MdR, m.MnR, m.SumR, m.Queries)
	if m.Tied > 0 {
		fmt.Fprintf(&b, ", %d with tied scores", m.Tied)
	}
	b.WriteString(")")
	return b.String()
}

// FromRanks computes the metrics of 1-based ranks: R@K = 100·#(rank ≤ K)/n (the same as
// the 0-based rank < K of GRAM and GARE), MdR and MnR of the 1-based ranks (their
// "median + 1" and "mean + 1" of 0-based ranks). Ks defaults to TextVideoKs.
func FromRanks(ranks []int, ks []int, median MedianRule) (Metrics, error) {
	if len(ranks) == 0 {
		return Metrics{}, fmt.Errorf("retrieval: no queries to evaluate")
	}
	if ks == nil {
		ks = TextVideoKs
	}
	if err := checkKs(ks); err != nil {
		return Metrics{}, err
	}
	n := len(ranks)
	m := Metrics{Queries: n, Ks: slices.Clone(ks), Recall: make([]float64, len(ks))}
	hits := make([]int, len(ks))
	var sum float64
	for _, r := range ranks {
		if r < 1 {
			return Metrics{}, fmt.Errorf("retrieval: rank %d < 1", r)
		}
		sum += float64(r)
		for i, k := range ks {
			if r <= k {
				hits[i]++
			}
		}
	}
	for i := range ks {
		// Multiply first: count·100 is exact, so the percent is correctly rounded
		// (427 of 1000 prints as 42.7).
		m.Recall[i] = float64(hits[i]*100) / float64(n)
		m.SumR += m.Recall[i]
	}
	m.MnR = sum / float64(n)
	sorted := slices.Clone(ranks)
	slices.Sort(sorted)
	lo, hi := sorted[(n-1)/2], sorted[n/2]
	if median == MedianLower {
		m.MdR = float64(lo)
	} else {
		m.MdR = float64(lo+hi) / 2
	}
	return m, nil
}

func checkKs(ks []int) error {
	if len(ks) == 0 {
		return fmt.Errorf("retrieval: empty K list")
	}
	for _, k := range ks {
		if k < 1 {
			return fmt.Errorf("retrieval: K = %d, want K ≥ 1", k)
		}
	}
	return nil
}

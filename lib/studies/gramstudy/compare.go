package gramstudy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/geoalign/geoalign/lib/retrieval"
)

// Metric is one retrieval number of an evaluation: R@K of text → data (T2V) or data → text.
type Metric struct {
	Name string // as tables and claims name it
	K    int
	V2T  bool // data → text instead of text → data
}

// The metrics of the tables.
var (
	T2VR1  = Metric{Name: "T→V+A R@1", K: 1}
	V2TR1  = Metric{Name: "V+A→T R@1", K: 1, V2T: true}
	T2VR10 = Metric{Name: "T→V+A R@10", K: 10}
	V2TR10 = Metric{Name: "V+A→T R@10", K: 10, V2T: true}
	// T2DataR1 is text → data R@1 where the data tuple's modalities vary with the row (GRAM Table 4).
	T2DataR1 = Metric{Name: "T→data R@1", K: 1}
)

// Of reads the metric from an evaluation.
func (m Metric) Of(e gram.Evaluation) float64 {
	if m.V2T {
		return e.V2T.R(m.K)
	}
	return e.T2V.R(m.K)
}

// Random is the metric's expected value (%) under a uniformly random ranking of the test split of
// emb: a query with r relevant items among N has a relevant one in the top K with probability
// 1 − C(N − r, K) / C(N, K) (retrieval.RandomRecall, averaged over the queries). Relevance is emb's
// (class-level) or the diagonal (instance-level). It is the level of the rule's collapse gate.
func (m Metric) Random(emb *gram.Embeddings) float64 {
	n, total := emb.N, 0.0
	for q := range n {
		r := 1
		if emb.Relevant != nil {
			r = 0
			for j := range n {
				if (!m.V2T && emb.Relevant(q, j)) || (m.V2T && emb.Relevant(j, q)) {
					r++
				}
			}
		}
		total += retrieval.RandomRecall(m.K, n, r)
	}
	return total / float64(n)
}

// Values applies m to every run's own evaluation.
func Values(runs []*Run, m Metric) []float64 {
	out := make([]float64, len(runs))
	for i, r := range runs {
		out[i] = m.Of(r.Eval)
	}
	return out
}

// Cell is "mean ± std" of a metric over runs.
func Cell(runs []*Run, m Metric) string { return report.Summarize(Values(runs, m)).Format(1) }

// Paper names every claim of the GRAM and HyperGRAM studies in claims.json and REPORT.md: the
// Holm family of the claim rule is one paper's claims.
const (
	PaperGRAM      = "GRAM (ICLR 2025)"
	PaperHyperGRAM = "HyperGRAM (CVPR 2026)"
)

// sample is the runs' per-seed values of m as a sample of the claim rule (learned: the runs trained;
// the best epoch is not recorded).
func sample(label string, runs []*Run, m Metric) reproduce.Sample {
	s := measured(label, runs, Values(runs, m))
	s.Learned = true
	return s
}

// Compare declares the claim "b beats a" on the retrieval metric m over the runs' seeds on d, for the
// claim rule (reproduce.Decide): R@K's best value is 100 (the ceiling gate: FSDD digits reach it) and
// its random-ranking level is computed from the test split (the collapse gate). It is also the
// zero-training floor printed in the row: GRAM's modalities live in different feature spaces
// (image features, log-mel, GloVe), so no similarity exists before training but chance.
func Compare(paper, claim, paperFigure string, d *gram.Dataset, m Metric, aLabel string, a []*Run, bLabel string, b []*Run) reproduce.Comparison {
	c := reproduce.Comparison{Paper: paper, Claim: claim, PaperFigure: paperFigure, Data: dataLabel(d),
		Metric: m.Name, Higher: true, A: sample(aLabel, a, m), B: sample(bLabel, b, m), Best: 100}
	if len(b) > 0 && b[0].Test != nil {
		c.Random = m.Random(b[0].Test)
		c.Floor = &reproduce.Sample{Name: "zero-training (no shared space: random ranking)", Values: []float64{c.Random}}
	}
	return c
}

// measured is a per-seed measurement of runs (not a retrieval metric) as a sample of the claim rule.
func measured(label string, runs []*Run, values []float64) reproduce.Sample {
	s := reproduce.Sample{Name: label, Values: values}
	for _, r := range runs {
		s.Seeds = append(s.Seeds, r.Seed)
	}
	return s
}

// provenance is the table provenance shared by the studies' tables.
func provenance(o Options, data []*gram.Dataset, behavior string, notes ...string) report.Provenance {
	p := report.Provenance{Seeds: o.seeds(), Behavior: behavior}
	kinds := map[report.DataKind]bool{}
	var names []string
	for _, d := range data {
		names = append(names, d.Name)
		kinds[d.Kind] = true
		p.Notes = append(p.Notes, d.Notes...)
		p.Notes = append(p.Notes, fmt.Sprintf("%s: %d training epochs, %d train / %d test samples", ShortName(d), o.Epochs(d), d.Train.N, d.Test.N),
			o.ValidationNote(d, o.baseConfig()))
	}
	p.Data = strings.Join(names, "; ")
	switch {
	case len(kinds) > 1:
		p.Kind = report.DataKind("real and synthetic")
	case kinds[report.Real]:
		p.Kind = report.Real
	default:
		p.Kind = report.Synthetic
	}
	size := "CI-sized configuration"
	if o.Full {
		size = "full configuration (FULL=1)"
	}
	p.Notes = append(p.Notes, size,
		"verdicts: the claims of this table are decided by the project's one claim rule (lib/reproduce) and listed in claims.json and figures/REPORT.md")
	p.Notes = append(p.Notes, notes...)
	return p
}

// MinDistinctQueries is the fewest distinct query texts a test split needs for a retrieval claim:
// queries with identical text rank the items identically, so over q distinct texts R@1 moves in
// steps of about 100/q points (one text answered right or wrong for all its queries), and a claim
// needs steps of at most one point.
const MinDistinctQueries = 100

// DistinctQueries is the number of distinct anchor (text) rows of a split.
func DistinctQueries(s *gram.Split) int {
	return slices.Max(gram.SameRows(s.Features[0], s.Dims[0])) + 1
}

// UntestableReason says why d's test split cannot test a retrieval claim, or "" when it can: with
// fewer than MinDistinctQueries distinct texts it is a sanity check, not a test. This is FSDD digits
// (ten number words for 300 recordings, class-level): every method answers each word with a tuple
// of its digit first, and its R@1 cannot tell the methods apart. Its claims are declared with this
// reason (reproduce.Comparison.Untestable) and read "not testable" (ceiling where every run is at 100).
func UntestableReason(d *gram.Dataset) string {
	q := DistinctQueries(d.Test)
	if q >= MinDistinctQueries {
		return ""
	}
	return fmt.Sprintf("its %d test queries have %d distinct texts (< %d), so R@1 moves in steps of about %.0f points "+
		"and measures whether each of %d texts is answered first by a tuple of its class: a sanity check, not a test",
		d.Test.N, q, MinDistinctQueries, 100/float64(q), q)
}

// NoClaimReason is UntestableReason as a table note, with the R@1 range of runs (every run on d),
// or "" when d can test claims.
func NoClaimReason(d *gram.Dataset, runs []*Run) string {
	why := UntestableReason(d)
	if why == "" {
		return ""
	}
	why = ShortName(d) + ": its claims read not testable — " + why
	if vals := Values(runs, T2VR1); len(vals) > 0 {
		why += fmt.Sprintf(" (here T→V+A R@1 %.1f–%.1f over %d runs)", slices.Min(vals), slices.Max(vals), len(vals))
	}
	return why
}

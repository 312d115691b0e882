package reproduce

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/stats"
)

// The claim rule: one for every paper. Studies declare Comparisons; Decide applies the validity
// gates, the paired t-test and the Holm adjustment within each paper, and returns the Claims that
// claims.json stores and REPORT.md prints. RuleText states the rule from these constants.
const (
	// Level is the significance level: of the Holm-adjusted paired p-value for holds/contradicted
	// (family-wise within a paper), and of the unadjusted one-sided gate tests (floor, collapse).
	Level = 0.05
	// MinSeeds is the fewest seeds a tested claim needs; with fewer it is inconclusive by rule.
	MinSeeds = 5
	// atBestTol is the relative distance from Comparison.Best within which a value counts as at
	// the metric's best: float32 rounding of a metric (ε ≈ 6e-8) with a margin.
	atBestTol = 1e-6
)

// Outcome of a claim under the rule.
type Outcome string

const (
	Holds        Outcome = "holds"        // Holm-adjusted p < Level, in the claimed direction
	Contradicted Outcome = "contradicted" // Holm-adjusted p < Level, opposite to the claim
	Inconclusive Outcome = "inconclusive" // tested and not significant, or fewer than MinSeeds seeds
	NotTestable  Outcome = "not testable" // a validity gate, or the claim cannot be run here (Reason says which)
	Descriptive  Outcome = "descriptive"  // a single-seed or descriptive finding: never evidence either way
	Tautology    Outcome = "tautology"    // true of any model (Reason says why): not evidence

	// Deprecated: the old per-paper rules' null result. SaveClaims and LoadClaims refuse it; it
	// exists only so that the converters in gram.go, gare.go and hlformer.go compile until they are
	// ported onto Decide.
	DoesNotHold Outcome = "does not hold"
)

// outcomes are the values a saved claim may carry.
var outcomes = []Outcome{Holds, Contradicted, Inconclusive, NotTestable, Descriptive, Tautology}

// Gate is a validity gate that makes a comparison not testable before any test is run.
type Gate string

const (
	// GateCeiling: A and B identical on every seed, or A at the metric's best on every seed.
	GateCeiling Gate = "ceiling"
	// GateFloor: a learned sample does not beat the zero-training baseline of the same split.
	GateFloor Gate = "floor"
	// GateCollapse: a learned sample's best epoch is ≤ 1 on some seed, or it does not beat random ranking.
	GateCollapse Gate = "collapse"
	// GateData: the test split cannot tell variants apart whatever their values (Comparison.Untestable
	// says why, e.g. ten distinct query texts, so R@1 moves in steps of ten points).
	GateData Gate = "data"
)

// Sample is one variant's metric over seeds.
type Sample struct {
	Name   string    // the variant, as the tables name it
	Seeds  []int64   // one per value; paired samples share the same seeds in the same order
	Values []float64 // the metric per seed
	// BestEpoch is, per seed, the 1-based epoch that model selection on the validation split chose
	// (1 = after the first pass over the training data); nil when unknown or not trained.
	BestEpoch []int
	// Learned marks a trained model: the floor and collapse gates apply to it. False for a
	// zero-training baseline.
	Learned bool
}

// Comparison is one claim of a paper as a study declares it: B beats A on Metric.
type Comparison struct {
	Paper       string // the paper; the Holm family is every tested comparison of one Paper in a Decide call
	Claim       string // the claim, in words
	PaperFigure string // the paper's number and its table/figure, shown only in the "paper" column
	Data        string // which data: real / label-derived / synthetic, and which
	Metric      string // e.g. "SumR", "t2v R@1"
	Higher      bool   // true when larger values of Metric are better
	A, B        Sample // the claim is that B beats A in the direction of Higher
	// Floor is the zero-training baseline on the same split (retrieval claims), either one value
	// (a deterministic baseline; its Seeds are ignored) or one per seed of A and B, same order.
	// It is printed in the claim's row; nil when none applies.
	Floor *Sample
	// Best is the metric's best attainable value (100 for R@K, 1 for a mean rank), for the ceiling
	// gate; 0 means none.
	Best float64
	// Random is the metric's expected value under random ranking, for the collapse gate; 0 means none.
	Random float64
	// Tautology, when set, says why the claim is true of any model (a fact of random vectors, an
	// identity of softmax cross-entropy): the claim is marked so, not tested.
	Tautology string
	// Untestable, when set by the study, says why the test split cannot tell the variants apart
	// whatever their values (e.g. ten distinct query texts): after the ceiling gate, the claim is
	// not testable by the data gate.
	Untestable string
}

// Diff is the seed-paired difference B − A of a comparison, in the metric's units (a positive
// Mean means B is larger, whatever the metric's direction).
type Diff struct {
	Mean   float64 `json:"mean"`
	StdErr float64 `json:"std_err"` // sample s.d. of the differences / √n
}

// PValue is a tested claim's two-sided paired t-test (df = n − 1) and its Holm adjustment.
type PValue struct {
	Raw    float64 `json:"raw"`
	Holm   float64 `json:"holm"`   // Holm–Bonferroni over the tested claims of the same paper
	Family int     `json:"family"` // how many claims that family has
}

// RuleText states the rule, in Markdown, from the rule's constants: the paragraph REPORT.md
// prints once in its header and notebooks may print beside their verdicts.
func RuleText() string {
	return fmt.Sprintf(`**The claim rule** (one for every paper: `+"`reproduce.Decide`"+`). A claim compares two variants
trained with the same seeds and states that B beats A on one metric. Each row gives n (seeds), Δ, the
mean seed-paired difference B − A ± its standard error, and p, the two-sided paired t-test's p-value
Holm–Bonferroni-adjusted over the tested claims of the same paper (the raw p and the family size m in
brackets). Before any test, validity gates make a claim **%s: <gate>**, outside the Holm family:
**%s** — A and B are identical on every seed, or A is at the metric's best value on every seed, so
B cannot beat it; **%s** — a learned variant's best (validation-selected) epoch is ≤ 1 on some seed,
or it does not beat the metric's value under random ranking; **%s** — a learned variant does not
beat the zero-training baseline of the same split, whose value the row prints; **%s** — the test split
cannot tell the variants apart whatever their values (e.g. ten distinct query texts). "Does not beat" is a
one-sided t-test at p ≥ %g, unadjusted. A claim with fewer than %d seeds is **%s** by rule. Otherwise
it **%s** when the adjusted p < %g and Δ points the claimed way, is **%s** when the adjusted p < %g
and Δ points the other way, and is **%s** otherwise. Single-seed and descriptive findings (shapes of
figures, angles) are **%s**, never evidence either way; a **%s** (true of any model: a fact of random
vectors, an identity of softmax cross-entropy) is marked as such and is not evidence.
`, NotTestable, GateCeiling, GateCollapse, GateFloor, GateData, Level, MinSeeds, Inconclusive,
		Holds, Level, Contradicted, Level, Inconclusive, Descriptive, Tautology)
}

// Decide applies the rule to a list of comparisons (every paper's, or one paper's) and returns one
// Claim per comparison, in order. The validity gates run first (ceiling, collapse by best epoch,
// then the MinSeeds rule, then collapse against random ranking and the floor); the comparisons that
// pass them get the paired t-test of B − A, and their p-values are Holm-adjusted within each
// Paper. It errors, naming the paper and claim, when samples do not pair (different seeds or order,
// lengths, non-finite values) or a claim lacks its text, paper or data.
func Decide(cs []Comparison) ([]Claim, error) {
	out := make([]Claim, len(cs))
	family := map[string][]int{} // paper → indices of its tested claims
	var papers []string
	for i, c := range cs {
		cl, tested, err := decide(c)
		if err != nil {
			return nil, fmt.Errorf("reproduce: %s, claim %q: %w", c.Paper, c.Claim, err)
		}
		out[i] = cl
		if tested {
			if _, ok := family[c.Paper]; !ok {
				papers = append(papers, c.Paper)
			}
			family[c.Paper] = append(family[c.Paper], i)
		}
	}
	for _, paper := range papers {
		idx := family[paper]
		raw := make([]float64, len(idx))
		for k, i := range idx {
			raw[k] = out[i].P.Raw
		}
		for k, adj := range stats.Holm(raw) {
			cl := &out[idx[k]]
			cl.P.Holm, cl.P.Family = adj, len(idx)
			claimed := (cl.Diff.Mean > 0) == cs[idx[k]].Higher
			switch {
			case adj >= Level:
				cl.Outcome = Inconclusive
			case claimed:
				cl.Outcome = Holds
			default:
				cl.Outcome = Contradicted
			}
		}
	}
	return out, nil
}

// decide applies the gates to one comparison and, if it passes them, its paired t-test (raw p);
// tested reports whether it joins its paper's Holm family.
func decide(c Comparison) (cl Claim, tested bool, err error) {
	if c.Paper == "" || c.Claim == "" || c.Data == "" {
		return cl, false, fmt.Errorf("a comparison needs its Paper, Claim and Data")
	}
	cl = Claim{Paper: c.Paper, Claim: c.Claim, PaperFigure: c.PaperFigure, Data: c.Data, Metric: c.Metric}
	if c.Tautology != "" && len(c.A.Values) == 0 && len(c.B.Values) == 0 {
		cl.Outcome, cl.Reason = Tautology, c.Tautology
		return cl, false, nil
	}
	if c.Metric == "" {
		return cl, false, fmt.Errorf("a comparison needs its Metric")
	}
	if err := pairs(c.A, c.B); err != nil {
		return cl, false, err
	}
	n := len(c.A.Values)
	cl.N = n
	cl.Ours = fmt.Sprintf("%s: %s %s vs %s %s", c.Metric, c.B.Name, meanSE(c.B.Values), c.A.Name, meanSE(c.A.Values))
	var pRaw float64 // two-sided paired p of B − A, for the Holm family
	if n >= 2 {
		d, se, p, err := stats.PairedT(c.B.Values, c.A.Values)
		if err != nil {
			return cl, false, err
		}
		cl.Diff, pRaw = &Diff{Mean: d, StdErr: se}, p
	}
	if c.Floor != nil {
		if len(c.Floor.Values) != 1 {
			if err := pairs(c.A, *c.Floor); err != nil {
				return cl, false, fmt.Errorf("floor: %w", err)
			}
		} else if err := finite(c.Floor.Name, c.Floor.Values); err != nil {
			return cl, false, err
		}
		cl.Floor = fmt.Sprintf("%s %s", c.Floor.Name, meanSE(c.Floor.Values))
	}
	if c.Tautology != "" {
		cl.Outcome, cl.Reason = Tautology, c.Tautology
		return cl, false, nil
	}
	learned := func(yield func(Sample) bool) {
		for _, s := range []Sample{c.A, c.B} {
			if s.Learned && !yield(s) {
				return
			}
		}
	}
	gate := func(g Gate, why string, args ...any) (Claim, bool, error) {
		cl.Outcome, cl.Gate, cl.Reason = NotTestable, g, fmt.Sprintf(why, args...)
		return cl, false, nil
	}

	// Ceiling.
	if slices.Equal(c.A.Values, c.B.Values) {
		return gate(GateCeiling, "%s and %s are identical on every seed", c.A.Name, c.B.Name)
	}
	if c.Best != 0 && !slices.ContainsFunc(c.A.Values, func(v float64) bool { return math.Abs(v-c.Best) > atBestTol*math.Abs(c.Best) }) {
		return gate(GateCeiling, "%s is at the metric's best (%s) on every seed: %s cannot beat it", c.A.Name, num(c.Best), c.B.Name)
	}
	if c.Untestable != "" {
		return gate(GateData, "%s", c.Untestable)
	}
	// Collapse: model selection never got past the first epoch.
	for s := range learned {
		var early []string
		for i, e := range s.BestEpoch {
			if e <= 1 {
				early = append(early, strconv.FormatInt(s.Seeds[i], 10))
			}
		}
		if len(early) > 0 {
			return gate(GateCollapse, "%s: best epoch ≤ 1 on seed %s", s.Name, strings.Join(early, ", "))
		}
	}
	if n < MinSeeds {
		cl.Outcome, cl.Reason = Inconclusive, fmt.Sprintf("n = %d < %d seeds", n, MinSeeds)
		return cl, false, nil
	}
	// Collapse: no better than random ranking.
	if c.Random != 0 {
		for s := range learned {
			p, err := beats(s.Values, []float64{c.Random}, c.Higher)
			if err != nil {
				return cl, false, err
			}
			if p >= Level {
				return gate(GateCollapse, "%s %s is within noise of random ranking (%s; one-sided p = %s)",
					s.Name, meanSE(s.Values), num(c.Random), pval(p))
			}
		}
	}
	// Floor.
	if c.Floor != nil {
		for s := range learned {
			p, err := beats(s.Values, c.Floor.Values, c.Higher)
			if err != nil {
				return cl, false, err
			}
			if p >= Level {
				return gate(GateFloor, "%s %s does not beat the floor, %s (one-sided p = %s)",
					s.Name, meanSE(s.Values), cl.Floor, pval(p))
			}
		}
	}
	cl.P = &PValue{Raw: pRaw}
	return cl, true, nil
}

// beats is the one-sided p-value of "x is better than ref" (better: larger when higher, smaller
// otherwise), from the two-sided t-test: p/2 on the better side, 1 − p/2 on the other. ref is one
// value (a one-sample test) or one per value of x (a paired test).
func beats(x, ref []float64, higher bool) (float64, error) {
	var d, p float64
	var err error
	if len(ref) == 1 {
		d, _, p, err = stats.OneSampleT(x, ref[0])
	} else {
		d, _, p, err = stats.PairedT(x, ref)
	}
	if err != nil {
		return 0, err
	}
	if d != 0 && (d > 0) == higher {
		return p / 2, nil
	}
	return 1 - p/2, nil
}

// pairs checks that a and b are paired samples: values and seeds of equal length, the same seeds
// in the same order, no seed twice, finite values, BestEpoch nil or one per seed.
func pairs(a, b Sample) error {
	for _, s := range []Sample{a, b} {
		if len(s.Seeds) != len(s.Values) {
			return fmt.Errorf("sample %q has %d seeds for %d values", s.Name, len(s.Seeds), len(s.Values))
		}
		if s.BestEpoch != nil && len(s.BestEpoch) != len(s.Values) {
			return fmt.Errorf("sample %q has %d best epochs for %d values", s.Name, len(s.BestEpoch), len(s.Values))
		}
		if err := finite(s.Name, s.Values); err != nil {
			return err
		}
	}
	if len(a.Values) == 0 {
		return fmt.Errorf("samples %q and %q have no values", a.Name, b.Name)
	}
	if !slices.Equal(a.Seeds, b.Seeds) {
		return fmt.Errorf("samples %q (seeds %v) and %q (seeds %v) do not pair: the same seeds in the same order are needed",
			a.Name, a.Seeds, b.Name, b.Seeds)
	}
	seen := map[int64]bool{}
	for _, s := range a.Seeds {
		if seen[s] {
			return fmt.Errorf("sample %q lists seed %d twice", a.Name, s)
		}
		seen[s] = true
	}
	return nil
}

func finite(name string, values []float64) error {
	for i, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("sample %q: value %d is %v", name, i, v)
		}
	}
	return nil
}

// Describe is a descriptive finding (a figure's shape, an angle, a single-seed number): it is
// reported, never counted as evidence. ours is the computed result, formatted by the caller from
// the run's numbers.
func Describe(paper, claim, paperFigure, data, ours string) Claim {
	return Claim{Paper: paper, Claim: claim, PaperFigure: paperFigure, Data: data, Ours: ours, Outcome: Descriptive}
}

// Untestable is a claim that cannot be run here at all (no pretrained encoder, no GPU), with the
// reason; a claim a gate stops is decided by Decide instead.
func Untestable(paper, claim, paperFigure, reason string) Claim {
	return Claim{Paper: paper, Claim: claim, PaperFigure: paperFigure, Data: "none", Outcome: NotTestable, Reason: reason}
}

// meanSE formats the mean ± standard error of values (the value alone for one value).
func meanSE(values []float64) string {
	if len(values) == 1 {
		return num(values[0])
	}
	s := report.Summarize(values)
	return pm(s.Mean, s.Std/math.Sqrt(float64(s.N)), false)
}

// pm formats m ± se with the decimals of two significant digits of se (signed when signed).
func pm(m, se float64, signed bool) string {
	f := "%.*f ± %.*f"
	if signed {
		f = "%+.*f ± %.*f"
	}
	if se == 0 {
		if signed && m >= 0 {
			return "+" + num(m) + " ± 0"
		}
		return num(m) + " ± 0"
	}
	dec := min(max(1-int(math.Floor(math.Log10(se))), 0), 8)
	return fmt.Sprintf(f, dec, m, dec, se)
}

// num formats a metric value with up to 6 significant digits, no trailing zeros.
func num(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// pval formats a p-value with two significant digits, "< 0.0001" below that.
func pval(p float64) string {
	if p < 1e-4 {
		return "< 0.0001"
	}
	return strconv.FormatFloat(p, 'g', 2, 64)
}

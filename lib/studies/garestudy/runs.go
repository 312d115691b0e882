package garestudy

import (
	"fmt"
	"math"
	"strings"

	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/geoalign/geoalign/lib/progress"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/gomlx/compute"
)

// Variant is one row of an ablation table: a change to the base configuration and, when the
// paper has that row, its numbers (R@1, R@5, R@10, MnR as printed, "" where it has none).
type Variant struct {
	Name  string
	Apply func(c *gare.Config)
	Paper [4]string
}

// Result is one training + evaluation run.
type Result struct {
	Seed    uint64
	Report  retrieval.Report
	Final   gare.StepStats
	Seconds float64
	Model   *gare.Model // kept for the protocol's first seed
}

// Runs are the results of every variant × seed on one train/test pair.
type Runs struct {
	Base     gare.Config
	Train    *gare.Dataset
	Test     *gare.Dataset
	Variants []Variant
	Seeds    []uint64
	Results  [][]Result // [variant][seed]
}

// Config returns the configuration of variant v.
func (r *Runs) Config(v int) gare.Config {
	c := r.Base
	if r.Variants[v].Apply != nil {
		r.Variants[v].Apply(&c)
	}
	return c
}

// RunOptions control RunVariants.
type RunOptions struct {
	// Label prefixes the progress bar.
	Label string
}

// RunVariants trains every variant with every seed under protocol p (seed s: the pretrained
// encoders of seed s, ψ's initialisation, dropout and batch order) and evaluates it on test.
func RunVariants(b compute.Backend, p *Protocol, train, test *gare.Dataset, variants []Variant, opts RunOptions) (*Runs, error) {
	r := &Runs{Base: p.Base, Train: train, Test: test, Variants: variants, Seeds: p.Seeds}
	bar := progress.New(opts.Label, len(variants)*len(p.Seeds))
	defer bar.Done()
	for v := range variants {
		cfg := r.Config(v)
		var row []Result
		for _, seed := range p.Seeds {
			res, err := p.Run(b, cfg, train, test, seed)
			if err != nil {
				return nil, fmt.Errorf("%s, seed %d: %w", variants[v].Name, seed, err)
			}
			row = append(row, *res)
			bar.Add(1, fmt.Sprintf("%s seed %d: R@1 %.1f", variants[v].Name, seed, res.Report.T2V.R(1)))
		}
		r.Results = append(r.Results, row)
	}
	return r, nil
}

// Metric extracts one number from a run.
type Metric struct {
	Name     string
	Of       func(r retrieval.Report) float64
	Decimals int
}

// The metrics of GARE's tables (text→video unless named v2t).
var (
	R1    = Metric{"R@1", func(r retrieval.Report) float64 { return r.T2V.R(1) }, 1}
	R5    = Metric{"R@5", func(r retrieval.Report) float64 { return r.T2V.R(5) }, 1}
	R10   = Metric{"R@10", func(r retrieval.Report) float64 { return r.T2V.R(10) }, 1}
	MnR   = Metric{"MnR", func(r retrieval.Report) float64 { return r.T2V.MnR }, 1}
	V2TR1 = Metric{"v2t R@1", func(r retrieval.Report) float64 { return r.V2T.R(1) }, 1}
)

// Values returns metric m of every seed of variant v.
func (r *Runs) Values(v int, m Metric) []float64 {
	out := make([]float64, len(r.Results[v]))
	for s, res := range r.Results[v] {
		out[s] = m.Of(res.Report)
	}
	return out
}

// Summary is mean ± std of metric m over the seeds of variant v.
func (r *Runs) Summary(v int, m Metric) report.MeanStd { return report.Summarize(r.Values(v, m)) }

// Paired is the per-seed difference of metric m between variants b and a (b − a): the same seed
// gives both the same batch order and, for the parts they share, the same initial weights.
func (r *Runs) Paired(a, b int, m Metric) report.MeanStd {
	va, vb := r.Values(a, m), r.Values(b, m)
	d := make([]float64, len(va))
	for i := range d {
		d[i] = vb[i] - va[i]
	}
	return report.Summarize(d)
}

// Find returns the index of the variant called name (−1 if none).
func (r *Runs) Find(name string) int {
	for i, v := range r.Variants {
		if v.Name == name {
			return i
		}
	}
	return -1
}

// Table tabulates every variant: ours as mean ± std over seeds, then the paper's numbers in
// *paper* columns citing paperCite (omitted when no variant has paper numbers).
func (r *Runs) Table(title string, prov report.Provenance, paperCite string) *report.Table {
	metrics := []Metric{R1, R5, R10, MnR, V2TR1}
	cols := []string{"variant"}
	for _, m := range metrics {
		cols = append(cols, m.Name)
	}
	t := report.NewTable(title, prov, cols...)
	hasPaper := false
	for _, v := range r.Variants {
		if v.Paper != [4]string{} {
			hasPaper = true
		}
	}
	if hasPaper {
		for _, n := range []string{"R@1", "R@5", "R@10", "MnR"} {
			t.AddPaperColumn(n+" (paper)", paperCite)
		}
	}
	for v, variant := range r.Variants {
		cells := []any{variant.Name}
		for _, m := range metrics {
			cells = append(cells, r.Summary(v, m).Format(m.Decimals))
		}
		if hasPaper {
			for _, p := range variant.Paper {
				if p == "" {
					p = "—"
				}
				cells = append(cells, p)
			}
		}
		t.AddRow(cells...)
	}
	return t
}

// Verdict is one claim of the paper as tested here.
type Verdict struct {
	Claim  string // the paper's claim, in our words
	Paper  string // what the paper reports (table/figure and numbers)
	Ours   string // what we computed (formatted from numbers of the run, never typed)
	Data   string // the data it was computed on
	Result string // Holds, DoesNotHold, WithinNoise or NotTestable
}

// Verdict results.
const (
	Holds       = "holds"
	DoesNotHold = "does not hold"
	WithinNoise = "within noise (not established here)"
	NotTestable = "not testable here"
)

// Markdown is the verdict line shown in the notebook and saved in verdicts.md.
func (v Verdict) Markdown() string {
	return fmt.Sprintf("**%s** — %s. Paper: %s. Ours: %s (%s).", v.Result, v.Claim, v.Paper, v.Ours, v.Data)
}

// outcome is Holds / DoesNotHold / WithinNoise for a condition and its opposite.
func outcome(holds, opposite bool) string {
	switch {
	case holds:
		return Holds
	case opposite:
		return DoesNotHold
	}
	return WithinNoise
}

// Verdict tests "variant b beats variant a on metric m": holds when the seed-paired mean difference
// is positive and larger than its standard error, does not hold when it is negative beyond its
// standard error, otherwise within noise. For MnR lower is better.
func (r *Runs) Verdict(claim, paper string, a, b int, m Metric) Verdict {
	d := r.Paired(a, b, m)
	sign := 1.0
	if m.Name == "MnR" {
		sign = -1
	}
	se := d.Std / math.Sqrt(float64(max(d.N, 1)))
	gain := sign * d.Mean
	return Verdict{
		Claim: claim, Paper: paper, Data: r.Train.Kind + ": " + r.Test.Name,
		Ours: fmt.Sprintf("%s − %s = %+.*f ± %.*f %s paired over %d seeds (%s %s, %s %s)", r.Variants[b].Name, r.Variants[a].Name,
			m.Decimals, d.Mean, m.Decimals, d.Std, m.Name, d.N, r.Variants[a].Name, r.Summary(a, m).Format(m.Decimals),
			r.Variants[b].Name, r.Summary(b, m).Format(m.Decimals)),
		Result: outcome(gain > 0 && gain > se, gain < 0 && -gain > se),
	}
}

// Describe is a one-line description of the training recipe of cfg, for table notes.
func Describe(cfg gare.Config, train, test *gare.Dataset) string {
	var b strings.Builder
	fmt.Fprintf(&b, "D = %d, %d frames, temporal transformer %d layer(s), batch %d, %d epochs (%d steps), BertAdam lr %g (wd %g, β₂ %g, warmup_cosine %g, clip 1.0 global + per-tensor), logit scale %g, ψ dropout %g",
		cfg.Dim, cfg.Frames, cfg.TemporalLayers, cfg.Batch, cfg.Epochs, gare.StepsFor(cfg, train.NumTexts), cfg.LearningRate,
		cfg.WeightDecay, cfg.Beta2, cfg.Warmup, cfg.LogitScale, cfg.PsiDropout)
	fmt.Fprintf(&b, "; train %d pairs, test %d texts × %d videos", train.NumTexts, test.NumTexts, test.NumVideos)
	return b.String()
}

package garestudy

import (
	"fmt"
	"slices"

	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/geoalign/geoalign/lib/progress"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute"
)

// Variant is one row of an ablation table: a change to the base configuration and, when the
// paper has that row, its numbers (R@1, R@5, R@10, MnR as printed, "" where it has none).
type Variant struct {
	Name  string
	Apply func(c *gare.Config)
	Paper [4]string
}

// Outcome is what a run leaves, as cached on disk: the test metrics of stage 2's best validation
// epoch and the learning curves of both stages (lib/train's records, one per epoch: mean train loss
// terms and the validation metrics, Best marking the epochs that improved retrieval.ValMetric).
type Outcome struct {
	Seed                 int64
	Report               retrieval.Report
	Curve, PretrainCurve []train.Record
	Seconds              float64 // stage 2's training and test evaluation
}

// Result is one training + evaluation run: its Outcome and, for the protocol's first seed, the model.
type Result struct {
	Outcome
	Model *gare.Model
}

// BestEpoch is the 1-based stage-2 epoch whose model the run kept (the last best validation), 0
// without validation records.
func (r *Result) BestEpoch() int { return bestEpoch(r.Curve) }

// Kept is the record of the model a curve kept: the last marked Best (nil without one).
func Kept(curve []train.Record) *train.Record {
	var k *train.Record
	for i := range curve {
		if curve[i].Best {
			k = &curve[i]
		}
	}
	return k
}

func bestEpoch(curve []train.Record) int {
	if k := Kept(curve); k != nil {
		return k.Epoch
	}
	return 0
}

// Runs are the results of every variant × seed on one train/test pair.
type Runs struct {
	Base     gare.Config
	Train    *gare.Dataset
	Test     *gare.Dataset
	Variants []Variant
	// Results are, per variant, its runs over the protocol's seeds (the same seeds, in the same order,
	// for every variant: paired by seed).
	Results []reproduce.Runs[Result]
	// Floor is the zero-training baseline of Test (nil: none computed); claims and tables show it.
	Floor *ZeroFloor
	// MoreFloors are further floors of Test that the tables show below Floor (claims read Floor).
	MoreFloors []*ZeroFloor
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
	// Floor is the zero-training baseline of test, carried by the Runs into tables and claims.
	Floor *ZeroFloor
	// MoreFloors are further floors of test, carried by the Runs into tables (Runs.MoreFloors).
	MoreFloors []*ZeroFloor
}

// RunVariants trains every variant with every seed under protocol p (seed s: the pretrained
// encoders of seed s, ψ's initialisation, dropout and batch order) and evaluates it on test.
func RunVariants(b compute.Backend, p *Protocol, train, test *gare.Dataset, variants []Variant, opts RunOptions) (*Runs, error) {
	r := &Runs{Base: p.Base, Train: train, Test: test, Variants: variants, Floor: opts.Floor, MoreFloors: opts.MoreFloors}
	bar := progress.New(opts.Label, len(variants)*len(p.Seeds))
	defer bar.Done()
	for v := range variants {
		cfg := r.Config(v)
		// Epoch: every result has its curves (Protocol.Run trains again a cached one without them)
		runs := reproduce.Runs[Result]{Name: variants[v].Name, Seeds: p.Seeds, Epoch: trainedEpochs}
		for _, seed := range p.Seeds {
			res, err := p.Run(b, cfg, train, test, seed)
			if err != nil {
				return nil, fmt.Errorf("%s, seed %d: %w", variants[v].Name, seed, err)
			}
			runs.Results = append(runs.Results, *res)
			bar.Add(1, fmt.Sprintf("%s seed %d: R@1 %.1f", variants[v].Name, seed, res.Report.T2V.R(1)))
		}
		r.Results = append(r.Results, runs)
	}
	return r, nil
}

// trainedEpochs are the epochs of training behind a run's kept model — stage 1's best epoch plus
// stage 2's (Result.BestEpoch), the passes over the training pairs its weights have seen — for the
// rule's collapse-by-epoch gate (reproduce.Runs.Epoch).
func trainedEpochs(res Result) int { return bestEpoch(res.PretrainCurve) + res.BestEpoch() }

// Metric is one number of a run's test report (reproduce.Metric): the columns of GARE's tables and
// the metrics of its claims.
type Metric = reproduce.Metric[Result]

// The metrics of GARE's tables (text→video unless named v2t), with their levels under random
// ranking (retrieval.RandomRecall, RandomMeanRank: one ground truth per query in a paired split).
var (
	R1    = recall("R@1", 1, false)
	R5    = recall("R@5", 5, false)
	R10   = recall("R@10", 10, false)
	V2TR1 = recall("v2t R@1", 1, true)
	MnR   = Metric{Name: "MnR", Of: func(r Result) float64 { return r.Report.T2V.MnR }, Decimals: 1, Best: 1,
		Random: func(_, videos int) float64 { return retrieval.RandomMeanRank(videos) }}
)

// direction picks the text→video metrics of a report, or its video→text ones (v2t).
func direction(v2t bool) func(retrieval.Report) retrieval.Metrics {
	if v2t {
		return func(r retrieval.Report) retrieval.Metrics { return *r.V2T }
	}
	return func(r retrieval.Report) retrieval.Metrics { return r.T2V }
}

// recall is R@k of one direction (v2t: the texts are the items).
func recall(name string, k int, v2t bool) Metric {
	dir := direction(v2t)
	return Metric{Name: name, Of: func(r Result) float64 { return dir(r.Report).R(k) }, Decimals: 1, Higher: true, Best: 100,
		Random: func(texts, videos int) float64 {
			if v2t {
				return retrieval.RandomRecall(k, texts, 1)
			}
			return retrieval.RandomRecall(k, videos, 1)
		}}
}

// Find returns the index of the variant called name (−1 if none).
func (r *Runs) Find(name string) int {
	return slices.IndexFunc(r.Variants, func(v Variant) bool { return v.Name == name })
}

// Table tabulates every variant: ours as mean ± std over seeds, then the paper's numbers in
// *paper* columns citing paperCite (omitted when no variant has paper numbers); the zero-training
// floor, when the runs have one, is the last row.
func (r *Runs) Table(title string, prov report.Provenance, paperCite string) *report.Table {
	metrics := []Metric{R1, R5, R10, MnR, V2TR1}
	t := report.NewTable(title, prov, append([]string{"variant"}, reproduce.MetricNames(metrics)...)...)
	paper := func(int) []string { return nil }
	if slices.ContainsFunc(r.Variants, func(v Variant) bool { return v.Paper != [4]string{} }) {
		for _, n := range []string{"R@1", "R@5", "R@10", "MnR"} {
			t.AddPaperColumn(n+" (paper)", paperCite)
		}
		paper = func(v int) []string { return r.Variants[v].Paper[:] }
	}
	r.addRows(t, metrics, paper)
	return t
}

// addRows adds to t a row per variant — its name, each metric as mean ± std over the seeds, then
// paper(v)'s cells ("" printed "—") — and, when the runs have one, the zero-training floor's row
// and those of MoreFloors (their paper cells "—").
func (r *Runs) addRows(t *report.Table, metrics []Metric, paper func(v int) []string) {
	for v, runs := range r.Results {
		runs.AddRow(t, metrics, paper(v)...)
	}
	for _, f := range append([]*ZeroFloor{r.Floor}, r.MoreFloors...) {
		if f != nil {
			reproduce.AddFloorRow(t, f.Name, f.result(), metrics, make([]string, len(paper(0)))...)
		}
	}
}

// Describe is a one-line description of the training recipe of cfg, for table notes.
func Describe(cfg gare.Config, d, test *gare.Dataset) string {
	val := valPairs(cfg, d.NumTexts) // the split the protocol carves (newRun)
	fit := d.NumTexts - val
	return fmt.Sprintf("D = %d, %d frames, temporal transformer %d layer(s), batch %d, %d epochs (%d steps), BertAdam lr %g (wd %g, β₂ %g, warmup_cosine %g, clip 1.0 global + per-tensor), logit scale %g, ψ dropout %g"+
		"; %d training pairs: %d trained on, %d validation; test %d texts × %d videos",
		cfg.Dim, cfg.Frames, cfg.TemporalLayers, cfg.Batch, cfg.Epochs, gare.StepsFor(cfg, fit), cfg.LearningRate,
		cfg.WeightDecay, cfg.Beta2, cfg.Warmup, cfg.LogitScale, cfg.PsiDropout, d.NumTexts, fit, val, test.NumTexts, test.NumVideos)
}

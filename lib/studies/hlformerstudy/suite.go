package hlformerstudy

import (
	"fmt"
	"strings"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/encoders"
	"github.com/geoalign/geoalign/lib/models/hlformer"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/train"
	"gonum.org/v1/plot"
)

// Suite is the HLFormer reproduction at one configuration (CI-sized or full): the study of the main
// scale (Table 1, Fig. 4), the study of the ablation scale (Table 2, Fig. 3, 5, 6; the same study
// when both scales are one) and the synthetic benchmark's. Each section is one method returning its
// evidence (reproduce.Section: tables, figures with the learning curves of the runs a table reports,
// comparisons); `geoalign figures` saves and decides them (reproduce.RunSections over Named), and
// notebooks/13-hlformer.ipynb shows them (nb.Show), so both show the same artifacts.
type Suite struct {
	Main, Ablation *Study
	// Full selects the full configuration: the synthetic study's size, the WordNet cone's scale and
	// the suffix of saved names (Suffix).
	Full bool
	// Seeds are the seeds asked for (nil: each scale's).
	Seeds []int64
}

// NewSuite is the suite `geoalign figures` runs for opts: the studies of openStudy at Scales(opts.Full),
// progress on stderr.
func NewSuite(opts reproduce.Options) (*Suite, error) {
	be := backend.MustNew()
	return newSuite(opts.Full, opts.Seeds, func(sc Scale) (*Study, error) { return openStudy(be, opts, sc) })
}

// OpenSuite is the suite as a notebook runs it on Charades-STA with GloVe queries: OpenText at both
// scales of Scales(full); given the run cache of `make figures` (Options.RunCache), it reuses its runs.
func OpenSuite(cache, shared, runCache string, full bool) (*Suite, error) {
	return newSuite(full, nil, func(sc Scale) (*Study, error) { return OpenText(cache, shared, runCache, sc, encoders.GloVe) })
}

// newSuite is the suite of the studies open returns at the main and ablation scales of Scales(full)
// (one study when both scales are one).
func newSuite(full bool, seeds []int64, open func(sc Scale) (*Study, error)) (*Suite, error) {
	mainScale, ablScale := Scales(full)
	s := &Suite{Full: full, Seeds: seeds}
	var err error
	if s.Main, err = open(mainScale); err != nil {
		return nil, err
	}
	s.Ablation = s.Main
	if ablScale.Name != mainScale.Name {
		if s.Ablation, err = open(ablScale); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Named lists the sections in the order `geoalign figures` runs them (Sections are their names):
// Table 2 (ablations), Fig. 3 (branch count and split sweeps) and Fig. 6 (uniform Gaussian widths) are
// sections of the ablation scale (Suite.section).
func (s *Suite) Named() []reproduce.NamedSection {
	a := s.Ablation
	return []reproduce.NamedSection{{Name: "table1", Run: s.Table1}, {Name: "synthetic", Run: s.SyntheticTable1},
		{Name: "fig5", Run: s.Figure5}, {Name: "fig4", Run: s.Figure4},
		{Name: "table2", Run: func() (*reproduce.Section, error) { return s.section("table2", a, a.Table2, a.Table2Rows()) }},
		{Name: "fig3", Run: func() (*reproduce.Section, error) { return s.section("fig3", a, a.Figure3, a.Figure3Variants()) }},
		{Name: "fig6", Run: func() (*reproduce.Section, error) { return s.section("fig6", a, a.Figure6, a.Figure6Variants()) }},
		{Name: "wordnet-cone", Run: s.WordNetCone}}
}

// Sections are the names of Suite.Named, in order (derived from it: one list).
var Sections = reproduce.Names((&Suite{}).Named())

// section is section name of study st: fig adds its plots and comparisons to the section and returns
// its table, which the section gets with the learning curves of the runs of variants (each once, in
// order: the runs the table reports) beside it (name-curves-loss, name-curves-val), named in its notes.
func (s *Suite) section(name string, st *Study, fig func(sec *reproduce.Section) (*report.Table, error), variants []Variant) (*reproduce.Section, error) {
	sec := &reproduce.Section{Title: name}
	t, err := fig(sec)
	if err != nil {
		return nil, err
	}
	runs, err := st.runAll(variants)
	if err != nil {
		return nil, err
	}
	loss, val, err := LearningCurves(t.Title, runs)
	if err != nil {
		return nil, err
	}
	t.Provenance.Notes = append(t.Provenance.Notes, CurvesNote(name+"-curves-loss"+Suffix(s.Full), name+"-curves-val"+Suffix(s.Full), runs))
	sec.Table(name, t)
	sec.Plot(name+"-curves-loss", loss)
	sec.Plot(name+"-curves-val", val)
	return sec, nil
}

// LearningCurves are the learning-curve figures beside a table of runs (issue 19): per epoch, the
// mean training loss (the weighted total of hlformer.LossTermNames) and the validation SumR that
// selects the epoch (on the split carved from train, never test), one curve per variant, each the
// mean ± standard error over the variant's seeds (report.LearningCurves). title names the table.
func LearningCurves(title string, runs []*Runs) (loss, val *plot.Plot, err error) {
	var lc, vc []report.Curve
	for _, r := range runs {
		lc = append(lc, report.Curve{Label: r.Variant.Name, PerRun: collect(r.Results, func(res Run) []float64 {
			return collect(res.Records, func(h train.Record) float64 { return h.Loss }) // LossTermNames[0]: the total
		})})
		vc = append(vc, report.Curve{Label: r.Variant.Name, PerRun: collect(r.Results, valCurve)})
	}
	if loss, err = report.LearningCurves(title+": training loss per epoch", "mean training loss of the epoch ("+hlformer.LossTermNames[0]+")", lc...); err != nil {
		return nil, nil, err
	}
	if val, err = report.LearningCurves(title+": validation SumR per epoch", "validation SumR (R@1 + R@5 + R@10 + R@100, %)", vc...); err != nil {
		return nil, nil, err
	}
	return loss, val, nil
}

// CurvesNote is the table note that names its learning-curve figures (the files loss and val) and
// gives each variant's selected (best validation) epoch per seed, 1-based as in the figures, naming
// the runs whose best epoch is their last one and saying whether their validation curves are flat or
// still rising there (report.EndOfCurves).
func CurvesNote(loss, val string, runs []*Runs) string {
	var parts, last []string
	curves, best := make([][][]float64, len(runs)), make([][]int, len(runs))
	for v, r := range runs {
		var epochs []string
		for i, res := range r.Results {
			curves[v], best[v] = append(curves[v], valCurve(res)), append(best[v], res.BestEpoch()-1)
			epochs = append(epochs, fmt.Sprint(res.BestEpoch()))
			if n := len(res.Records); n > 0 && res.BestEpoch() == n {
				last = append(last, fmt.Sprintf("%s seed %d", ShortName(r.Variant.Name), r.Seeds[i]))
			}
		}
		parts = append(parts, fmt.Sprintf("%s %s", ShortName(r.Variant.Name), strings.Join(epochs, ", ")))
	}
	note := fmt.Sprintf("Learning curves: %s and %s (training loss and validation SumR per epoch, "+
		"mean ± s.e. over seeds). Selected (best validation SumR) epoch per seed, 1-based: %s.", loss, val, strings.Join(parts, "; "))
	if len(last) > 0 {
		note += fmt.Sprintf(" Best epoch = last epoch (warmup_linear decays the learning rate to 0 there) for %d of the runs: %s. %s",
			len(last), strings.Join(last, ", "), report.EndOfCurves("validation SumR", curves, best))
	}
	return note
}

// valCurve is the validation SumR of every epoch of res.
func valCurve(res Run) []float64 {
	return collect(res.Records, func(h train.Record) float64 { return retrieval.FromValues(h.Val, retrieval.T2V).SumR })
}

// table1 is study st's Table 1 as section name with its claims: hybrid beats Euclidean-only and the
// MS-SL-like baseline, and, where the split has a zero-training floor, both learned attentions beat it.
func (s *Suite) table1(name string, st *Study, claimText, paperRef string) (*reproduce.Section, error) {
	return s.section(name, st, func(sec *reproduce.Section) (*report.Table, error) {
		t, err := st.Table1()
		if err != nil {
			return nil, err
		}
		cmp, err := st.Compare(claimText, paperRef, EuclideanOnlyVariant, HybridVariant)
		if err != nil {
			return nil, err
		}
		msl, err := st.Compare("HLFormer beats the MS-SL-like baseline (plain Transformer, multi-scale windows)",
			"Charades SumR 78.7 (HLFormer) vs 68.4 (MS-SL), Table 1", MSSLVariant, HybridVariant)
		sec.Comparisons = []reproduce.Comparison{cmp, msl}
		for _, v := range []Variant{HybridVariant, EuclideanOnlyVariant} {
			if err != nil || st.Floor() == nil {
				break
			}
			if cmp, err = st.BeatsFloor(v, "— (the paper reports no zero-training baseline)"); err == nil {
				sec.Comparisons = append(sec.Comparisons, cmp)
			}
		}
		return t, err
	}, Table1Variants)
}

// Table1 is Table 1 at the main scale.
func (s *Suite) Table1() (*reproduce.Section, error) {
	return s.table1("table1", s.Main, "Hybrid Euclidean + Lorentz attention beats Euclidean-only (GMMFormer-like) attention (Table 1, Fig. 3)",
		"Charades SumR 78.7 (HLFormer) vs 72.9 (GMMFormer), Table 1")
}

// SyntheticTable1 is Table 1 and the hybrid-vs-Euclidean comparison on the synthetic partial-relevance
// benchmark (lib/data/synth): a world of untrimmed videos made of moments of hierarchical concepts,
// 384 videos at CIScale (queries of 8 tokens), 1,024 at SyntheticScale with Full.
func (s *Suite) SyntheticTable1() (*reproduce.Section, error) {
	videos, sc := 384, CIScale
	sc.TrainVideos, sc.TestVideos, sc.QueryLen = 0, 0, 8
	if s.Full {
		videos, sc = 1024, SyntheticScale
	}
	syn, err := SyntheticSetup(7, videos)
	if err != nil {
		return nil, err
	}
	st := NewStudy(s.Main.Backend, syn, sc, s.Seeds, s.Main.Log, s.Main.CacheDir)
	return s.table1("table1-synthetic", st, "Hybrid Euclidean + Lorentz attention beats Euclidean-only attention on synthetic partial-relevance data",
		"Table 1, Fig. 3")
}

// Figure5 is Fig. 5 at the ablation scale, where Table 2 trains the "w/o L_pop" model it needs.
func (s *Suite) Figure5() (*reproduce.Section, error) {
	return s.section("fig5", s.Ablation, func(sec *reproduce.Section) (*report.Table, error) { return s.Ablation.Figure5(sec, 200, 1000) }, Figure5Variants)
}

// Figure4 is Fig. 4 at the main scale (Charades-STA only: it needs the moments; empty on synthetic data).
func (s *Suite) Figure4() (*reproduce.Section, error) {
	sec := &reproduce.Section{Title: "fig4"}
	if s.Main.Setup.Kind != report.LabelDerived {
		return sec, nil
	}
	return sec, s.Main.Figure4(sec)
}

package reproduce

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/models/hlformer"
	"github.com/geoalign/geoalign/lib/report"
	"gonum.org/v1/plot"
)

// HLFormer (ICCV 2025) on the Charades-STA PRVR track (label-derived video features, GloVe query tokens)
// — or, when `make data` has not built it, on the synthetic PRVR benchmark. The experiments themselves
// live in lib/models/hlformer (Study); notebooks/13-hlformer.ipynb calls the same functions.

func init() {
	Register(Experiment{Paper: "hlformer", Table1: hlformerTable1, Figures: hlformerFigures})
}

// hlformerScales: the CI-sized default runs Table 1 in about two minutes; Full is the full Charades-STA
// training run for Table 1 and the ablation scale for Table 2 and the sweeps.
func hlformerScales(opts Options) (main, ablation hlformer.Scale) {
	if opts.Full {
		return hlformer.FullScale, hlformer.AblationScale
	}
	return hlformer.CIScale, hlformer.CIScale
}

// hlformerSetup loads Charades-STA (falling back to synthetic data) at the scale's subset.
func hlformerSetup(opts Options, sc hlformer.Scale) (*hlformer.Setup, error) {
	cache := opts.DataCache
	if cache == "" {
		cache = filepath.Join("datasets", "cache")
	}
	shared := os.Getenv("GEOALIGN_SHARED")
	if shared == "" {
		shared = filepath.Join("..", "shared", "data")
	}
	setup, err := hlformer.LoadCharadesSTA(cache, shared)
	if err != nil {
		fmt.Fprintf(os.Stderr, "hlformer: %v\nhlformer: using the synthetic PRVR benchmark instead\n", err)
		if setup, err = hlformer.SyntheticSetup(7, 1024); err != nil {
			return nil, err
		}
	}
	if sc.TrainVideos > 0 || sc.TestVideos > 0 {
		setup = setup.Subset(sc.TrainVideos, sc.TestVideos, 0)
	}
	return setup, setup.ComputeFloors()
}

func hlformerTable1(opts Options) ([]*report.Table, error) {
	sc, _ := hlformerScales(opts)
	setup, err := hlformerSetup(opts, sc)
	if err != nil {
		return nil, err
	}
	st := hlformer.NewStudy(backend.MustNew(), setup, sc, opts.Seeds, os.Stderr)
	t, err := st.Table1()
	if err != nil {
		return nil, err
	}
	cmp, err := st.Compare(hlformer.HybridVariant, hlformer.EuclideanOnlyVariant)
	if err != nil {
		return nil, err
	}
	t.Provenance.Notes = append(t.Provenance.Notes, "Hybrid vs Euclidean-only (claim: the Lorentz branches help): "+cmp.Verdict+" — "+cmp.Reason+".")
	return []*report.Table{t}, nil
}

// hlformerFigures regenerates figures/hlformer/: Table 1 and the hybrid-vs-Euclidean verdict, Table 2,
// Fig. 3, 4, 5 and 6 (suffix -ci or -full), and the claims for figures/REPORT.md.
func hlformerFigures(opts Options) error {
	mainScale, ablScale := hlformerScales(opts)
	suffix := "-ci"
	if opts.Full {
		suffix = "-full"
	}
	out := filepath.Join(opts.Out, "hlformer")
	be := backend.MustNew()
	setup, err := hlformerSetup(opts, mainScale)
	if err != nil {
		return err
	}
	st := hlformer.NewStudy(be, setup, mainScale, opts.Seeds, os.Stderr)
	abl := st
	if ablScale.Name != mainScale.Name {
		as, err := hlformerSetup(opts, ablScale)
		if err != nil {
			return err
		}
		abl = hlformer.NewStudy(be, as, ablScale, opts.Seeds, os.Stderr)
	}
	save := func(t *report.Table, name string) error {
		Stamp(t)
		return t.Save(filepath.Join(out, name+suffix))
	}
	savePlot := func(p *plot.Plot, name string) error {
		_, err := report.SavePlot(p, filepath.Join(out, name+suffix))
		return err
	}
	t1, err := st.Table1()
	if err != nil {
		return err
	}
	cmp, err := st.Compare(hlformer.HybridVariant, hlformer.EuclideanOnlyVariant)
	if err != nil {
		return err
	}
	t1.Provenance.Notes = append(t1.Provenance.Notes, "Hybrid vs Euclidean-only: "+cmp.Verdict+" — "+cmp.Reason+".")
	if err := save(t1, "table1"); err != nil {
		return err
	}
	p5a, p5b, t5, err := st.Figure5(200, 1000)
	if err != nil {
		return err
	}
	for name, p := range map[string]*plot.Plot{"fig5-with-pop": p5a, "fig5-without-pop": p5b} {
		if err := savePlot(p, name); err != nil {
			return err
		}
	}
	if err := save(t5, "fig5"); err != nil {
		return err
	}
	claims := []Claim{hlformerClaim(setup, "Hybrid Euclidean + Lorentz attention beats Euclidean-only attention (Fig. 3, Table 1)",
		"Charades SumR 78.7 (HLFormer) vs 72.9 (GMMFormer), Table 1", cmp)}
	if setup.Kind == report.LabelDerived {
		p4a, p4b, t4, err := st.Figure4()
		if err != nil {
			return err
		}
		for name, p := range map[string]*plot.Plot{"fig4-euclidean": p4a, "fig4-hybrid": p4b} {
			if err := savePlot(p, name); err != nil {
				return err
			}
		}
		if err := save(t4, "fig4"); err != nil {
			return err
		}
	}
	t2, cmps, err := abl.Table2()
	if err != nil {
		return err
	}
	if err := save(t2, "table2"); err != nil {
		return err
	}
	for _, c := range cmps {
		claims = append(claims, hlformerClaim(abl.Setup, "The full HLFormer beats the ablation "+c.B+" (Table 2)", "Table 2, Charades row", c))
	}
	p3a, p3b, t3, err := abl.Figure3()
	if err != nil {
		return err
	}
	if err := savePlot(p3a, "fig3-branches"); err != nil {
		return err
	}
	if err := savePlot(p3b, "fig3-ratio"); err != nil {
		return err
	}
	if err := save(t3, "fig3"); err != nil {
		return err
	}
	p6, t6, err := abl.Figure6()
	if err != nil {
		return err
	}
	if err := savePlot(p6, "fig6"); err != nil {
		return err
	}
	if err := save(t6, "fig6"); err != nil {
		return err
	}
	return SaveClaims(out, claims)
}

// hlformerClaim turns a paired comparison into a REPORT.md claim.
func hlformerClaim(setup *hlformer.Setup, claim, paperFigure string, c *hlformer.Comparison) Claim {
	v := map[string]Verdict{"holds": Holds, "does not hold": DoesNotHold}[c.Verdict]
	if v == "" {
		v = Inconclusive
	}
	return Claim{Paper: "hlformer", Claim: claim, PaperFigure: paperFigure,
		Ours: fmt.Sprintf("SumR difference %s (n = %d seeds)", c.Diff.Format(2), c.Diff.N),
		Data: fmt.Sprintf("%s (%s)", setup.Name, setup.Kind), Verdict: v, Why: c.Reason}
}

package hlformerstudy

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/geoalign/geoalign/lib/runcache"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/encoders"
	"github.com/geoalign/geoalign/lib/report"
	"gonum.org/v1/plot"
)

// HLFormer (ICCV 2025) on the Charades-STA PRVR track (label-derived video features, GloVe query tokens)
// — or, with Options.Synthetic, on the synthetic PRVR benchmark. The experiments themselves
// live in lib/models/hlformer (Study); notebooks/13-hlformer.ipynb calls the same functions.

func init() {
	reproduce.Register(reproduce.Experiment{Paper: "hlformer", Table1: hlformerTable1, Figures: hlformerFigures, Sections: Sections})
}

// Sections are the parts of hlformerFigures in the order it runs them (reproduce.Options.Sections
// selects some): Table 1 at the main scale (with Fig. 4's models), Table 1 on the synthetic
// benchmark, Fig. 5, Fig. 4, Table 2, Fig. 3 and Fig. 6 at the ablation scale, and the
// partial-order loss on WordNet.
var Sections = []string{"table1", "synthetic", "fig5", "fig4", "table2", "fig3", "fig6", "wordnet-cone"}

// Scales are the study's two scales: the main one (Table 1, Fig. 4) and the ablation one (Table 2,
// Fig. 3, 5, 6). The CI-sized default runs Table 1 in about two minutes at CIScale for both; full is
// the full Charades-STA training run (FullScale) and the ablation scale for Table 2 and the sweeps.
func Scales(full bool) (main, ablation Scale) {
	if full {
		return FullScale, AblationScale
	}
	return CIScale, CIScale
}

// Suffix ends the name of every saved output of a configuration: hlformer/table1-full, or -ci.
func Suffix(full bool) string {
	if full {
		return "-full"
	}
	return "-ci"
}

// LoadSetup loads Charades-STA (the synthetic PRVR benchmark with opts.Synthetic) at the scale's
// subset. Missing or corrupt Charades-STA files, or staged annotations the zero-training floors
// read, are a data.BadInput error naming the file; nothing falls back to synthetic data.
func LoadSetup(opts reproduce.Options, sc Scale) (*Setup, error) {
	var setup *Setup
	var err error
	if opts.Synthetic {
		setup, err = SyntheticSetup(7, 1024)
	} else {
		cache := opts.DataCache
		if cache == "" {
			cache = filepath.Join("datasets", "cache")
		}
		if setup, err = LoadCharadesSTAText(cache, sharedDataDir(), opts.Text); err != nil {
			err = data.BadInput(fmt.Errorf("%w (or run on synthetic data: --data synthetic)", err))
		}
	}
	if err != nil {
		return nil, err
	}
	if setup, err = prepare(setup, sc); err != nil {
		return nil, data.BadInput(err)
	}
	return setup, nil
}

// prepare cuts a setup to the scale's subset and computes its zero-training floors.
func prepare(setup *Setup, sc Scale) (*Setup, error) {
	if sc.TrainVideos > 0 || sc.TestVideos > 0 {
		setup = setup.Subset(sc.TrainVideos, sc.TestVideos, 0)
	}
	if err := setup.ComputeFloors(); err != nil {
		return nil, fmt.Errorf("hlformer: zero-training floors: %w", err)
	}
	return setup, nil
}

// Open is the study of a scale on the Charades-STA track as a notebook runs it: the track `make
// data` built under cache, the staged annotations under shared (the zero-training floors read
// them), the scale's subset, the default seeds, and every run checkpointed under
// <runCache>/hlformer — the run cache `make figures` uses when GEOALIGN_RUN_CACHE names the same
// root, so either reuses the other's finished runs.
func Open(cache, shared, runCache string, sc Scale) (*Study, error) {
	return OpenText(cache, shared, runCache, sc, encoders.GloVe)
}

// OpenText is Open with the query tokens of encoder t (LoadCharadesSTAText) at the scale for them
// (Scale.ForText).
func OpenText(cache, shared, runCache string, sc Scale, t encoders.Text) (*Study, error) {
	sc = sc.ForText(t)
	setup, err := LoadCharadesSTAText(cache, shared, t)
	if err != nil {
		return nil, err
	}
	if setup, err = prepare(setup, sc); err != nil {
		return nil, err
	}
	s := NewStudy(backend.MustNew(), setup, sc, nil, nil)
	s.CacheDir = filepath.Join(runCache, "hlformer")
	return s, nil
}

func hlformerTable1(opts reproduce.Options) ([]*report.Table, error) {
	sc, _ := Scales(opts.Full)
	sc = sc.ForText(opts.Text)
	setup, err := LoadSetup(opts, sc)
	if err != nil {
		return nil, err
	}
	st := NewStudy(backend.MustNew(), setup, sc, opts.Seeds, os.Stderr)
	st.CacheDir = RunCacheDir(opts)
	t, err := st.Table1()
	if err != nil {
		return nil, err
	}
	return []*report.Table{t}, nil
}

// RunCacheDir is where the studies (and the cross-paper grid) checkpoint every run, so that an interrupted full run resumes:
// <runcache.Root>/hlformer when GEOALIGN_RUN_CACHE is set, else build/runs/hlformer for the full configuration (none for
// CI) — the directory notebook 13 uses (kernel/nb.RunCache), so either reuses the other's runs.
func RunCacheDir(opts reproduce.Options) string {
	if d := runcache.Root(""); d != "" {
		return filepath.Join(d, "hlformer")
	}
	if opts.Full {
		return filepath.Join("build", "runs", "hlformer")
	}
	return ""
}

// hlformerFigures regenerates figures/hlformer/: Table 1, the hybrid-vs-Euclidean verdict and Fig. 4
// (main scale), Table 2, Fig. 3, 5 and 6 (ablation scale), the partial-order loss on WordNet
// (wordnet-cone), with suffix -ci or -full, and the claims for figures/REPORT.md.
func hlformerFigures(opts reproduce.Options) error {
	mainScale, ablScale := Scales(opts.Full)
	mainScale, ablScale = mainScale.ForText(opts.Text), ablScale.ForText(opts.Text)
	suffix := Suffix(opts.Full)
	out := filepath.Join(opts.Out, "hlformer")
	be := backend.MustNew()
	setup, err := LoadSetup(opts, mainScale)
	if err != nil {
		return err
	}
	st := NewStudy(be, setup, mainScale, opts.Seeds, os.Stderr)
	st.CacheDir = RunCacheDir(opts)
	abl := st
	if ablScale.Name != mainScale.Name {
		as, err := LoadSetup(opts, ablScale)
		if err != nil {
			return err
		}
		abl = NewStudy(be, as, ablScale, opts.Seeds, os.Stderr)
		abl.CacheDir = st.CacheDir
	}
	// curves adds the learning curves of the runs s was asked for since s.Track beside table t, which
	// it adds as name (issue 19), and names them in t's notes.
	curves := func(sec *reproduce.Section, s *Study, t *report.Table, name string) error {
		runs := s.Tracked()
		loss, val, err := LearningCurves(t.Title, runs)
		if err != nil {
			return err
		}
		sec.Plot(name+"-curves-loss", loss)
		sec.Plot(name+"-curves-val", val)
		t.Provenance.Notes = append(t.Provenance.Notes, CurvesNote(name+"-curves-loss"+suffix, name+"-curves-val"+suffix, runs))
		sec.Table(name, t)
		return nil
	}
	// table1 is a study's Table 1 with its claims: hybrid beats Euclidean-only and the MS-SL-like
	// baseline, and, where the split has a zero-training floor, both learned attentions beat it
	// (issue 19).
	table1 := func(sec *reproduce.Section, s *Study, claimText, paperRef string) error {
		s.Track()
		t, err := s.Table1()
		if err != nil {
			return err
		}
		if err := curves(sec, s, t, sec.Title); err != nil {
			return err
		}
		cmp, err := s.Compare(claimText, paperRef, EuclideanOnlyVariant, HybridVariant)
		if err != nil {
			return err
		}
		msl, err := s.Compare("HLFormer beats the MS-SL-like baseline (plain Transformer, multi-scale windows)",
			"Charades SumR 78.7 (HLFormer) vs 68.4 (MS-SL), Table 1", MSSLVariant, HybridVariant)
		sec.Comparisons = []reproduce.Comparison{cmp, msl}
		for _, v := range []Variant{HybridVariant, EuclideanOnlyVariant} {
			if err != nil || s.Floor() == nil {
				break
			}
			if cmp, err = s.BeatsFloor(v, "— (the paper reports no zero-training baseline)"); err == nil {
				sec.Comparisons = append(sec.Comparisons, cmp)
			}
		}
		return err
	}
	// twoPlots is a figure of the ablation scale drawn as two plots (name-a, name-b) with its table
	// and the learning curves of its runs.
	twoPlots := func(name, a, b string, figure func() (*plot.Plot, *plot.Plot, *report.Table, []reproduce.Comparison, error)) reproduce.NamedSection {
		return reproduce.Step(name, func(sec *reproduce.Section) error {
			abl.Track()
			pa, pb, t, cmps, err := figure()
			if err != nil {
				return err
			}
			sec.Plot(name+"-"+a, pa)
			sec.Plot(name+"-"+b, pb)
			sec.Comparisons = cmps
			return curves(sec, abl, t, name)
		})
	}
	sections := []reproduce.NamedSection{
		reproduce.Step("table1", func(sec *reproduce.Section) error {
			return table1(sec, st, "Hybrid Euclidean + Lorentz attention beats Euclidean-only (GMMFormer-like) attention (Table 1, Fig. 3)",
				"Charades SumR 78.7 (HLFormer) vs 72.9 (GMMFormer), Table 1")
		}),
		reproduce.Step("synthetic", func(sec *reproduce.Section) error {
			// The synthetic partial-relevance benchmark (lib/data/synth): Table 1 and the hybrid-vs-Euclidean
			// comparison on a world of untrimmed videos made of moments of hierarchical concepts.
			synVideos, synScale := 384, CIScale
			synScale.TrainVideos, synScale.TestVideos, synScale.QueryLen = 0, 0, 8
			if opts.Full {
				synVideos, synScale = 1024, SyntheticScale
			}
			syn, err := SyntheticSetup(7, synVideos)
			if err != nil {
				return err
			}
			sst := NewStudy(be, syn, synScale, opts.Seeds, os.Stderr)
			sst.CacheDir = st.CacheDir
			sec.Title = "table1-synthetic" // the name of its table
			return table1(sec, sst, "Hybrid Euclidean + Lorentz attention beats Euclidean-only attention on synthetic partial-relevance data",
				"Table 1, Fig. 3")
		}),
		// Fig. 5 needs the "w/o L_pop" model too: at the ablation scale, where Table 2 trains it anyway.
		twoPlots("fig5", "with-pop", "without-pop", func() (*plot.Plot, *plot.Plot, *report.Table, []reproduce.Comparison, error) {
			return abl.Figure5(200, 1000)
		}),
		reproduce.Step("fig4", func(sec *reproduce.Section) error {
			if setup.Kind != report.LabelDerived {
				return nil
			}
			p4a, p4b, t4, f4, err := st.Figure4()
			sec.Plot("fig4-euclidean", p4a)
			sec.Plot("fig4-hybrid", p4b)
			sec.Table("fig4", t4)
			sec.Comparisons = []reproduce.Comparison{f4}
			return err
		}),
		reproduce.Step("table2", func(sec *reproduce.Section) error {
			abl.Track()
			t2, cmps, err := abl.Table2()
			if err != nil {
				return err
			}
			sec.Comparisons = cmps
			return curves(sec, abl, t2, "table2")
		}),
		twoPlots("fig3", "branches", "ratio", abl.Figure3),
		reproduce.Step("fig6", func(sec *reproduce.Section) error {
			abl.Track()
			p6, t6, f6, err := abl.Figure6()
			if err != nil {
				return err
			}
			sec.Plot("fig6", p6)
			sec.Comparisons = f6
			return curves(sec, abl, t6, "fig6")
		}),
		// HLFormer's partial-order loss where the partial order is known: WordNet's mammal closure.
		{Name: "wordnet-cone", Run: func() (*reproduce.Section, error) { return wordnetCone(be, opts, suffix) }},
	}
	_, err = reproduce.RunSections(opts, "hlformer", out, suffix, sections, Untestable()...)
	return err
}

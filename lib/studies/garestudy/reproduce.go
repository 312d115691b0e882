package garestudy

import (
	"cmp"
	"path/filepath"
	"slices"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
)

// GARE (NeurIPS 2025) on the Charades descriptions ↔ videos track (real text, label-derived video
// features) and the synthetic false-negative benchmark. Notebook: notebooks/12-gare.ipynb.
func init() {
	reproduce.Register(reproduce.Experiment{Paper: "gare", Table1: gareTable1, Figures: gareFigures, Sections: Sections,
		PaperData: PaperData, DataSections: DataSections})
}

// gareScale is full (opts.Full) or else small, with opts' seeds when it names any.
func gareScale(opts reproduce.Options, small, full Scale) Scale {
	s := small
	if opts.Full {
		s = full
	}
	if len(opts.Seeds) > 0 {
		s.Seeds = opts.Seeds
	}
	return s
}

// gareSuite is the suite of scale on its data source: a researcher's feature directory
// (reproduce.Options.Data, FeatureDirSource) or else the Charades track of opts' data directory
// (reproduce.Options.DataDir, CharadesSource); its runs cached in DefaultWorkDir, or under
// --runs (reproduce.Options.Runs). `--config` sets the base configuration of every variant
// (ConfigFile). Bad data, a bad --config or data too small for it are a data.BadInput error before
// any training.
func gareSuite(opts reproduce.Options, scale Scale) (*Suite, error) {
	b, workDir := backend.MustNew(), DefaultWorkDir(scale.Name)
	if opts.Runs != "" {
		workDir = filepath.Join(opts.Runs, "gare-"+scale.Name)
	}
	var src *DataSource
	var err error
	if opts.Data != "" {
		src, err = FeatureDirSource(b, scale, opts.Data, gare.DefaultConfig().ValFraction)
	} else {
		src, err = CharadesSource(b, scale, opts.DataDir(), workDir, opts.Text)
	}
	if err != nil {
		return nil, data.BadInput(err) // the sources only read data
	}
	suite := NewSuiteFrom(b, scale, src, workDir)
	suite.PaperData = opts.PaperData
	if opts.Config != "" {
		cfg, notes, err := ConfigFile(opts.Config, suite.Base)
		if err != nil {
			return nil, err
		}
		suite.SetBase(cfg, notes)
	}
	return suite, suite.Check(cmp.Or(opts.Data, opts.DataDir()))
}

// gareTable1: baseline vs GARE, text→video and video→text, with the zero-training floor, at CIScale
// (FullScale with opts.Full). Its claims are decided with all of GARE's by `make figures`. With
// opts.Synthetic: baseline vs GARE on the synthetic false-negative benchmark at the scale's rates.
func gareTable1(opts reproduce.Options) ([]*report.Table, error) {
	scale := gareScale(opts, CIScale(), FullScale())
	if opts.Synthetic {
		suite := &Suite{Scale: scale, Backend: backend.MustNew(), WorkDir: DefaultWorkDir(scale.Name)}
		st, err := suite.Synthetic()
		if err != nil {
			return nil, err
		}
		return []*report.Table{st.Table()}, nil
	}
	suite, err := gareSuite(opts, scale)
	if err != nil {
		return nil, err
	}
	sec, err := suite.Table1()
	if err != nil {
		return nil, err
	}
	return []*report.Table{sec.Tables()[0]}, nil
}

// gareFigures regenerates figures/gare/: every table and figure of the notebook at FullScale and
// claims.json, every claim decided by the one rule in one Holm family (reproduce.RunSections). On a
// researcher's feature directory (opts.Data) it runs DataSections only, at the same scales (this is
// also what `geoalign reproduce --paper gare --data DIR` runs, its Table 1 section).
// Without opts.Full it runs the notebook's SmallScale into the same files (a smoke run; do not
// commit its output). Runs are cached in DefaultWorkDir, so an interrupted run resumes where it
// stopped and the notebook (FULL=1) reuses them.
func gareFigures(opts reproduce.Options) error {
	if err := opts.NeedsRealData("gare"); err != nil {
		return err
	}
	suite, err := gareSuite(opts, gareScale(opts, SmallScale(), FullScale()))
	if err != nil {
		return err
	}
	sections, untestable := suite.Named(), Untestable()
	if opts.Data != "" { // a researcher's feature directory: its sections only, and it may be the very data they lack
		sections = slices.DeleteFunc(sections, func(n reproduce.NamedSection) bool { return !slices.Contains(DataSections, n.Name) })
		untestable = nil
	}
	_, err = reproduce.RunSections(opts, "gare", filepath.Join(opts.Out, "gare"), "", sections, untestable...)
	return err
}

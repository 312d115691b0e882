package hlformerstudy

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/data/tracks"
	"github.com/geoalign/geoalign/lib/encoders"
	"github.com/geoalign/geoalign/lib/models/hlformer"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/gomlx/compute"
)

func init() {
	reproduce.Register(reproduce.Experiment{Paper: "hlformer", Table1: hlformerTable1, Figures: hlformerFigures, Sections: Sections,
		PaperData: PaperDataNames(), CollectionSections: CollectionSections})
}

// CollectionSections are the sections of Suite.Named that run on a researcher's collection
// (reproduce.Options.Collection): the tables whose rows are variants trained on the data.
var CollectionSections = []string{"table1", "table2"}

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
	} else if opts.Collection.Root != "" {
		setup, err = LoadCollection(opts.Collection)
	} else {
		if setup, err = LoadCharadesSTAText(opts.DataDir(), tracks.SharedDir(), opts.Text); err != nil {
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

// prepare cuts a setup to the scale's subset and computes the zero-training baselines of the datasets
// engineer (lib/data/tracks) on its test and validation splits (Floors, ValFloors; none for synthetic data).
func prepare(setup *Setup, sc Scale) (*Setup, error) {
	if sc.TrainVideos > 0 || sc.TestVideos > 0 {
		setup = setup.Subset(sc.TrainVideos, sc.TestVideos, 0)
	}
	var err error
	if setup.Kind != report.Synthetic {
		if setup.Floors, err = setup.FloorsOn(setup.Test); err == nil {
			setup.ValFloors, err = setup.FloorsOn(setup.Val)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("hlformer: zero-training floors: %w", err)
	}
	return setup, nil
}

// OpenText is the study of scale sc as a notebook runs it: the Charades-STA setup of
// LoadCharadesSTAText with encoder t at the scale's subset (Scale.ForText), the default seeds, and
// every run checkpointed under <runCache>/hlformer.
func OpenText(cache, shared, runCache string, sc Scale, t encoders.Text) (*Study, error) {
	sc = sc.ForText(t)
	setup, err := LoadCharadesSTAText(cache, shared, t)
	if err != nil {
		return nil, err
	}
	if setup, err = prepare(setup, sc); err != nil {
		return nil, err
	}
	return NewStudy(backend.MustNew(), setup, sc, nil, nil, filepath.Join(runCache, "hlformer")), nil
}

func hlformerTable1(opts reproduce.Options) ([]*report.Table, error) {
	sc, _ := Scales(opts.Full)
	st, err := openStudy(backend.MustNew(), opts, sc)
	if err != nil {
		return nil, err
	}
	t, err := st.Table1()
	return []*report.Table{t}, err
}

// openStudy is the study of scale sc (for opts.Text: Scale.ForText) that `geoalign figures` runs: the
// setup of LoadSetup, opts.Seeds, every run checkpointed under RunCacheDir(opts), progress on stderr.
func openStudy(be compute.Backend, opts reproduce.Options, sc Scale) (*Study, error) {
	sc = sc.ForText(opts.Text)
	setup, err := LoadSetup(opts, sc)
	if err != nil {
		return nil, err
	}
	st := NewStudy(be, setup, sc, opts.Seeds, os.Stderr, RunCacheDir(opts))
	st.PaperData = opts.PaperData
	if opts.Config != "" {
		base, notes, err := ConfigFile(opts.Config, st.BaseConfig())
		if err != nil {
			return nil, err
		}
		st.Base, st.BaseNotes, st.configFile = &base, notes, opts.Config
	}
	return st, st.Check()
}

// Check reports, before any training, a setup the study cannot run on: a training split with fewer
// videos than one batch of the base configuration, or a validation or test split of fewer than 2
// videos (no ranking); a data.BadInput error naming the split and the field.
func (s *Study) Check() error {
	cfg := s.BaseConfig()
	if hlformer.BatchesPerEpoch(s.Setup.Train, cfg.Training.TrainConfig()) == 0 {
		return data.BadInput(fmt.Errorf("hlformer: %s: the training split has %d videos (after the scale's subset and the validation carve), fewer than one batch of Training.BatchVideos = %d (%s)",
			s.splitFile("train"), s.Setup.Train.NumVideos(), cfg.Training.BatchVideos, cmp.Or(s.configFile, "the "+s.Scale.Name+" scale's")))
	}
	for _, sp := range []*prvr.Split{s.Setup.Val, s.Setup.Test} {
		if sp.NumVideos() < 2 {
			return data.BadInput(fmt.Errorf("hlformer: %s: the %s split has %d video(s): nothing to rank", s.splitFile(sp.Name), sp.Name, sp.NumVideos()))
		}
	}
	return nil
}

// RunCacheDir is where the studies (and the cross-paper grid) checkpoint every run:
// <reproduce.Options.RunCache>/hlformer, the directory notebook 13 uses, or "" (none, CI without
// runcache.Root's environment variable).
func RunCacheDir(opts reproduce.Options) string {
	if d := opts.RunCache(); d != "" {
		return filepath.Join(d, "hlformer")
	}
	return ""
}

// hlformerFigures regenerates figures/hlformer/: the sections of the Suite (Suite.Named) with suffix
// -ci or -full, and the claims for figures/REPORT.md.
func hlformerFigures(opts reproduce.Options) error {
	s, err := NewSuite(opts)
	if err != nil {
		return err
	}
	sections, untestable := s.Named(), Untestable()
	if opts.Collection.Root != "" { // a researcher's collection: its sections only, and it may be the very data they lack
		sections = slices.DeleteFunc(sections, func(n reproduce.NamedSection) bool { return !slices.Contains(CollectionSections, n.Name) })
		untestable = nil
	}
	_, err = reproduce.RunSections(opts, "hlformer", filepath.Join(opts.Out, "hlformer"), Suffix(opts.Full), sections, untestable...)
	return err
}

// Untestable lists HLFormer's claims that no experiment here can test, with the reason; the
// driver adds them to its evidence so that REPORT.md lists them.
func Untestable() []reproduce.Claim {
	const features = "needs the official I3D / ResNet-152 + RoBERTa features (TVR, ActivityNet) or the TVR videos and subtitles, " +
		"which cannot be had on these machines; Charades-STA is tested with label-derived features instead"
	u := func(claim, paper, reason string) reproduce.Claim {
		return reproduce.Untestable(PaperHLFormer, claim, paper, reason)
	}
	return []reproduce.Claim{
		u("HLFormer sets the state of the art on TVR", "Table 1 (TVR SumR 187.7)", features),
		u("HLFormer sets the state of the art on ActivityNet Captions", "Table 1 (ActivityNet Captions SumR 154.9)", features),
		u("Fig. 4: on TVR, Lorentz attention separates the frames of different moments (UMAP)",
			"Fig. 4 (TVR)", features+"; the Charades-STA analogue is tested (moment separation)"),
		u("Fig. 5: on TVR, clip embeddings lie nearest the origin, then text, then frames",
			"Fig. 5 (TVR)", features+"; the analogue is tested at the ablation scale"),
		u("Training cost and hyper-parameters of the official runs (100 epochs, batch 128 on an RTX 3090)",
			"Tables 3, 4", "a description of the authors' infrastructure, not a claim that a CPU run could test; our budgets are stated in each table"),
	}
}

// splitFile names the caption file of split ("train", "val", "test"; a split carved from train,
// "train-…", is train's) of the study's collection, or the setup's name for data without files.
func (s *Study) splitFile(split string) string {
	if s.Setup.Layout.Root == "" {
		return s.Setup.Name
	}
	if strings.HasPrefix(split, "train") {
		split = "train"
	}
	return s.Setup.Layout.CaptionFile(split)
}

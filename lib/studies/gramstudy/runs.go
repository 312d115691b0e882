package gramstudy

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/synth"
	"github.com/geoalign/geoalign/lib/data/tracks"
	"github.com/geoalign/geoalign/lib/encoders"
	"github.com/geoalign/geoalign/lib/models"
	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/geoalign/geoalign/lib/progress"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/runcache"
	"github.com/geoalign/geoalign/lib/runner"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute"
)

// Options size the studies. The zero value is the CI-sized configuration with the default seeds.
type Options struct {
	// Full selects the full configuration (more epochs, larger synthetic sets, 5 seeds).
	Full bool
	// Seeds (nil: 1, 2, 3 in CI, 1…5 in full runs).
	Seeds []int64
	// DataCache is where `make data` put the real tracks; "" is tracks.CacheDir (datasets/cache of
	// the checkout, also from notebooks/).
	DataCache string
	// Verbose shows a progress bar per training run (Progress: one bar per model over its seeds).
	Verbose, Progress bool
	// CacheDir, when set, keeps every run in a run directory (lib/runner) under CacheDir/<hash of
	// data, variant, epochs, seed>/ and reloads finished runs instead of training them again
	// (notebook cells run as separate programs and share trained models this way).
	CacheDir string
	// Backend (nil: lib/backend.MustNew()).
	Backend compute.Backend
	// Text is the encoder of the Tux Paint captions (zero value: GloVe; TuxPaintText): it
	// enters the dataset's name, hence the run keys and every result's data description.
	Text encoders.Text
	// FixedEpochs, when > 0, replaces Epochs' per-dataset budget (the cross-paper grid's tiny size).
	FixedEpochs int
	// Base, when set, is the base configuration of every variant (a tuple directory's `--config`,
	// OpenTuples): each variant's changes to gram.DefaultConfig are applied on top of it (Variant.on).
	Base *gram.Config
	// Tuples is the researcher's tuple directory the study runs on (OpenTuples; "": the tracks):
	// its runs name it as their data (runner.Source), and its tables carry the data's floors.
	Tuples string
	// PaperData names the paper's data set the tuples are (`--paper-data`): the tables then say
	// whether each row agrees with the paper's number (reproduce.AgreesWithPaper).
	PaperData string
}

// baseConfig is the base configuration of every variant: Base, else gram.DefaultConfig.
func (o Options) baseConfig() gram.Config {
	if o.Base != nil {
		return *o.Base
	}
	return gram.DefaultConfig()
}

func (o Options) seeds() []int64 {
	if len(o.Seeds) > 0 {
		return o.Seeds
	}
	if o.Full {
		return []int64{1, 2, 3, 4, 5}
	}
	return []int64{1, 2, 3}
}

func (o Options) backend() compute.Backend {
	if o.Backend != nil {
		return o.Backend
	}
	return backend.MustNew()
}

// Digits loads the FSDD digits set (class-level).
func (o Options) Digits() (*gram.Dataset, error) {
	return o.load(func(c string) (*gram.Dataset, error) { return gram.LoadDigits(c, 1) })
}

// TuxPaint loads the Tux Paint stamps set (instance-level).
func (o Options) TuxPaint() (*gram.Dataset, error) {
	return o.load(func(c string) (*gram.Dataset, error) { return TuxPaintText(c, o.Text) })
}

// load runs a loader on the data cache (Options.DataCache, else tracks.CacheDir).
func (o Options) load(loader func(cache string) (*gram.Dataset, error)) (*gram.Dataset, error) {
	return loader(cmp.Or(o.DataCache, tracks.CacheDir()))
}

// SyntheticConfig is the synthetic tri-modal benchmark of the studies: a concept tree of depth 3 and
// branching 4 (64 leaf concepts), 32-d modalities with a modality gap of 1 and noise 0.3, seed 1.
// richness is synth's RichnessLevels (0: every text names its leaf) and uninformativeAudio the
// fraction of audio clips that carry no concept.
func (o Options) SyntheticConfig(richness int, uninformativeAudio float64) synth.TriModalConfig {
	n := 3000
	if o.Full {
		n = 6000
	}
	return synth.TriModalConfig{Seed: 1, Depth: 3, Branching: 4, LatentDim: 16, LevelDecay: 0.6,
		Dims: [3]int{32, 32, 32}, N: n, RichnessLevels: richness, Gap: 1,
		Noise: [3]float64{0.3, 0.3, 0.3}, UninformativeAudio: uninformativeAudio}
}

// Synthetic draws the synthetic benchmark (SyntheticConfig), with a sixth of it as the test split.
func (o Options) Synthetic(richness int, uninformativeAudio float64) (*gram.Dataset, error) {
	cfg := o.SyntheticConfig(richness, uninformativeAudio)
	return gram.SyntheticTriModal(cfg, cfg.N/6)
}

// Sets loads the three tri-modal sets of the GRAM and HyperGRAM studies, in this order: FSDD
// digits, Tux Paint stamps and the synthetic set with 30 % uninformative audio — or, with
// syntheticOnly, the synthetic set alone. A missing or corrupt real set is a data.BadInput error
// (the command exits 2 naming the file).
func (o Options) Sets(syntheticOnly bool) ([]*gram.Dataset, error) {
	syn, err := o.Synthetic(0, 0.3)
	if err != nil || syntheticOnly {
		return []*gram.Dataset{syn}, err
	}
	digits, err := o.Digits()
	if err != nil {
		return nil, data.BadInput(err)
	}
	tux, err := o.TuxPaint()
	if err != nil {
		return nil, data.BadInput(err)
	}
	return []*gram.Dataset{digits, tux, syn}, nil
}

// Epochs is the number of training epochs for a dataset, chosen on the VALIDATION split (the
// tenth of the train split carved out by gram.CarveValidation; the test split chooses nothing) at
// the shared learning rate 1e-3 of gram.DefaultConfig, by the sweep lib/cmd/gramcurves: 20 for the
// Tux Paint stamps (docs/tuning.md §1.1), 3 for the FSDD digits (§1.2), 12 for the synthetic set (8
// in CI, §1.3). The trainer keeps the epoch of the best validation SumR, so a budget only has to
// reach the plateau; every full table's notes and learning-curve figure show the curves of its own
// runs (ConvergenceNotes).
func (o Options) Epochs(d *gram.Dataset) int {
	switch {
	case o.FixedEpochs > 0:
		return o.FixedEpochs
	case d.Train.N < 1000: // Tux Paint stamps, monolingual or multilingual
		return 20
	case d.Kind == report.Real: // FSDD digits: validation at its ceiling from epoch 1
		return 3
	case o.Full: // synthetic, full
		return 12
	}
	return 8 // synthetic, CI
}

// Variant is a row of a comparison: a model configuration, optionally continued from another
// trained configuration (GRAMFromCosine).
type Variant struct {
	Label  string
	Config gram.Config
	// WarmStart, when set, is trained first for the first half of the epochs; Config then trains
	// the second half starting from its encoders (models.WarmStarter: gram's Trainer.InitFrom).
	WarmStart *gram.Config
}

// Run is one trained model of a study.
type Run struct {
	Variant     Variant
	Data        *gram.Dataset
	Seed        int64
	Trainer     *gram.Trainer
	History     []gram.EpochStats // of the last stage
	WarmHistory []gram.EpochStats // of the warm-start stage (nil without WarmStart)
	Test        *gram.Embeddings
	Eval        gram.Evaluation // the model's own score on the test split
}

// Train trains variant v on d with one seed: cfg.Epochs = o.Epochs(d) (split in two with a warm
// start), cfg.Seed = seed, and evaluates the final model on the test split. evalEvery > 0 also
// evaluates during training (for learning curves and GRAM Fig. 3). Each stage is one models.Run
// (gram.NewRun of its whole configuration) trained by runner.Train into its own run directory, as
// `geoalign train gram` trains: <run cache dir>/run, and <run cache dir>/warm for v.WarmStart, from
// which the run starts (models.WarmStarter); a temporary directory without Options.CacheDir. The
// histories are the runs' train.Result records (1-based epochs).
func (o Options) Train(d *gram.Dataset, v Variant, seed int64, evalEvery int) (*Run, error) {
	epochs := o.Epochs(d)
	dir, err := o.runDir(d, v, seed, epochs, evalEvery)
	if err != nil {
		return nil, err
	}
	if dir == "" { // no run cache: a temporary run directory, which the trained model outlives
		if dir, err = os.MkdirTemp("", "gramstudy-run-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
	}
	run := &Run{Variant: v, Data: d, Seed: seed}
	cfg := v.Config
	cfg.Epochs, cfg.Seed, cfg.EvalEvery = epochs, seed, evalEvery
	var from *stage
	if v.WarmStart != nil {
		warm := *v.WarmStart
		warm.Epochs, warm.Seed, warm.EvalEvery = epochs/2, seed, evalEvery
		if from, err = o.trainStage(d, warm, filepath.Join(dir, "warm"), nil); err != nil {
			return nil, err
		}
		run.WarmHistory = from.history
		cfg.Epochs -= epochs / 2
	}
	final, err := o.trainStage(d, cfg, filepath.Join(dir, "run"), from)
	if err != nil {
		return nil, err
	}
	run.History = final.history
	run.Trainer = final.run.Trainer() // the trained model for the analyses: the selected epoch's weights
	if run.Test, err = run.Trainer.Embed(d.Test); err != nil {
		return nil, err
	}
	run.Eval, err = gram.Evaluate(o.backend(), run.Test, run.Trainer.ModelScore())
	return run, err
}

// stage is one trained models.Run of a study run, in its run directory.
type stage struct {
	run     *gram.Run
	dir     string
	history []gram.EpochStats
}

// trainStage trains cfg on d as one models.Run into dir (runner.Train; fresh, resumed, or finished
// and only reopened), warm-started from a previous stage when from is set.
func (o Options) trainStage(d *gram.Dataset, cfg gram.Config, dir string, from *stage) (*stage, error) {
	data := d
	if d.Val == nil && cfg.ValFraction > 0 { // the split the trainer would carve, made explicit: the run directory evaluates it
		c := *d
		var err error
		if c.Train, c.Val, err = gram.CarveValidation(d.Train, cfg.ValFraction); err != nil {
			return nil, fmt.Errorf("gramstudy: dataset %q: %w", d.Name, err)
		}
		data = &c
	}
	m, err := gram.NewRun(o.backend(), cfg, data, nil)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(struct{ Model gram.Config }{cfg}) // `geoalign train gram`'s configuration
	if err != nil {
		return nil, err
	}
	// The tracks' sets are in memory: the Source is empty and config.json's notes name them. A
	// tuple directory's whole set is what `geoalign train gram --data` reads: the run names it, so
	// that `geoalign eval --run` opens it (a modality subset stays in memory).
	spec := runner.Spec{Model: "gram", Config: raw, Notes: []string{"data: " + d.Name}}
	if o.Tuples != "" && d.Name == o.Tuples {
		spec.Data = runner.Source{Dir: o.Tuples}
	}
	if from != nil {
		if err := m.WarmStart(from.run); err != nil {
			return nil, err
		}
		if spec.From, err = runner.FromDir(from.dir); err != nil {
			return nil, err
		}
	}
	res, err := runner.Train(dir, spec, m, models.Output{Quiet: !o.Verbose})
	if err != nil {
		return nil, err
	}
	h, err := History(res.Result)
	return &stage{run: m, dir: dir, history: h}, err
}

// History is a gram run's epoch statistics, one per record of its train.Result (1-based epochs;
// each record's Extra holds its gram.EpochStats).
func History(res *train.Result) ([]gram.EpochStats, error) {
	h := make([]gram.EpochStats, len(res.Records))
	for i, r := range res.Records {
		if err := json.Unmarshal(r.Extra, &h[i]); err != nil {
			return nil, fmt.Errorf("gramstudy: epoch %d of the training history: %w", r.Epoch, err)
		}
	}
	return h, nil
}

// TrainSeeds trains v on d once per seed.
func (o Options) TrainSeeds(d *gram.Dataset, v Variant, evalEvery int) ([]*Run, error) {
	var runs []*Run
	var bar *progress.Bar
	if o.Progress {
		bar = progress.New(fmt.Sprintf("%s on %s", v.Label, barName(d)), len(o.seeds()))
		defer bar.Done()
	}
	for _, s := range o.seeds() {
		r, err := o.Train(d, v, s, evalEvery)
		if err != nil {
			return nil, fmt.Errorf("%s on %s, seed %d: %w", v.Label, d.Name, s, err)
		}
		runs = append(runs, r)
		if bar != nil {
			bar.Add(1, fmt.Sprintf("seed %d: T→V+A R@1 %.1f", s, r.Eval.T2V.R(1)))
		}
	}
	return runs, nil
}

// barName is the data set a progress bar names: its short name, with the "[modalities]" of a
// modality subset (Options.trainSubset), e.g. "Tux Paint multilingual [k = 3]".
func barName(d *gram.Dataset) string {
	name, subset := d.Name, ""
	// The subset is the name's last bracket; a set's own description may hold brackets too
	// ("noise [0.3 0.3 0.3]"), inside its parentheses.
	if i := strings.LastIndex(name, " ["); i >= 0 && strings.HasSuffix(name, "]") {
		name, subset = name[:i], name[i:]
	}
	short, _, _ := strings.Cut(name, " (")
	return short + subset
}

// runDir is the run-cache directory of one run ("" without Options.CacheDir): lib/runcache's key of
// the full configuration (variant, warm start, epochs, evaluation cadence), a fingerprint of the
// dataset's content, the seed, and the source of lib/models/gram and lib/train — so a change to any
// of them trains anew, and nothing needs a hand-bumped version.
func (o Options) runDir(d *gram.Dataset, v Variant, seed int64, epochs, evalEvery int) (string, error) {
	if o.CacheDir == "" {
		return "", nil
	}
	cfg := v.Config
	cfg.Quiet, cfg.CheckpointDir, cfg.CheckpointKeep = false, "", 0
	spec, err := runcache.NewSpec("gram", struct {
		Config    gram.Config
		WarmStart *gram.Config
		Epochs    int
		EvalEvery int
	}{cfg, v.WarmStart, epochs, evalEvery}, fingerprint(d), seed,
		runcache.Module+"/lib/models/gram", runcache.Module+"/lib/train")
	if err != nil {
		return "", err
	}
	return runcache.Open(o.CacheDir, spec)
}

// fingerprint is the sha256 of a dataset's name and content: every split's sizes, features, labels
// and attributes (relevance is a function of the labels).
func fingerprint(d *gram.Dataset) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s|%s|%v|", d.Name, d.Kind, d.Modalities)
	for _, sp := range []*gram.Split{d.Train, d.Val, d.Test} {
		if sp == nil {
			h.Write([]byte("none|"))
			continue
		}
		fmt.Fprintf(h, "%d|%v|%v|%t|", sp.N, sp.Dims, sp.Labels, sp.Relevant != nil)
		for _, f := range sp.Features {
			binary.Write(h, binary.LittleEndian, f)
		}
		for _, k := range slices.Sorted(maps.Keys(sp.Attributes)) {
			fmt.Fprintf(h, "%s|", k)
			binary.Write(h, binary.LittleEndian, sp.Attributes[k])
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// The model variants the studies compare.
var (
	GRAM     = Variant{Label: "GRAM", Config: gram.DefaultConfig()}
	Pairwise = Variant{Label: "pairwise cosine", Config: gram.PairwiseConfig()}
	// GRAMFromCosine is GRAM's own recipe: half the epochs with the pairwise-cosine loss (the VAST
	// stage), then the volume loss from those encoders.
	GRAMFromCosine = Variant{Label: "GRAM (cosine → volume)", Config: gram.DefaultConfig(), WarmStart: new(gram.PairwiseConfig())}
	HyperGRAM      = Variant{Label: "HyperGRAM", Config: gram.HyperGRAMConfig()}
	// FixedAlphaHyperGRAM is HyperGRAM's mixture with α held at its initial 0.5 (not learned).
	FixedAlphaHyperGRAM = Variant{Label: "HyperGRAM, α fixed at 0.5", Config: func() gram.Config {
		c := gram.HyperGRAMConfig()
		c.FixedAlpha = true
		return c
	}()}
	// Ensemble is not trained: the average of the GRAM and pure hyperbolic models' −volume scores
	// (Options.Geometries builds its runs).
	Ensemble       = Variant{Label: "ensemble of GRAM and pure hyperbolic (scores averaged)"}
	PureHyperbolic = Variant{Label: "pure hyperbolic", Config: func() gram.Config {
		c := gram.DefaultConfig()
		c.Geometry = gram.Hyperbolic
		return c
	}()}
)

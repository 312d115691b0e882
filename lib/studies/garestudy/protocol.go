package garestudy

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/models"
	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/geoalign/geoalign/lib/runcache"
	"github.com/geoalign/geoalign/lib/runner"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute"
)

// Protocol is how every GARE result here is trained, mirroring the paper's setting on features
// we can have: the paper fine-tunes from CLIP, whose text and video embeddings are already
// aligned; ψ is new and the backbone barely moves (lr 1e-7 = 1e-3 × the lr of the new modules,
// docs/official-code.md §4.4). We have no CLIP, so
//
//  1. stage 1 ("pretraining", once per seed, shared by every variant): the baseline — input
//     projections + temporal transformer, InfoNCE on the text-conditioned pooled video — trained
//     PretrainEpochs epochs at PretrainLR on the training pairs; its encoders play CLIP's part;
//  2. stage 2 (per variant and seed): the variant's model starts from those encoders, ψ from the
//     code's N(0, 0.02) initialisation, and trains Base.Epochs epochs with the code's recipe
//     (BertAdam, warmup_cosine, clipping, wd 0.2) at Base.LearningRate for ψ and the temporal
//     transformer and Base.ProjectionLearningRate (1e-3 × that, as the code treats CLIP) for the
//     projections. The baseline row is stage 2 without Δ, so every row gets the same steps.
//
// Both stages select on the validation split: Base.ValFraction (10 %) of the training pairs, carved
// out by data.CarveValidation (a fixed permutation, so the two stages hold out the same pairs and
// stage 1 never trains on stage 2's validation pairs). After every epoch the loop evaluates
// text→video SumR on it (retrieval.ValMetric) and keeps the best epoch's model, which is what stage 2
// starts from and what Run evaluates, once, on the test split (the official code instead keeps the
// checkpoint with the best test R@1, docs/official-code.md §4.4; the tables' notes say so). Every Result carries
// both stages' learning curves (train loss and validation metrics per epoch, lib/train's records).
//
// Our stage-2 learning rate (1e-3 at the full scale) is 10× the code's 1e-4 because we train a few
// hundred steps where the code trains ~7,000 (5 epochs of 180k MSR-VTT pairs at batch 128); the
// epochs and rates of the full scale were chosen on the validation split (FullScale).
type Protocol struct {
	Base           gare.Config
	PretrainEpochs int
	PretrainLR     float64
	Seeds          []int64

	// CacheDir, when set, keeps every run on disk — each stage of each variant × seed a run
	// directory of lib/runner (what `geoalign train gare` writes: config.json with its record,
	// checkpoints, history.json, curves.png; stage 2's config.json names its stage 1 as "from") —
	// and every run's test result, so that separate processes (notebook cells, a resumed `make
	// figures`) reuse or resume them instead of training again. Keys hash the configuration, the
	// data and the seed. Without it the run directories go to a temporary directory (Close).
	CacheDir string

	pretrained map[runKey]*Fitted
	results    map[runKey]*Result
	scratch    string // the run directories' root without CacheDir (runDir)
	// PretrainSeconds accumulates the time spent in stage 1 (in this process).
	PretrainSeconds float64
}

// StudyStep is the training step of every GARE run of the study: the single-graph step, which
// trained the committed results (figures/gare). The chunked step (Model.Train's default, a quarter
// of the memory) computes the same gradient but draws ψ's dropout from another random stream, so
// the study keeps the step its cache keys and tables were made with: a rerun from scratch then
// reproduces them bit for bit.
const StudyStep = gare.SingleGraphStep

// cacheKey names a cached item: lib/runcache's key of everything that determines it — the kind of
// item, the full configuration with the pretraining schedule, a fingerprint of the data's content,
// the seed, and the source of lib/models/gare and lib/train (a code change trains anew) — under
// CacheDir ("" without one).
func (p *Protocol) cacheKey(kind string, cfg gare.Config, d, test *gare.Dataset, seed int64) (string, error) {
	if p.CacheDir == "" {
		return "", nil
	}
	return p.key(p.CacheDir, kind, cfg, d, test, seed)
}

// runDir is the run directory (lib/runner) of a training stage: its cacheKey, or without CacheDir
// the same key under a temporary directory of this Protocol (Close removes it).
func (p *Protocol) runDir(kind string, cfg gare.Config, d *gare.Dataset, seed int64) (string, error) {
	root := p.CacheDir
	if root == "" {
		if p.scratch == "" {
			dir, err := os.MkdirTemp("", "garestudy-runs-")
			if err != nil {
				return "", err
			}
			p.scratch = dir
		}
		root = p.scratch
	}
	return p.key(root, kind, cfg, d, nil, seed)
}

// Close removes the temporary run directories of a Protocol without CacheDir (nothing otherwise).
func (p *Protocol) Close() error {
	if p.scratch == "" {
		return nil
	}
	err := os.RemoveAll(p.scratch)
	p.scratch, p.pretrained, p.results = "", nil, nil
	return err
}

// key is cacheKey under root.
func (p *Protocol) key(root, kind string, cfg gare.Config, d, test *gare.Dataset, seed int64) (string, error) {
	data := fingerprint(d)
	if test != nil {
		data += "+" + fingerprint(test)
	}
	spec, err := runcache.NewSpec("gare", struct {
		Kind           string
		Config         gare.Config
		PretrainEpochs int
		PretrainLR     float64
	}{kind, cfg, p.PretrainEpochs, p.PretrainLR}, data, int64(seed),
		runcache.Module+"/lib/models/gare", runcache.Module+"/lib/train")
	if err != nil {
		return "", err
	}
	dir, err := runcache.Open(root, spec)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, kind), nil
}

// fingerprint is the sha256 of a dataset's name, sizes and every feature, mask and index it holds.
func fingerprint(d *gare.Dataset) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s|%s|%d|%d|%d|%d|%d|%d|%v|%v|", d.Name, d.Kind, d.NumTexts, d.NumVideos, d.TextDim, d.VideoDim,
		d.Frames, d.Words, d.VideoOf, d.Concept)
	for _, x := range [][]float32{d.Text, d.WordFeats, d.WordMask, d.Video, d.FrameMask} {
		binary.Write(h, binary.LittleEndian, x)
		h.Write([]byte{'|'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// runKey identifies a run in memory (a stage-1 run: no configuration and no test split).
type runKey struct {
	cfg         gare.Config
	train, test *gare.Dataset
	seed        int64
}

// memo is (*m)[k] or, the first time, build's value, kept there when build succeeds.
func memo[K comparable, V any](m *map[K]V, k K, build func() (V, error)) (V, error) {
	if v, ok := (*m)[k]; ok {
		return v, nil
	}
	v, err := build()
	if err == nil {
		if *m == nil {
			*m = map[K]V{}
		}
		(*m)[k] = v
	}
	return v, err
}

// Pretrained returns the stage-1 model of seed on d (trained once, then cached).
func (p *Protocol) Pretrained(b compute.Backend, d *gare.Dataset, seed int64) (*gare.Model, error) {
	s, err := p.pretrain(b, d, seed)
	if err != nil {
		return nil, err
	}
	return s.Model, nil
}

// PretrainConfig is the stage-1 configuration: the baseline of Base (no Δ, no ψ dropout) trained
// PretrainEpochs epochs at PretrainLR, its projections at the same rate.
func (p *Protocol) PretrainConfig() gare.Config {
	cfg := gare.BaselineConfig(p.Base)
	cfg.Epochs, cfg.LearningRate, cfg.ProjectionLearningRate = p.PretrainEpochs, p.PretrainLR, 0
	cfg.PsiDropout = 0
	return cfg
}

// pretrain is stage 1 of seed on d (its model and Curve; no PretrainCurve): a run directory of the
// cache, trained once (or resumed), then kept in memory.
func (p *Protocol) pretrain(b compute.Backend, d *gare.Dataset, seed int64) (*Fitted, error) {
	return memo(&p.pretrained, runKey{train: d, seed: seed}, func() (*Fitted, error) {
		cfg := p.PretrainConfig()
		dir, err := p.runDir("pretrained", cfg, d, seed)
		if err != nil {
			return nil, err
		}
		run, err := newRun(b, cfg, seed+pretrainSeedOffset, 0, d, nil)
		if err != nil {
			return nil, err
		}
		f, err := fit(dir, run, nil, models.Output{Quiet: true})
		if err != nil {
			return nil, fmt.Errorf("pretraining (seed %d): %w", seed, err)
		}
		p.PretrainSeconds += f.Seconds
		f.dir = dir
		return f, nil
	})
}

// newRun is cfg as a gare.Run (gare.NewRun) initialised and ordered by seed, stepping with
// textChunk (gare.Training.TextChunk), on d's pairs less the validation pairs: its "val" split
// is Config.ValFraction of d carved out by data.CarveValidation (the split gare.Model.NewTrainer
// carves: the same pairs in both stages), its "test" split test (nil: none).
func newRun(b compute.Backend, cfg gare.Config, seed int64, textChunk int, d, test *gare.Dataset) (*gare.Run, error) {
	keep, held, err := data.CarveValidation(d.NumTexts, cfg.ValFraction)
	if err != nil {
		return nil, fmt.Errorf("gare: dataset %q: %w", d.Name, err)
	}
	splits := map[string]*gare.Dataset{"train": d.Subset(d.Name+" (trained on)", keep), "val": d.Subset(d.Name+" (validation)", held)}
	if test != nil {
		splits["test"] = test
	}
	load := func(split string) (*gare.Dataset, error) {
		if s, ok := splits[split]; ok {
			return s, nil
		}
		return nil, fmt.Errorf("gare study: no %q split (train, val, test)", split)
	}
	rc := gare.RunConfig{Model: cfg, Training: gare.Training{Seed: seed, Patience: cfg.Patience, ValFraction: cfg.ValFraction, TextChunk: textChunk}}
	return gare.NewRun(b, rc, splits["train"], load, nil)
}

// fit trains run in the run directory dir through the one contract (runner.Train: what `geoalign
// train gare` writes, resumed when dir holds the run; from names a warm start's source; out shows
// it), then
// loads the best validation's checkpoint into it, and returns it with the loop's records, one per
// epoch, and the wall time of this call in seconds.
func fit(dir string, run *gare.Run, from *runner.From, out models.Output) (*Fitted, error) {
	start := time.Now()
	raw, err := json.Marshal(run.Config())
	if err != nil {
		return nil, err
	}
	res, err := runner.Train(dir, runner.Spec{Model: "gare", Config: raw, Notes: run.Notes(), From: from}, run, out)
	if err != nil {
		return nil, err
	}
	if err := runner.LoadBest(dir, run); err != nil {
		return nil, err
	}
	return &Fitted{Model: run.Model(), Curve: res.Records, Seconds: time.Since(start).Seconds(), run: run}, nil
}

// pretrainSeedOffset separates stage 1's random streams from stage 2's.
const pretrainSeedOffset = 1000

// Run trains cfg from the pretrained encoders of seed and evaluates it on test. Results are cached
// by (configuration, data, seed), so a row shared by several tables (the code's configuration) is
// trained once; the trained model is kept for the first seed of the protocol.
func (p *Protocol) Run(b compute.Backend, cfg gare.Config, d, test *gare.Dataset, seed int64) (*Result, error) {
	return memo(&p.results, runKey{cfg, d, test, seed}, func() (*Result, error) {
		first := len(p.Seeds) > 0 && seed == p.Seeds[0]
		base, err := p.cacheKey("result", cfg, d, test, seed)
		if err != nil {
			return nil, err
		}
		if base != "" {
			base += ".result"
		}
		var f *Fitted
		o, err := runcache.Memo(base, func() (Outcome, error) {
			if f, err = p.fit(b, cfg, d, test, seed); err != nil {
				return Outcome{}, err
			}
			start := time.Now()
			ev, err := f.run.Evaluate("test", true)
			if err != nil {
				return Outcome{}, err
			}
			return Outcome{Seed: seed, Report: ev.Result.Report, Curve: f.Curve, PretrainCurve: f.PretrainCurve,
				Seconds: f.Seconds + time.Since(start).Seconds()}, nil
		})
		if err != nil || !first {
			return &Result{Outcome: o}, err
		}
		if f == nil { // the outcome was cached: the model is its run directory's best checkpoint
			if f, err = p.fit(b, cfg, d, test, seed); err != nil {
				return nil, err
			}
		}
		return &Result{Outcome: o, Model: f.Model}, nil
	})
}

// Fitted is a model trained under the protocol, before any test: stage 2's best validation epoch's
// model and both stages' learning curves.
type Fitted struct {
	Model                *gare.Model
	Curve, PretrainCurve []train.Record
	Seconds              float64 // stage 2's training

	run *gare.Run // the run that trained Model
	dir string    // its run directory
}

// Fit trains cfg on d from the pretrained encoders of seed (stage 1, trained or loaded first) and
// returns the model of its best validation epoch; nothing here sees a test split (Run evaluates the
// result; the tuning sweep, lib/cmd/garetune, reads only the curves).
func (p *Protocol) Fit(b compute.Backend, cfg gare.Config, d *gare.Dataset, seed int64) (*Fitted, error) {
	return p.fit(b, cfg, d, nil, seed)
}

// fit is Fit with test as the run's "test" split (nil: none): stage 2 in its run directory
// (keyed without test).
func (p *Protocol) fit(b compute.Backend, cfg gare.Config, d, test *gare.Dataset, seed int64) (*Fitted, error) {
	dir, err := p.runDir("stage2", cfg, d, seed)
	if err != nil {
		return nil, err
	}
	return p.stage2(b, cfg, d, test, seed, dir, models.Output{Quiet: true}, nil)
}

// stage2 trains cfg on d into the run directory dir (resumed if it holds the run), warm-started
// from the stage-1 encoders of seed (models.WarmStarter; Spec.From names stage 1's directory),
// after applying observe to the run (nil: none); test is its "test" split (nil: none).
func (p *Protocol) stage2(b compute.Backend, cfg gare.Config, d, test *gare.Dataset, seed int64, dir string, out models.Output,
	observe func(*gare.Run)) (*Fitted, error) {
	pre, err := p.pretrain(b, d, seed)
	if err != nil {
		return nil, err
	}
	run, err := newRun(b, cfg, seed, StudyStep, d, test)
	if err != nil {
		return nil, err
	}
	if err := run.WarmStart(pre.run); err != nil {
		return nil, err
	}
	if observe != nil {
		observe(run)
	}
	from, err := runner.FromDir(pre.dir)
	if err != nil {
		return nil, err
	}
	f, err := fit(dir, run, from, out)
	if err != nil {
		return nil, err
	}
	f.PretrainCurve = pre.Curve
	return f, nil
}

// observed is stage 2 of cfg (seed) on d trained from scratch in dir (anything there is removed
// first: observations need an uninterrupted run), observed by fn(model, step) every `every`
// steps (gare.Run.Observe; fn nil: a record every `every` steps, nothing else).
func (p *Protocol) observed(b compute.Backend, cfg gare.Config, d *gare.Dataset, seed int64, dir string, out models.Output,
	every int, fn func(m *gare.Model, step int) error) (*Fitted, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	return p.stage2(b, cfg, d, nil, seed, dir, out, func(run *gare.Run) {
		run.Observe(every, func(step int) error {
			if fn == nil {
				return nil
			}
			return fn(run.Model(), step)
		})
	})
}

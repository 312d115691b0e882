package wordnetbench

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/geoalign/geoalign/lib/data/wordnet"
	"github.com/geoalign/geoalign/lib/hierarchy"
	"github.com/geoalign/geoalign/lib/models"
	"github.com/geoalign/geoalign/lib/rundir"
	"github.com/geoalign/geoalign/lib/runner"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
)

// Closure names accepted by LoadClosure.
const (
	Mammal = "mammal"
	Noun   = "noun"
)

// LoadClosure builds the named closure ("mammal" or "noun") from the WordNet database in
// wordnetDir (wordnet.DefaultDir when empty), reading the mammal filter from filterPath
// (wordnet.DefaultMammalFilter when empty). It also returns a one-line description for tables.
func LoadClosure(name, wordnetDir, filterPath string) (*wordnet.Closure, string, error) {
	nouns, err := wordnet.Load(wordnetDir)
	if err != nil {
		return nil, "", err
	}
	c := wordnet.NounClosure(nouns)
	switch name {
	case Noun:
		return c, fmt.Sprintf("WordNet 3.0 noun closure (Debian wordnet-base; NLTK-equivalent transitive closure): %d nodes, %d edges",
			c.NumNodes(), c.NumEdges()), nil
	case Mammal:
		filter, err := wordnet.ReadMammalFilter(filterPath)
		if err != nil {
			return nil, "", err
		}
		m, err := wordnet.MammalClosure(c, filter)
		if err != nil {
			return nil, "", err
		}
		return m, fmt.Sprintf("WordNet 3.0 mammal closure (Debian wordnet-base; upstream Makefile grep + mammals_filter.txt): %d nodes, %d edges",
			m.NumNodes(), m.NumEdges()), nil
	}
	return nil, "", fmt.Errorf("wordnetbench: unknown closure %q (want %q or %q)", name, Mammal, Noun)
}

// Options select the runs: every combination of Models × Dims × DTypes × Seeds.
type Options struct {
	Models []hierarchy.Manifold
	Dims   []int
	DTypes []dtypes.DType
	Seeds  []int64
	// Preset is "paper" (hierarchy.PaperConfig, the default) or "code" (OfficialCodeConfig).
	Preset string
	// Adjust, when set, edits each run's configuration after the preset (epochs, lr, ...).
	Adjust func(*hierarchy.Config)
	// CheckpointDir, when set, keeps one run directory per run there (RunDir: lib/runner's run
	// directory, a checkpoint every epoch); a run whose directory holds a checkpoint continues from
	// it (a finished run is only re-evaluated).
	CheckpointDir string
	// EvalSample > 0 evaluates a fixed random sample of that many nodes (the noun closure's
	// 82,115 × 82,115 distances take long on two cores); 0 evaluates every node.
	EvalSample int
	Quiet      bool      // no progress bars
	Log        io.Writer // one line per finished run (os.Stderr when nil)
}

// Run is one finished training run.
type Run struct {
	Config       hierarchy.Config
	Result       hierarchy.Reconstruction
	TrainSeconds float64 // training wall time, the sum of the epochs' times (across resumptions)
	EvalSeconds  float64
	Loss         []float64 // mean training loss per epoch (hierarchy.EpochStats.Loss), epoch 1 first
	MaxDeviation float64   // largest |c⟨x,x⟩_L + 1| after any exponential-map step (Lorentz)
	Emb          *hierarchy.Embedding
}

// FinalLoss is the mean training loss of the run's last epoch (0 before any epoch).
func (r Run) FinalLoss() float64 {
	if len(r.Loss) == 0 {
		return 0
	}
	return r.Loss[len(r.Loss)-1]
}

// Results of a benchmark.
type Results struct {
	ClosureName string
	Closure     *wordnet.Closure
	Description string
	Preset      string
	EvalSample  int // Options.EvalSample: > 0 when only a sample of nodes was evaluated
	Runs        []Run
}

// Config is the configuration of one run under the options' preset and adjustment.
func (o Options) Config(m hierarchy.Manifold, dim int, dt dtypes.DType, seed int64) hierarchy.Config {
	cfg := hierarchy.PaperConfig(m, dim)
	if o.Preset == "code" {
		cfg = hierarchy.OfficialCodeConfig(m, dim)
	}
	cfg.DType, cfg.Seed = dt, seed
	if o.Adjust != nil {
		o.Adjust(&cfg)
	}
	return cfg
}

// RunAll trains and evaluates every configuration of opts on the closure.
func RunAll(backend compute.Backend, closureName string, c *wordnet.Closure, description string, opts Options) (*Results, error) {
	if opts.Preset != "" && opts.Preset != "paper" && opts.Preset != "code" {
		return nil, fmt.Errorf("wordnetbench: Options.Preset %q, want \"paper\" or \"code\"", opts.Preset)
	}
	if len(opts.Models) == 0 || len(opts.Dims) == 0 || len(opts.DTypes) == 0 || len(opts.Seeds) == 0 {
		return nil, fmt.Errorf("wordnetbench: Options need at least one model, dim, dtype and seed")
	}
	log := opts.Log
	if log == nil {
		log = os.Stderr
	}
	res := &Results{ClosureName: closureName, Closure: c, Description: description, Preset: opts.Preset}
	if opts.EvalSample > 0 && opts.EvalSample < c.NumNodes() {
		res.EvalSample = opts.EvalSample
	}
	if res.Preset == "" {
		res.Preset = "paper"
	}
	var sample []int32
	if opts.EvalSample > 0 && opts.EvalSample < c.NumNodes() {
		sample = evalSample(c, opts.EvalSample)
	}
	for _, m := range opts.Models {
		for _, dim := range opts.Dims {
			for _, dt := range opts.DTypes {
				for _, seed := range opts.Seeds {
					run, err := runOne(backend, closureName, c, description, opts.Config(m, dim, dt, seed), opts, sample)
					if err != nil {
						return res, err
					}
					fmt.Fprintf(log, "%s %s d=%d %s seed %d: MR %.3f MAP %.4f (train %.1f s, eval %.1f s, final loss %.4f)\n",
						closureName, m, dim, dtypeName(dt), seed, run.Result.MeanRank, run.Result.MAP,
						run.TrainSeconds, run.EvalSeconds, run.FinalLoss())
					res.Runs = append(res.Runs, run)
				}
			}
		}
	}
	return res, nil
}

func runOne(backend compute.Backend, closureName string, c *wordnet.Closure, description string, cfg hierarchy.Config, opts Options, sample []int32) (Run, error) {
	m, err := hierarchy.NewRun(backend, c, cfg, hierarchy.RunEval{Sample: sample})
	if err != nil {
		return Run{}, err
	}
	run, err := trainOne(m, cfg, closureName, description, opts)
	if err != nil {
		return run, err
	}
	start := time.Now()
	s, err := m.Score("train")
	run.Result, run.EvalSeconds = s.Reconstruction, time.Since(start).Seconds()
	return run, err
}

// trainOne trains m, the run of cfg, in its run directory under opts.CheckpointDir (RunDir; in
// memory without one) and returns it unevaluated; description names the closure in the run
// directory's config.json.
func trainOne(m *hierarchy.Run, cfg hierarchy.Config, closureName, description string, opts Options) (Run, error) {
	dir, name := "", RunDir("", closureName, cfg)
	if opts.CheckpointDir != "" {
		dir = RunDir(opts.CheckpointDir, closureName, cfg)
	}
	if err := trainRun(m, dir, models.Output{Quiet: opts.Quiet, Label: name}, description); err != nil {
		return Run{}, err
	}
	run := Run{Config: cfg}
	var err error
	if run.Emb, err = m.Embedding(); err != nil {
		return Run{}, err
	}
	for _, s := range m.History() {
		run.MaxDeviation = max(run.MaxDeviation, s.MaxDeviation)
		run.TrainSeconds += s.Seconds
		run.Loss = append(run.Loss, s.Loss)
	}
	return run, nil
}

// trainRun trains m in memory (dir "") or in the run directory dir through lib/runner.Train — what
// `geoalign train` writes: config.json (m's hierarchy.Run.Identity; the closure's description in
// its notes), lock, resume, history.json, curves.png. A directory holding a run trained before the
// benchmark trained through lib/runner (checkpoints, no config.json) resumes as it is.
func trainRun(m *hierarchy.Run, dir string, out models.Output, description string) error {
	if dir == "" {
		_, err := m.Train(out)
		return err
	}
	empty, err := rundir.IsEmpty(dir)
	if err != nil {
		return err
	}
	if _, errConfig := os.Stat(filepath.Join(dir, runner.ConfigFile)); !empty && errConfig != nil {
		out.Dir = dir
		_, err := m.Train(out)
		return err
	}
	raw, err := m.Identity()
	if err != nil {
		return err
	}
	_, err = runner.Train(dir, runner.Spec{Model: hierarchy.ModelName, Config: raw, Notes: []string{"data: " + description}}, m, out)
	return err
}

// RunDir is the run directory RunAll gives a run under dir:
// <dir>/<closure>_<model>_d<dim>_<dtype>[_cone<λ>]_seed<seed>, the cone part when
// Config.ConeWeight > 0 (read its embedding with hierarchy.LoadEmbedding).
func RunDir(dir, closureName string, cfg hierarchy.Config) string {
	cone := ""
	if cfg.ConeWeight > 0 {
		cone = fmt.Sprintf("_cone%g", cfg.ConeWeight)
	}
	return filepath.Join(dir, fmt.Sprintf("%s_%s_d%d_%s%s_seed%d", closureName, cfg.Manifold, cfg.Dim, dtypeName(cfg.DType), cone, cfg.Seed))
}

// evalSample draws a fixed sample (seed 42, like reconstruction.py) of nodes that have parents.
func evalSample(c *wordnet.Closure, n int) []int32 {
	anc := c.Ancestors()
	var candidates []int32
	for u, a := range anc {
		if a > 0 {
			candidates = append(candidates, int32(u))
		}
	}
	rng := rand.New(rand.NewPCG(42, 42))
	rng.Shuffle(len(candidates), func(i, j int) { candidates[i], candidates[j] = candidates[j], candidates[i] })
	out := slices.Clone(candidates[:min(n, len(candidates))])
	slices.Sort(out)
	return out
}

func dtypeName(dt dtypes.DType) string {
	if dt == dtypes.Float32 {
		return "float32"
	}
	return "float64"
}

// ParseDType accepts "float32" or "float64".
func ParseDType(s string) (dtypes.DType, error) {
	switch s {
	case "float32":
		return dtypes.Float32, nil
	case "float64":
		return dtypes.Float64, nil
	}
	return dtypes.InvalidDType, fmt.Errorf("wordnetbench: dtype %q, want float32 or float64", s)
}

package hlformerstudy

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/geoalign/geoalign/lib/data/charades"
	"github.com/geoalign/geoalign/lib/data/glove"
	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/data/synth"
	"github.com/geoalign/geoalign/lib/data/tracks"
	"github.com/geoalign/geoalign/lib/encoders"
	"github.com/geoalign/geoalign/lib/models"
	"github.com/geoalign/geoalign/lib/models/hlformer"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/runcache"
	"github.com/geoalign/geoalign/lib/runner"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/ml/model"
)

// Setup is a PRVR benchmark: train, validation and test splits with their provenance.
type Setup struct {
	Name string
	// Train and Val partition the released training split by video (prvr.CarveValidation with
	// prvr.ValidationFraction): models are trained on Train and selected (best
	// epoch, early stopping, learning rate) on Val; Test is only evaluated, never used for a choice.
	Train, Val, Test *prvr.Split
	Data             string          // provenance line for tables
	Kind             report.DataKind // label-derived (Charades) or synthetic
	// Floors and ValFloors are the zero-training baselines on Test and on Val (Charades only), by name.
	Floors, ValFloors map[string]retrieval.Metrics
	// Text is the encoder of the query tokens (zero value: GloVe). It enters the run keys (runDir),
	// Name and Data; with MiniLM the floor is random ranking (FloorsOn).
	Text encoders.Text
	// Layout is the collection the setup was loaded from (LoadCollection; zero for synthetic data).
	Layout prvr.Layout
	// Cache and Shared locate the Charades files: the track cache and the staged annotations (for
	// floors, moment times and lib/search's action names).
	Cache, Shared string
}

// CharadesData describes the Charades-STA track in every table.
const CharadesData = "Charades-STA PRVR, official MS-SL split (train 12,408 queries / 5,338 videos; test 3,720 / 1,334; " +
	"the distributed val is the test split, so 10 % of the train videos, seeded, are held out for validation: " +
	"train 4,804 videos, val 534); LABEL-DERIVED video features (per-frame multi-hot of the 157 annotated " +
	"Charades actions ⊕ mean GloVe of their names, 2 fps; not I3D) and GloVe-100d query tokens (not RoBERTa)"

// charadesGloVeTokens ends CharadesData: the query tokens' encoder, which CharadesDataText replaces.
const charadesGloVeTokens = "GloVe-100d query tokens (not RoBERTa)"

// CharadesDataText is CharadesData with the query tokens of encoder t.
func CharadesDataText(t encoders.Text) string {
	if t == encoders.GloVe {
		return CharadesData
	}
	return strings.TrimSuffix(CharadesData, charadesGloVeTokens) + t.Describe() +
		" query tokens (its last hidden states, 384-d, one per WordPiece token with [CLS] and [SEP], truncated to 30 as the code's max_desc_l; not RoBERTa)"
}

// LoadCharadesSTAText loads the Charades-STA PRVR track built by `geoalign data build` under cache
// (the staged annotations under shared are needed for the zero-training floors and moment times)
// with the query tokens of encoder t: GloVe (the charades track) or MiniLM (the minilm track,
// tracks.CharadesMiniLMLayout). The setup's Name says which when it is not GloVe ("charades-sta,
// MiniLM all-MiniLM-L6-v2 text").
func LoadCharadesSTAText(cache, shared string, t encoders.Text) (*Setup, error) {
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("hlformer: %w", err)
	}
	setup, err := LoadCollection(tracks.CharadesTextLayout(cache, tracks.CharadesSTACollection, t))
	if err != nil {
		return nil, fmt.Errorf("hlformer: Charades-STA (run `make data`): %w", err)
	}
	name := "charades-sta"
	if t != encoders.GloVe {
		name += ", " + t.Describe()
	}
	setup.Name, setup.Data, setup.Kind, setup.Text, setup.Cache, setup.Shared = name, CharadesDataText(t), report.LabelDerived, t, cache, shared
	return setup, nil
}

// SyntheticData describes the synthetic benchmark in every table.
const SyntheticData = "synthetic PRVR (lib/data/synth.GeneratePRVR): untrimmed videos as sequences of 2–5 moments of " +
	"leaf concepts of a depth-3 hierarchy, each query describing one moment (partial relevance); 3/4 of the videos train " +
	"(10 % of them held out for validation), 1/4 test"

// SyntheticSetup generates a synthetic PRVR world of the given size (lib/data/synth) and cuts it into
// train (3/4 of the videos, of which prvr.ValidationFraction is held out for validation) and test videos.
func SyntheticSetup(seed uint64, videos int) (*Setup, error) {
	s, _, err := synth.GeneratePRVR(synth.PRVRConfig{Seed: seed, Depth: 3, Branching: 4, LatentDim: 16, LevelDecay: 0.6,
		Videos: videos, MomentsMin: 2, MomentsMax: 5, FramesMin: 4, FramesMax: 16, FrameDim: 64, QueryDim: 48,
		QueriesPerVideo: 2, QueryTokens: 8, FrameNoise: 0.3, TokenNoise: 0.3})
	if err != nil {
		return nil, err
	}
	idx := make([]int, videos)
	for i := range idx {
		idx[i] = i
	}
	cut := videos * 3 / 4
	tr, val, err := prvr.CarveValidation(s.SubsetVideos(idx[:cut], "train"), prvr.ValidationFraction)
	if err != nil {
		return nil, err
	}
	return &Setup{Name: "synthetic", Train: tr, Val: val, Test: s.SubsetVideos(idx[cut:], "test"),
		Data: SyntheticData, Kind: report.Synthetic}, nil
}

// Subset keeps trainVideos random train videos and testVideos random validation and test videos each
// (0: all), for CI-sized runs; the provenance says so.
func (s *Setup) Subset(trainVideos, testVideos int, seed uint64) *Setup {
	out := *s
	out.Train, out.Val, out.Test = SubsetVideos(s.Train, trainVideos, seed, 1), SubsetVideos(s.Val, testVideos, seed, 3), SubsetVideos(s.Test, testVideos, seed, 2)
	out.Floors, out.ValFloors = nil, nil
	out.Data = fmt.Sprintf("%s — SUBSET: %d train videos (%d queries), %d val videos (%d queries), %d test videos (%d queries), seed %d",
		s.Data, out.Train.NumVideos(), out.Train.NumQueries(), out.Val.NumVideos(), out.Val.NumQueries(), out.Test.NumVideos(), out.Test.NumQueries(), seed)
	return &out
}

// SubsetVideos keeps n random videos of sp (0 or ≥ all: sp itself), in their order, drawn by the PCG
// of seed and stream, with all their queries.
func SubsetVideos(sp *prvr.Split, n int, seed, stream uint64) *prvr.Split {
	if n <= 0 || n >= sp.NumVideos() {
		return sp
	}
	idx := rand.New(rand.NewPCG(seed, stream)).Perm(sp.NumVideos())[:n]
	slices.Sort(idx)
	return sp.SubsetVideos(idx, sp.Name)
}

// FloorsOn computes the zero-training baselines on split sp of the Charades setup (FloorScores), with
// their ties broken uniformly at random (retrieval.RandomTies, expected metrics; text→video, the Ks and
// median of the learned models' evaluation). The floors' scores tie often — videos whose clips hold the
// same actions score the same — and the learned models' scores do not: ranking the floor's ties
// pessimistically, as the models' evaluation does, would lower it by an artefact (content words on
// the test split: SumR 89.35 pessimistic, 93.88 at random, 104.41 optimistic).
//
// With MiniLM query tokens the GloVe floors do not exist (the queries no longer share the GloVe space
// of the videos' GloVe block): the floor is random ranking (FloorRandom), every score tied, whose
// expected metrics RandomTies computes.
func (s *Setup) FloorsOn(sp *prvr.Split) (map[string]retrieval.Metrics, error) {
	scores := map[string][]float32{FloorRandom: make([]float32, sp.NumQueries()*sp.NumVideos())}
	var err error
	switch {
	case s.Text != encoders.GloVe: // FloorRandom
	case s.Kind == report.LabelDerived:
		scores, err = s.FloorScores(sp)
	default:
		scores = map[string][]float32{FloorRandomRanking: scores[FloorRandom]}
		if sp.Dim == sp.QueryDim {
			scores[FloorCosine], err = tracks.ZeroShotMaxOverClips(sp, 0, sp.Dim)
		}
	}
	if err != nil {
		return nil, err
	}
	floors := map[string]retrieval.Metrics{}
	for name, sc := range scores {
		m, err := retrieval.RandomTies(sc, sp.QueryVideo, sp.NumVideos(), retrieval.PRVRKs, retrieval.MedianNumPy)
		if err != nil {
			return nil, err
		}
		floors[name] = m
	}
	return floors, nil
}

// FloorNote says which zero-training floors a setup's tables show and why (FloorsOn).
func (s *Setup) FloorNote() string {
	switch {
	case s.Kind == report.Synthetic:
		return ""
	case s.Kind == report.LabelDerived:
		return "Zero-training floors: the GloVe block of the label-derived clips against the GloVe query tokens (random ranking with MiniLM text)."
	case s.Test.Dim == s.Test.QueryDim:
		return fmt.Sprintf("Zero-training floors: random ranking, and the parameter-free cosine of the mean query token and each clip, max over clips (query and video features are both %d-d; whether they share a space is the data's matter).", s.Test.Dim)
	}
	return fmt.Sprintf("Zero-training floor: random ranking only; no parameter-free baseline, since the query tokens (%d-d) and the video features (%d-d) differ in width.", s.Test.QueryDim, s.Test.Dim)
}

// FloorScores are the row-major [queries × videos] score matrices of the zero-training baselines on
// split sp of the Charades setup, by name: GloVe query tokens vs the GloVe block of the label-derived
// clips (max over clips, FloorTokens), and its content-word variant (FloorContentWords).
func (s *Setup) FloorScores(sp *prvr.Split) (map[string][]float32, error) {
	if s.Kind != report.LabelDerived {
		return nil, fmt.Errorf("hlformer: zero-training floors need the label-derived Charades setup, not %q", s.Name)
	}
	tokens, err := tracks.ZeroShotMaxOverClips(sp, tracks.CharadesGloVeOffset, glove.Dim)
	if err != nil {
		return nil, err
	}
	g, err := glove.ReadText(filepath.Join(s.Cache, "glove", "glove100_subset.txt"))
	if err != nil {
		return nil, err
	}
	classes, err := charades.ReadClasses(filepath.Join(s.Shared, "charades", "classes.tsv"))
	if err != nil {
		return nil, err
	}
	content, err := tracks.ZeroShotContentWords(sp, classes, g)
	if err != nil {
		return nil, err
	}
	return map[string][]float32{FloorTokens: tokens, FloorContentWords: content}, nil
}

// Names of the zero-training floors (FloorsOn); FloorContentWords is the stronger one on Charades-STA.
const (
	FloorTokens       = "zero-training floor: GloVe tokens, max over clips (ties at random)"
	FloorContentWords = "zero-training floor: GloVe content words, max over clips (ties at random)"
	// FloorRandom is the floor of a setup whose text shares no space with the videos before training
	// (MiniLM query tokens): random ranking.
	FloorRandom = "zero-training floor: no shared text–video space (MiniLM text), random ranking"
	// FloorRandomRanking and FloorCosine are the floors of a researcher's collection (LoadCollection):
	// random ranking always, the cosine of the mean query token and the clips when the widths match.
	FloorRandomRanking = "zero-training floor: random ranking"
	FloorCosine        = "zero-training floor: cosine of the mean query token and each clip, max over clips (ties at random)"
)

// Variant is a named model/objective change relative to the base configuration.
type Variant struct {
	Name   string
	Config func(hlformer.Config) hlformer.Config         // nil: unchanged
	Loss   func(hlformer.LossConfig) hlformer.LossConfig // nil: unchanged
}

// Apply returns the variant's configuration and objective.
func (v Variant) Apply(c hlformer.Config, lc hlformer.LossConfig) (hlformer.Config, hlformer.LossConfig) {
	if v.Config != nil {
		c = v.Config(c)
	}
	if v.Loss != nil {
		lc = v.Loss(lc)
	}
	return c, lc
}

// ApplyRun returns base with the variant's configuration and objective.
func (v Variant) ApplyRun(base hlformer.RunConfig) hlformer.RunConfig {
	base.Model, base.Loss = v.Apply(base.Model, base.Loss)
	return base
}

// The variants of Table 1 and Table 2.
var (
	HybridVariant        = Variant{Name: "HLFormer (4 Euclidean + 4 Lorentz, MAIM, L_div, L_pop)"}
	EuclideanOnlyVariant = Variant{Name: "Euclidean-only, GMMFormer-like (8 Euclidean Gaussian branches)",
		Config: func(c hlformer.Config) hlformer.Config { return c.EuclideanOnly() }}
	MSSLVariant = Variant{Name: "MS-SL-like (plain Transformer, multi-scale windows, NCE + triplet)",
		Config: func(c hlformer.Config) hlformer.Config { c.Encoder = hlformer.MSSLEncoder; return c },
		Loss:   func(l hlformer.LossConfig) hlformer.LossConfig { l.Diversity, l.POP = 0, 0; return l }}

	NoGazeVariant   = Variant{Name: "w/o gaze branch", Config: func(c hlformer.Config) hlformer.Config { c.Gaze = false; return c }}
	NoGlanceVariant = Variant{Name: "w/o glance branch", Config: func(c hlformer.Config) hlformer.Config { c.Glance = false; return c }}
	SimOnlyVariant  = Variant{Name: "L_sim only", Loss: func(l hlformer.LossConfig) hlformer.LossConfig { l.Diversity, l.POP = 0, 0; return l }}
	NoDivVariant    = Variant{Name: "w/o L_div", Loss: func(l hlformer.LossConfig) hlformer.LossConfig { l.Diversity = 0; return l }}
	NoPOPVariant    = Variant{Name: "w/o L_pop", Loss: func(l hlformer.LossConfig) hlformer.LossConfig { l.POP = 0; return l }}
	MPVariant       = Variant{Name: "w/ MP (mean pooling)", Config: func(c hlformer.Config) hlformer.Config { c.Aggregation = hlformer.MeanPooling; return c }}
	CLVariant       = Variant{Name: "w/ CL (concat + linear)", Config: func(c hlformer.Config) hlformer.Config { c.Aggregation = hlformer.ConcatLinear; return c }}
)

// Table1Variants are the rows of Table 1, in its order; Figure5Variants the models of Fig. 5 (with and
// without L_pop).
var (
	Table1Variants  = []Variant{MSSLVariant, EuclideanOnlyVariant, HybridVariant}
	Figure5Variants = []Variant{HybridVariant, NoPOPVariant}
)

// Table2Variants are the ablations of HLFormer Table 2, in its order (row 0 is the full model).
var Table2Variants = []Variant{HybridVariant, NoGazeVariant, NoGlanceVariant, SimOnlyVariant, NoDivVariant, NoPOPVariant, MPVariant, CLVariant}

// Run is one seed's run of a variant: the loop's result of its models.Run (hlformer.NewRun; the
// records 1-based, as history.json), the store holding the selected (best validation SumR) epoch's
// weights and, when the setup has a test split, that model's test-split metrics and evaluation
// embeddings, what the tables report.
type Run struct {
	*train.Result
	Store      *model.Store
	Test       retrieval.Metrics
	Embeddings *hlformer.Embeddings
}

// BestEpoch is the 1-based selected epoch (0 before the first).
func (r Run) BestEpoch() int {
	if r.Result == nil || r.Best == nil {
		return 0
	}
	return r.Best.Epoch
}

// Val is the validation metrics of the selected epoch (text→video).
func (r Run) Val() retrieval.Metrics {
	if r.Result == nil || r.Best == nil {
		return retrieval.Metrics{}
	}
	return retrieval.FromValues(r.Best.Val, retrieval.T2V)
}

// Runs are the runs of one variant over several seeds (reproduce.Runs, named by the variant), with
// the variant's model and objective.
type Runs struct {
	reproduce.Runs[Run]
	Variant Variant
	Config  hlformer.Config
	Loss    hlformer.LossConfig
}

// runVariant trains variant v (applied to base) once per seed as a models.Run (hlformer.NewRun on
// the setup's splits, Run.Train: lib/train's loop, the epoch selected on setup.Val) and evaluates
// the selected model on setup.Test (nil: not evaluated). With cacheDir set, each seed's run
// directory is runDir's (lib/runcache), so that an interrupted study resumes exactly and a finished
// run is only re-evaluated (its best model restored from train.BestDir).
func runVariant(be compute.Backend, setup *Setup, base hlformer.RunConfig, v Variant, seeds []int64, cacheDir string, log io.Writer) (*Runs, error) {
	cfg := v.ApplyRun(base)
	m, err := hlformer.New(cfg.Model)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", v.Name, err)
	}
	if setup.Val == nil {
		return nil, fmt.Errorf("hlformer: setup %q has no validation split (model selection never uses the test split)", setup.Name)
	}
	runs := &Runs{Variant: v, Config: cfg.Model, Loss: cfg.Loss,
		Runs: reproduce.Runs[Run]{Name: v.Name, Seeds: seeds, Epoch: Run.BestEpoch}}
	for _, seed := range seeds {
		cfg.Training.Seed = seed
		start := time.Now()
		run, err := hlformer.NewRun(be, cfg, setup.Split, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", v.Name, err)
		}
		res, err := trainRun(run, setup, cfg, cacheDir)
		if err != nil {
			return nil, fmt.Errorf("%s, seed %d: %w", v.Name, seed, err)
		}
		r := Run{Result: res, Store: run.Store()}
		if setup.Test != nil {
			ev, err := hlformer.NewEvaluator(be, m, r.Store, dtypes.Float32)
			if err != nil {
				return nil, err
			}
			te, em, err := ev.Evaluate(setup.Test)
			if err != nil {
				return nil, fmt.Errorf("%s, seed %d: test: %w", v.Name, seed, err)
			}
			r.Test, r.Embeddings = te.T2V, em
		}
		if log != nil {
			val := r.Val()
			val.Queries = setup.Val.NumQueries()
			fmt.Fprintf(log, "%s, seed %d: best epoch %d: val %s, test %s (%s, %s)\n", v.Name, seed, r.BestEpoch(), val, r.Test,
				time.Since(start).Round(time.Second), res.Stopped)
		}
		runs.Results = append(runs.Results, r)
	}
	return runs, nil
}

// Split is the setup's split by name ("train", "val" or "test"), as hlformer.NewRun loads it.
func (s *Setup) Split(name string) (*prvr.Split, error) {
	sp := map[string]*prvr.Split{"train": s.Train, "val": s.Val, "test": s.Test}[name]
	if sp == nil {
		return nil, fmt.Errorf("hlformer: setup %q has no %q split", s.Name, name)
	}
	return sp, nil
}

// trainRun trains run (of configuration cfg on setup) in memory (cacheDir ""), or in its run
// directory under cacheDir (runDir) through runner.Train — what `geoalign train hlformer` writes:
// config.json naming the collection and cfg, lock, resume, history.json, curves.png — so that
// `geoalign eval --run` opens it. A directory cached before the studies trained through
// lib/runner (runcache's spec.json, no config.json) resumes as it is.
func trainRun(run *hlformer.Run, setup *Setup, cfg hlformer.RunConfig, cacheDir string) (*train.Result, error) {
	out := models.Output{Quiet: true}
	if cacheDir == "" {
		return run.Train(out)
	}
	dir, err := runDir(cacheDir, setup, cfg)
	if err != nil {
		return nil, err
	}
	_, errSpec := os.Stat(filepath.Join(dir, runcache.SpecFile))
	if _, errConfig := os.Stat(filepath.Join(dir, runner.ConfigFile)); errSpec == nil && errConfig != nil {
		out.Dir = dir
		return run.Train(out)
	}
	raw, err := json.Marshal(cfg) // `geoalign train hlformer`'s config JSON
	if err != nil {
		return nil, err
	}
	l := setup.Layout
	src := runner.Source{Root: l.Root, Collection: l.Collection, VisualFeature: l.VisualFeature, TextFeature: l.TextFeature}
	res, err := runner.Train(dir, runner.Spec{Model: "hlformer", Data: src, Config: raw, Notes: []string{"data as the protocol used them: " + setup.Data}}, run, out)
	if err != nil {
		return nil, err
	}
	return res.Result, nil
}

// runDir is the run-cache directory of one run under root: lib/runcache's key of the model, loss and
// training configurations (the seed apart), the content of the setup's train and test splits, the
// seed, and the source of lib/models/hlformer and lib/train — editing a scale or the model code
// trains anew. The key is the schedule as hlformer.TrainConfig, as before models.Run trained the
// study, so that the runs cached then stay valid.
func runDir(root string, setup *Setup, cfg hlformer.RunConfig) (string, error) {
	tc := cfg.Training.TrainConfig()
	seed := tc.Seed
	tc.Seed = 0
	spec, err := runcache.NewSpec("hlformer", struct {
		Model    hlformer.Config
		Loss     hlformer.LossConfig
		Training hlformer.TrainConfig
	}{cfg.Model, cfg.Loss, tc}, setup.Train.Fingerprint()+"+"+setup.Test.Fingerprint()+textKey(setup.Text), seed,
		runcache.Module+"/lib/models/hlformer", runcache.Module+"/lib/train")
	if err != nil {
		return "", err
	}
	return runcache.Dir(root, spec), nil
}

// textKey is the text encoder's part of the run key: "" for GloVe, so the runs of every result
// before the minilm track keep their keys (the split fingerprints cover the token features anyway).
func textKey(t encoders.Text) string {
	if t == encoders.GloVe {
		return ""
	}
	return "+text=" + t.String()
}

// Metric is one number of a variant's run (reproduce.Metric).
type Metric = reproduce.Metric[Run]

// testMetric is a test-split metric of the PRVR tables, to 2 decimals.
func testMetric(name string, of func(retrieval.Metrics) float64) Metric {
	return Metric{Name: name, Of: func(r Run) float64 { return of(r.Test) }, Decimals: 2}
}

// recall is the test R@k (%).
func recall(k int) Metric {
	m := testMetric(fmt.Sprintf("R@%d", k), func(m retrieval.Metrics) float64 { return m.R(k) })
	m.Higher, m.Best = true, 100
	return m
}

// SumR is the test SumR = R@1 + R@5 + R@10 + R@100 (%), the metric of HLFormer's claims: at best 400
// (every query's video ranked first), at reproduce.RandomSumR under random ranking of the test videos.
var SumR = Metric{Name: "SumR", Of: func(r Run) float64 { return r.Test.SumR }, Decimals: 2, Higher: true, Best: 400,
	Random: func(_, videos int) float64 { return reproduce.RandomSumR(videos, retrieval.PRVRKs...) }}

// MetricColumns are the PRVR columns of Table 1 and 2 (plus MdR, MnR as MS-SL reports).
var MetricColumns = []Metric{recall(1), recall(5), recall(10), recall(100), SumR,
	testMetric("MdR", func(m retrieval.Metrics) float64 { return m.MdR }), testMetric("MnR", func(m retrieval.Metrics) float64 { return m.MnR })}

// bestEpoch is the 1-based selected epoch of a run, the last column of the PRVR tables.
var bestEpoch = Metric{Name: "epochs (best)", Of: func(r Run) float64 { return float64(r.BestEpoch()) }, Decimals: 1}

// valSumR is the validation SumR of a run's selected epoch: what selects among variants (e.g. the
// best uniform width of Fig. 6), never the test split.
var valSumR = Metric{Name: "validation SumR", Of: func(r Run) float64 { return r.Val().SumR }, Decimals: 2, Higher: true, Best: 400}

// MetricsTable builds a PRVR table: one row per floor (a deterministic number) and one per variant
// (mean ± std over its seeds). paper, if not nil, maps a row name to the paper's SumR for the *paper*
// column (cite names the source). Wall-clock training times are logged per run, not tabulated, so that
// the same seeds give byte-identical tables.
func MetricsTable(title string, prov report.Provenance, runs []*Runs, floors map[string]retrieval.Metrics, paper map[string]string, cite string) *report.Table {
	t := report.NewTable(title, prov, slices.Concat([]string{"model"}, reproduce.MetricNames(MetricColumns), []string{bestEpoch.Name})...)
	// paperCell is the paper column's cell of a row (none without the column).
	paperCell := func(name string) []string { return nil }
	if paper != nil {
		t.AddPaperColumn("SumR (paper)", cite)
		paperCell = func(name string) []string { return []string{paper[name]} }
	}
	for _, n := range slices.Sorted(maps.Keys(floors)) {
		reproduce.AddFloorRow(t, n, Run{Test: floors[n]}, MetricColumns, append([]string{""}, paperCell(n)...)...) // no epochs
	}
	for _, r := range runs {
		r.AddRow(t, append(slices.Clone(MetricColumns), bestEpoch), paperCell(r.Name)...)
	}
	return t
}

// PaperTable1SumR is HLFormer Table 1's Charades-STA SumR of the rows our models stand in for (paper
// numbers: only ever shown in a *paper* column).
var PaperTable1SumR = map[string]string{
	HybridVariant.Name:        "78.7 (HLFormer)",
	EuclideanOnlyVariant.Name: "72.9 (GMMFormer)",
	MSSLVariant.Name:          "68.4 (MS-SL)",
}

// PaperTable1CiteReal cites PaperTable1SumR beside results on a researcher's collection.
const PaperTable1CiteReal = "HLFormer Table 1, Charades-STA SumR (I3D + RoBERTa features)"

// PaperTable1Cite cites PaperTable1SumR.
const PaperTable1Cite = "HLFormer Table 1, Charades-STA SumR (I3D + RoBERTa features; not comparable to label-derived features)"

// PaperTable2SumR is HLFormer Table 2's Charades-STA SumR per ablation (paper numbers).
var PaperTable2SumR = map[string]string{
	HybridVariant.Name: "78.7", NoGazeVariant.Name: "74.5", NoGlanceVariant.Name: "70.8", SimOnlyVariant.Name: "75.3",
	NoDivVariant.Name: "76.4", NoPOPVariant.Name: "77.6", MPVariant.Name: "75.3", CLVariant.Name: "76.1",
}

// PaperTable2Cite cites PaperTable2SumR.
const PaperTable2Cite = "HLFormer Table 2, Charades-STA SumR"

// Scale is a named experiment size: data subset, model width and schedule. The architecture (4 + 4
// branches, widths None/2/4/8, MAIM, 32 clips, losses and their weights) is the official one at every
// scale; what changes is said in Describe.
type Scale struct {
	Name                    string
	TrainVideos, TestVideos int // 0: the whole split (TestVideos also sizes the validation subset)
	Dim, LorentzDim         int
	FrameLen, QueryLen      int
	Epochs, BatchVideos     int
	LearningRate            float64
	// Patience is the early-stopping patience in epochs (0: every epoch is trained, the best validation
	// epoch is kept).
	Patience int
	// Seeds are the seeds of every claimed variant (the claim rule needs reproduce.MinSeeds of them).
	Seeds []int64
	// Claims names the variants compared with the full model by the claim rule at this scale (nil:
	// every comparison the study declares). Every other variant is descriptive: trained on the first
	// SweepSeeds of the seeds only (0: all), shown in tables and plots, never decided (Study.Claimed).
	Claims     []string
	SweepSeeds int
	// What the scale trains beyond Table 1 (nil: the paper's full lists): Ablations names the rows of
	// Table 2 (names of Table2Variants), BranchCounts the N_O of Fig. 3 (at N_L = N_E),
	// LorentzBranches the N_L of Fig. 3 at N_O = 8, Widths the uniform Gaussian widths of Fig. 6.
	Ablations       []string
	BranchCounts    []int
	LorentzBranches []int
	Widths          []float64
	// Tuning says how the learning rate, schedule and epochs were chosen (shown by Describe; empty: not tuned).
	Tuning string
}

// tunedOnValidation is the Tuning of the scales tuned on validation (docs/tuning.md §3).
const tunedOnValidation = "Learning rate and schedule were chosen on the validation split (10 % of the train videos, prvr.CarveValidation; " +
	"docs/tuning.md §3), never on test; the epochs are the budget's, from the same validation curves"

// CIScale runs in seconds per seed: 256 train and 256 test videos, d = 32, L^15 (4 heads of 4), 32
// frames, batches of 32 videos, 2 epochs at lr 1e-3. It checks that the pipeline runs, not what trains.
var CIScale = Scale{Name: "CI", TrainVideos: 256, TestVideos: 256, Dim: 32, LorentzDim: 15, FrameLen: 32, QueryLen: 12,
	Epochs: 2, BatchVideos: 32, LearningRate: 1e-3, Patience: 2, Seeds: []int64{0, 1, 2}}

// FullScale is the full Charades-STA run we can afford on the 2-core CPU: every train video (minus the
// validation carve) and every test video, CPUConfig (d = 64, L^31), 64 frames, batches of 128 videos,
// 6 epochs (222 steps) of the code's warmup_linear at lr 1e-3, hard negatives from epoch 1, no early
// stopping; 5 seeds of each Table 1 variant, all three claimed.
//
// The lr, schedule and epochs were chosen on the validation split (docs/tuning.md §3.1, a sweep
// that `geoalign sweep hlformer` reproduces): the code's lr 2e-4 ends at the zero-training floor in
// this budget, 3e-3 diverges, and six epochs keep 5 seeds per claim within the ≈ 4 h budget of all
// HLFormer figures.
var FullScale = Scale{Name: "full", Dim: 64, LorentzDim: 31, FrameLen: 64, QueryLen: 12,
	Epochs: 6, BatchVideos: 128, LearningRate: 1e-3, Seeds: []int64{0, 1, 2, 3, 4},
	Claims: []string{EuclideanOnlyVariant.Name, MSSLVariant.Name}, Tuning: tunedOnValidation}

// AblationScale is the size of the ablations and sweeps of the full study (Table 2, Fig. 3, Fig. 5,
// Fig. 6): 768 random train videos (all their queries), 512 random validation and 512 random test
// videos, d = 32, L^15, 32 frames, batches of 64 videos, 12 epochs (144 steps) of warmup_linear at lr
// 1e-3, hard negatives from epoch 2, no early stopping — lr, schedule and epochs chosen on the
// validation split like FullScale (docs/tuning.md §3.2). Fewer, better-trained variants: the claims at
// this scale are the full model against "w/o L_pop" and against Lorentz-only blocks, 5 seeds each;
// the rest is descriptive, seed 0 only: Table 2's "w/o gaze" and "w/o glance" rows, Fig. 3's N_O = 2
// and N_L = 0 points, Fig. 6's uniform widths 1 and 8.
var AblationScale = Scale{Name: "ablation", TrainVideos: 768, TestVideos: 512, Dim: 32, LorentzDim: 15, FrameLen: 32,
	QueryLen: 12, Epochs: 12, BatchVideos: 64, LearningRate: 1e-3, Seeds: []int64{0, 1, 2, 3, 4},
	Claims: []string{NoPOPVariant.Name, lorentzOnlyName}, SweepSeeds: 1,
	Ablations:    []string{NoPOPVariant.Name, NoGazeVariant.Name, NoGlanceVariant.Name},
	BranchCounts: []int{2, 8}, LorentzBranches: []int{0, 4, 8}, Widths: []float64{1, 8}, Tuning: tunedOnValidation}

// SyntheticScale is the size of the synthetic-benchmark study: every video of SyntheticSetup, d = 32,
// L^15, 32 frames, 8 tokens, batches of 64 videos, up to 30 epochs of warmup_linear at lr 1e-3 with
// early stopping (patience 2) on the validation split, 5 seeds (its Table 1 claims). The earlier
// 3 epochs left every variant undertrained; an epoch costs ≈ 3 s (docs/tuning.md §3.3).
var SyntheticScale = Scale{Name: "synthetic", Dim: 32, LorentzDim: 15, FrameLen: 32, QueryLen: 8,
	Epochs: 30, BatchVideos: 64, LearningRate: 1e-3, Patience: 2, Seeds: []int64{0, 1, 2, 3, 4}}

// Config is the scale's model on inputs of the given sizes.
func (s Scale) Config(videoDim, queryDim int) hlformer.Config {
	c := hlformer.PaperConfig(videoDim, queryDim)
	c.Dim, c.LorentzDim, c.FrameLen, c.QueryLen = s.Dim, s.LorentzDim, s.FrameLen, s.QueryLen
	return c
}

// RunConfig is the scale's run configuration (what `geoalign train hlformer` reads from config.json)
// on inputs of the given sizes: its model (Config), the Charades objective and its schedule: BertAdam
// at LearningRate with the code's warmup_linear over Epochs, hard negatives from round(0.2·Epochs)
// (the code's epoch 20 of 100), the scale's early-stopping Patience, the single-graph step and the
// last incomplete batch dropped (static shapes: the step and batching of every committed result),
// validation carved as prvr.CarveValidation.
func (s Scale) RunConfig(videoDim, queryDim int) hlformer.RunConfig {
	rc := hlformer.DefaultRunConfig()
	rc.Model = s.Config(videoDim, queryDim)
	t := &rc.Training
	t.Epochs, t.BatchVideos, t.LearningRate, t.Patience = s.Epochs, s.BatchVideos, s.LearningRate, s.Patience
	t.HardNegativeStart, _ = hlformer.ScaledHardNegativeStart(s.Epochs)
	t.VideoChunk, t.DropPartialBatch, t.ValFraction = hlformer.SingleGraphStep, true, prvr.ValidationFraction
	return rc
}

// Training is the schedule of RunConfig as hlformer.TrainConfig.
func (s Scale) Training() hlformer.TrainConfig { return s.RunConfig(0, 0).Training.TrainConfig() }

// ForText is the scale for query tokens of encoder t: with MiniLM, queries are padded to the code's
// max_desc_l (prvr.MaxQueryTokens, 30) instead of QueryLen, since WordPiece tokens with [CLS] and
// [SEP] outnumber the GloVe words for which the scales' 12 suffice.
func (s Scale) ForText(t encoders.Text) Scale {
	if t != encoders.GloVe {
		s.QueryLen = max(s.QueryLen, prvr.MaxQueryTokens)
	}
	return s
}

// Describe states the scale's deviations from the official configuration, for table provenance.
func (s Scale) Describe() string {
	start, _ := hlformer.ScaledHardNegativeStart(s.Epochs)
	const sched = "warmup_linear (1 % warm-up, as the code)"
	tokensNote := "no Charades query is longer" // in GloVe words
	if s.QueryLen >= prvr.MaxQueryTokens {
		tokensNote = "longer queries truncated, as the code"
	}
	stop := "no early stopping (the best validation epoch is kept)"
	if s.Patience > 0 {
		stop = fmt.Sprintf("early-stopping patience %d", s.Patience)
	}
	d := fmt.Sprintf("%s scale: d = %d (paper 384), Lorentz L^%d (paper L^127), frames padded/down-sampled to %d (paper 128), "+
		"tokens padded to %d (paper 30; %s), batches of %d videos (paper 128) with queries rounded down to a "+
		"multiple of 32, %d epochs (paper 100) at lr %g (paper 2e-4) with %s, hard negatives from epoch %d (the code's 20 of 100, "+
		"scaled), %s (the code: 10); everything else as the official code (docs/official-code.md §3)",
		s.Name, s.Dim, s.LorentzDim, s.FrameLen, s.QueryLen, tokensNote, s.BatchVideos, s.Epochs, s.LearningRate, sched, start, stop)
	if s.Tuning != "" {
		d += ". " + s.Tuning
	}
	if s.Claims != nil {
		d += fmt.Sprintf(". Budget: seeds %v for the full model and the claimed variants (%s)", s.Seeds, strings.Join(s.Claims, "; "))
		if s.SweepSeeds > 0 {
			d += fmt.Sprintf(", the first %d seed(s) for every descriptive variant", s.SweepSeeds)
		}
		if s.Ablations != nil || s.BranchCounts != nil || s.LorentzBranches != nil || s.Widths != nil {
			d += fmt.Sprintf("; trained points: Table 2 rows %q, Fig. 3 N_O %v and N_L %v, Fig. 6 widths %v (the paper's other points are not trained at this scale)",
				s.Ablations, s.BranchCounts, s.LorentzBranches, s.Widths)
		}
	}
	return d
}

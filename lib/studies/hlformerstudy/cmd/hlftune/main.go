// Command hlftune trains one HLFormer configuration on the Charades-STA setup of hlformerstudy and
// writes its learning curve: per epoch the mean training loss terms and the validation metrics (the
// validation split carved from train, prvr.CarveValidation), then the test metrics of the epoch with
// the best validation SumR, beside the zero-training floors of both splits computed by the same metric
// code. It is the tool of the learning-rate / epochs / schedule / width sweep behind the Scale values
// of hlformerstudy (hlformerstudy.FullScale's doc quotes its results); the test split is evaluated once,
// after selection.
//
//	go run ./lib/studies/hlformerstudy/cmd/hlftune -lr 1e-3 -epochs 20 -out build/tune/lr1e-3.json
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/models/hlformer"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/studies/hlformerstudy"
	"github.com/geoalign/geoalign/lib/train"
)

// Epoch is one point of the learning curve.
type Epoch struct {
	Epoch   int
	Loss    map[string]float64 // mean over the epoch's batches, by hlformer.LossTermNames
	Val     Metrics
	Hard    bool
	Seconds float64
}

// Metrics are retrieval.Metrics as written by its MarshalJSON ("R@1", …, "MdR", "MnR", "SumR"), so that
// -render can read them back.
type Metrics map[string]float64

func metricsOf(m retrieval.Metrics) Metrics {
	var out Metrics
	b, _ := json.Marshal(m)
	_ = json.Unmarshal(b, &out)
	return out
}

func metricsMap(ms map[string]retrieval.Metrics) map[string]Metrics {
	out := map[string]Metrics{}
	for k, m := range ms {
		out[k] = metricsOf(m)
	}
	return out
}

// Run is the file written by -out.
type Run struct {
	Args        []string
	Variant     string
	Config      hlformer.Config
	Loss        hlformer.LossConfig
	Train       hlformer.TrainConfig
	Schedule    string
	Data        string
	TrainVideos int
	TrainQuery  int
	ValVideos   int
	ValQueries  int
	ValOnTrain  bool // the "validation" curve is on training videos (diagnostic)
	// ValFloors and TestFloors are the zero-training floors with ties pessimistic (as every table), the
	// ...Optimistic ones with ties optimistic: the floors' label-derived clips tie often, so the two
	// bracket a random tie-break.
	ValFloors, ValFloorsOptimistic   map[string]Metrics
	TestFloors, TestFloorsOptimistic map[string]Metrics
	// ValFloorsExpected and TestFloorsExpected are the floors' expected metrics when ties are broken
	// uniformly at random (retrieval.RandomTies): the fair floor for a model whose scores do not tie.
	ValFloorsExpected, TestFloorsExpected map[string]Metrics
	History                               []Epoch
	BestEpoch                             int
	BestVal                               Metrics
	Test                                  Metrics // of the best validation epoch
	Stopped                               string
	StepSeconds                           float64
	Seconds                               float64
	Commit                                string // reproduce.GitCommit at the start
	Backend                               string
	Machine                               string // CPUs and the load average at the start (the machine is shared)
}

func main() {
	var (
		cache      = flag.String("cache", filepath.Join("datasets", "cache"), "data cache built by make data")
		shared     = flag.String("shared", envOr("GEOALIGN_SHARED", "/work/shared/data"), "staged shared inputs (Charades annotations)")
		out        = flag.String("out", "", "JSON file for the learning curve (required)")
		variant    = flag.String("variant", "hybrid", "hybrid, euclidean or mssl")
		lr         = flag.Float64("lr", 2e-4, "BertAdam learning rate")
		epochs     = flag.Int("epochs", 5, "epochs")
		sched      = flag.String("schedule", "linear", "linear (warmup_linear over the run) or constant (constant after warm-up)")
		warmup     = flag.Float64("warmup", 0.01, "warm-up fraction of the run")
		hard       = flag.Int("hard", -1, "first epoch with hard negatives (-1: round(0.2·epochs), the code's 20 of 100)")
		patience   = flag.Int("patience", 0, "early-stopping patience in epochs (0: none)")
		dim        = flag.Int("dim", 64, "hidden size d")
		lorentz    = flag.Int("lorentz", 31, "Lorentz dimension n (n+1 divisible by the 4 heads)")
		frames     = flag.Int("frames", 64, "frames per video (padded / down-sampled)")
		batch      = flag.Int("batch", 128, "videos per batch")
		trainN     = flag.Int("train-videos", 0, "random train videos kept (0: all)")
		valN       = flag.Int("val-videos", 0, "random validation videos kept (0: all)")
		dropout    = flag.Float64("dropout", -1, "dropout and input dropout (-1: the code's 0.25)")
		nce        = flag.Float64("nce", 1, "multiplier of the Charades NCE weights λ_c, λ_f")
		seed       = flag.Int64("seed", 0, "seed of initialisation, dropout, batches")
		chunk      = flag.Int("chunk", 0, "videos encoded at once by the training step (0: hlformer.DefaultVideoChunk; -1: the single-graph step, more memory)")
		noTest     = flag.Bool("no-test", false, "skip the test evaluation of the best epoch")
		renderTo   = flag.String("render", "", "render the run files given as arguments to <base>.png and <base>.md instead of training")
		title      = flag.String("title", "HLFormer tuning sweep", "table title for -render")
		floorsOnly = flag.Bool("floors-only", false, "write only the validation and test floors (no training)")
		onTrain    = flag.Bool("val-on-train", false, "diagnostic: the curve's 'validation' is -val-videos random TRAINING videos (can the model fit its training data?)")
	)
	flag.Parse()
	if *renderTo != "" {
		if err := render(*renderTo, *title, flag.Args()); err != nil {
			fmt.Fprintln(os.Stderr, "hlftune:", err)
			os.Exit(1)
		}
		return
	}
	if *out == "" {
		fmt.Fprintln(os.Stderr, "hlftune: -out is required")
		os.Exit(2)
	}
	if err := run(*cache, *shared, *out, *variant, *sched, *lr, *warmup, *nce, *dropout, *epochs, *hard, *patience, *dim, *lorentz,
		*frames, *batch, *trainN, *valN, *chunk, *seed, !*noTest, *onTrain, *floorsOnly); err != nil {
		fmt.Fprintln(os.Stderr, "hlftune:", err)
		os.Exit(1)
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func run(cache, shared, out, variant, sched string, lr, warmup, nce, dropout float64, epochs, hard, patience, dim, lorentz,
	frames, batch, trainN, valN, chunk int, seed int64, test, onTrain, floorsOnly bool) error {
	start := time.Now()
	setup, err := hlformerstudy.LoadCharadesSTA(cache, shared)
	if err != nil {
		return err
	}
	pick := func(sp *prvr.Split, n int, stream uint64) *prvr.Split {
		if n <= 0 || n >= sp.NumVideos() {
			return sp
		}
		idx := rand.New(rand.NewPCG(tuneSubsetSeed, stream)).Perm(sp.NumVideos())[:n]
		sort.Ints(idx)
		return sp.SubsetVideos(idx, sp.Name)
	}
	trainSp, valSp := pick(setup.Train, trainN, 1), pick(setup.Val, valN, 3)
	if onTrain {
		valSp = pick(trainSp, valN, 4)
	}
	r := &Run{Commit: reproduce.GitCommit(), Machine: reproduce.Machine(), Args: os.Args[1:], Variant: variant, Data: setup.Data, TrainVideos: trainSp.NumVideos(), TrainQuery: trainSp.NumQueries(),
		ValVideos: valSp.NumVideos(), ValQueries: valSp.NumQueries(), ValOnTrain: onTrain}
	if r.ValFloors, r.ValFloorsOptimistic, r.ValFloorsExpected, err = floors(setup, valSp); err != nil {
		return err
	}
	if test {
		if r.TestFloors, r.TestFloorsOptimistic, r.TestFloorsExpected, err = floors(setup, setup.Test); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "train %d videos / %d queries, val %d / %d; val floor (content words) SumR %.2f\n", r.TrainVideos, r.TrainQuery,
		r.ValVideos, r.ValQueries, r.ValFloors[hlformerstudy.FloorContentWords]["SumR"])
	if floorsOnly {
		return writeJSON(out, r)
	}

	sc := hlformerstudy.Scale{Name: "tune", Dim: dim, LorentzDim: lorentz, FrameLen: frames, QueryLen: 12, Epochs: epochs, BatchVideos: batch, LearningRate: lr}
	c := sc.Config(trainSp.Dim, trainSp.QueryDim)
	if dropout >= 0 {
		c.Dropout, c.InputDropout = dropout, dropout
	}
	lc := hlformer.CharadesLoss()
	lc.ClipNCE, lc.FrameNCE = lc.ClipNCE*nce, lc.FrameNCE*nce
	var v hlformerstudy.Variant
	switch variant {
	case "hybrid":
		v = hlformerstudy.HybridVariant
	case "euclidean":
		v = hlformerstudy.EuclideanOnlyVariant
	case "mssl":
		v = hlformerstudy.MSSLVariant
	default:
		return fmt.Errorf("unknown -variant %q", variant)
	}
	c, lc = v.Apply(c, lc)
	tc := sc.Training()
	tc.Seed, tc.Patience, tc.VideoChunk = seed, patience, chunk
	if hard >= 0 {
		tc.HardNegativeStart = hard
	}
	switch sched {
	case "linear":
		tc.Schedule = train.WarmupLinear{Warmup: warmup}
	case "constant":
		tc.Schedule = train.WarmupConstant{Warmup: warmup}
	default:
		return fmt.Errorf("unknown -schedule %q", sched)
	}
	r.Config, r.Loss, r.Train, r.Schedule = c, lc, tc, fmt.Sprintf("%s, warm-up %g", sched, warmup)
	tc.Log = os.Stderr
	m, err := hlformer.New(c)
	if err != nil {
		return err
	}
	be := backend.MustNew()
	if info, err := backend.Describe(); err == nil {
		r.Backend = info.String()
	}
	res, err := hlformer.Train(be, m, lc, tc, trainSp, valSp)
	if err != nil {
		return err
	}
	for _, h := range res.History {
		e := Epoch{Epoch: h.Epoch, Val: metricsOf(h.Val), Hard: h.Hard, Seconds: h.Duration.Seconds(), Loss: map[string]float64{}}
		for i, n := range hlformer.LossTermNames {
			e.Loss[n] = h.Loss[i]
		}
		r.History = append(r.History, e)
	}
	r.BestEpoch, r.BestVal, r.Stopped, r.StepSeconds = res.BestEpoch, metricsOf(res.Best), res.Stopped, res.StepTime.Seconds()
	if test {
		ev, err := hlformer.NewEvaluator(be, m, res.Store, tc.DType)
		if err != nil {
			return err
		}
		te, _, err := ev.EvaluateStream(setup.Test)
		if err != nil {
			return err
		}
		r.Test = metricsOf(te.T2V)
		fmt.Fprintf(os.Stderr, "test (best val epoch %d): %s; floor SumR %.2f\n", r.BestEpoch, te.T2V, r.TestFloors[hlformerstudy.FloorContentWords]["SumR"])
	}
	r.Seconds = time.Since(start).Seconds()
	return writeJSON(out, r)
}

// writeJSON writes r to out (atomicfile.WriteJSON), creating out's directory.
func writeJSON(out string, r *Run) error {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteJSON(out, r)
}

// floors are the zero-training floors of sp with ties pessimistic, optimistic and broken at random
// (expected metrics).
func floors(setup *hlformerstudy.Setup, sp *prvr.Split) (pess, opt, exp map[string]Metrics, err error) {
	scores, err := setup.FloorScores(sp)
	if err != nil {
		return nil, nil, nil, err
	}
	pess, opt, exp = map[string]Metrics{}, map[string]Metrics{}, map[string]Metrics{}
	for name, sc := range scores {
		for _, o := range []struct {
			ties retrieval.TieRule
			dst  map[string]Metrics
		}{{retrieval.TiePessimistic, pess}, {retrieval.TieOptimistic, opt}} {
			mat, err := retrieval.NewMatrix(sp.NumQueries(), sp.NumVideos(), sc)
			if err != nil {
				return nil, nil, nil, err
			}
			res, err := retrieval.Evaluate[float32](mat, sp.QueryVideo, retrieval.Options{Ks: retrieval.PRVRKs, Ties: o.ties})
			if err != nil {
				return nil, nil, nil, err
			}
			o.dst[name] = metricsOf(res.T2V)
		}
		m, err := retrieval.RandomTies(sc, sp.QueryVideo, sp.NumVideos(), retrieval.PRVRKs, retrieval.MedianNumPy)
		if err != nil {
			return nil, nil, nil, err
		}
		exp[name] = metricsOf(m)
	}
	return pess, opt, exp, nil
}

// tuneSubsetSeed seeds the random video subsets of a sweep point (-train-videos, -val-videos).
const tuneSubsetSeed = 20251

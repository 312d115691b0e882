// Command hlftune trains one HLFormer configuration on the Charades-STA setup of hlformerstudy and
// writes its learning curve: per epoch the mean training loss terms and the validation metrics (the
// validation split carved from train, prvr.CarveValidation), then the test metrics of the epoch with
// the best validation SumR, beside the zero-training floors of both splits computed by the same metric
// code. It is the tool of the learning-rate / epochs / schedule / width sweep behind the Scale values
// of hlformerstudy (hlformerstudy.FullScale's doc quotes its results); the test split is evaluated once,
// after selection.
//
//	go run ./lib/cmd/hlftune -lr 1e-3 -epochs 20 -out build/tune/lr1e-3.json
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/data/tracks"
	"github.com/geoalign/geoalign/lib/encoders"
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
	Val     retrieval.Metrics  // as its MarshalJSON writes them ("R@1", …, "MdR", "MnR", "SumR")
	Hard    bool
	Seconds float64
}

// Run is the file written by -out (metrics as retrieval.Metrics' MarshalJSON writes them, so that
// -render reads them back).
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
	ValFloors, ValFloorsOptimistic   map[string]retrieval.Metrics
	TestFloors, TestFloorsOptimistic map[string]retrieval.Metrics
	// ValFloorsExpected and TestFloorsExpected are the floors' expected metrics when ties are broken
	// uniformly at random (retrieval.RandomTies): the fair floor for a model whose scores do not tie.
	ValFloorsExpected, TestFloorsExpected map[string]retrieval.Metrics
	History                               []Epoch
	BestEpoch                             int
	BestVal                               *retrieval.Metrics
	Test                                  *retrieval.Metrics // of the best validation epoch (nil: -no-test)
	Stopped                               string
	StepSeconds                           float64
	Seconds                               float64
	Commit                                string // reproduce.GitCommit at the start
	Backend                               string
	Machine                               string // CPUs and the load average at the start (the machine is shared)
}

// options are the command's flags.
type options struct {
	cache, shared, out, variant, sched                                       string
	lr, warmup, nce, dropout                                                 float64
	epochs, hard, patience, dim, lorentz, frames, batch, trainN, valN, chunk int
	seed                                                                     int64
	noTest, onTrain, floorsOnly                                              bool
}

func main() {
	var o options
	flag.StringVar(&o.cache, "cache", tracks.CacheDir(), "data cache built by make data")
	flag.StringVar(&o.shared, "shared", tracks.SharedDir(), "staged shared inputs (Charades annotations)")
	flag.StringVar(&o.out, "out", "", "JSON file for the learning curve (required)")
	flag.StringVar(&o.variant, "variant", "hybrid", "hybrid, euclidean or mssl")
	flag.Float64Var(&o.lr, "lr", 2e-4, "BertAdam learning rate")
	flag.IntVar(&o.epochs, "epochs", 5, "epochs")
	flag.StringVar(&o.sched, "schedule", "linear", "linear (warmup_linear over the run) or constant (constant after warm-up)")
	flag.Float64Var(&o.warmup, "warmup", 0.01, "warm-up fraction of the run")
	flag.IntVar(&o.hard, "hard", -1, "first epoch with hard negatives (-1: round(0.2·epochs), the code's 20 of 100)")
	flag.IntVar(&o.patience, "patience", 0, "early-stopping patience in epochs (0: none)")
	flag.IntVar(&o.dim, "dim", 64, "hidden size d")
	flag.IntVar(&o.lorentz, "lorentz", 31, "Lorentz dimension n (n+1 divisible by the 4 heads)")
	flag.IntVar(&o.frames, "frames", 64, "frames per video (padded / down-sampled)")
	flag.IntVar(&o.batch, "batch", 128, "videos per batch")
	flag.IntVar(&o.trainN, "train-videos", 0, "random train videos kept (0: all)")
	flag.IntVar(&o.valN, "val-videos", 0, "random validation videos kept (0: all)")
	flag.Float64Var(&o.dropout, "dropout", -1, "dropout and input dropout (-1: the code's 0.25)")
	flag.Float64Var(&o.nce, "nce", 1, "multiplier of the Charades NCE weights λ_c, λ_f")
	flag.Int64Var(&o.seed, "seed", 0, "seed of initialisation, dropout, batches")
	flag.IntVar(&o.chunk, "chunk", 0, "videos encoded at once by the training step (0: hlformer.DefaultVideoChunk; -1: the single-graph step, more memory)")
	flag.BoolVar(&o.noTest, "no-test", false, "skip the test evaluation of the best epoch")
	renderTo := flag.String("render", "", "render the run files given as arguments to <base>.png and <base>.md instead of training")
	title := flag.String("title", "HLFormer tuning sweep", "table title for -render")
	flag.BoolVar(&o.floorsOnly, "floors-only", false, "write only the validation and test floors (no training)")
	flag.BoolVar(&o.onTrain, "val-on-train", false, "diagnostic: the curve's 'validation' is -val-videos random TRAINING videos (can the model fit its training data?)")
	flag.Parse()
	var err error
	switch {
	case *renderTo != "":
		err = render(*renderTo, *title, flag.Args())
	case o.out == "":
		fmt.Fprintln(os.Stderr, "hlftune: -out is required")
		os.Exit(2)
	default:
		err = run(o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hlftune:", err)
		os.Exit(1)
	}
}

// variants are the -variant names.
var variants = map[string]hlformerstudy.Variant{"hybrid": hlformerstudy.HybridVariant,
	"euclidean": hlformerstudy.EuclideanOnlyVariant, "mssl": hlformerstudy.MSSLVariant}

// schedules are the -schedule names.
var schedules = map[string]func(warmup float64) train.Schedule{
	"linear":   func(w float64) train.Schedule { return train.WarmupLinear{Warmup: w} },
	"constant": func(w float64) train.Schedule { return train.WarmupConstant{Warmup: w} },
}

func run(o options) error {
	start := time.Now()
	setup, err := hlformerstudy.LoadCharadesSTAText(o.cache, o.shared, encoders.GloVe)
	if err != nil {
		return err
	}
	trainSp := hlformerstudy.SubsetVideos(setup.Train, o.trainN, tuneSubsetSeed, 1)
	valSp := hlformerstudy.SubsetVideos(setup.Val, o.valN, tuneSubsetSeed, 3)
	if o.onTrain {
		valSp = hlformerstudy.SubsetVideos(trainSp, o.valN, tuneSubsetSeed, 4)
	}
	test := !o.noTest
	r := &Run{Commit: reproduce.GitCommit(), Machine: reproduce.Machine(), Args: os.Args[1:], Variant: o.variant, Data: setup.Data, TrainVideos: trainSp.NumVideos(), TrainQuery: trainSp.NumQueries(),
		ValVideos: valSp.NumVideos(), ValQueries: valSp.NumQueries(), ValOnTrain: o.onTrain}
	if r.ValFloors, r.ValFloorsOptimistic, r.ValFloorsExpected, err = floors(setup, valSp); err != nil {
		return err
	}
	if test {
		if r.TestFloors, r.TestFloorsOptimistic, r.TestFloorsExpected, err = floors(setup, setup.Test); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "train %d videos / %d queries, val %d / %d; val floor (content words) SumR %.2f\n", r.TrainVideos, r.TrainQuery,
		r.ValVideos, r.ValQueries, r.ValFloors[hlformerstudy.FloorContentWords].SumR)
	if o.floorsOnly {
		return writeJSON(o.out, r)
	}

	sc := hlformerstudy.Scale{Name: "tune", Dim: o.dim, LorentzDim: o.lorentz, FrameLen: o.frames, QueryLen: 12, Epochs: o.epochs, BatchVideos: o.batch, LearningRate: o.lr}
	c := sc.Config(trainSp.Dim, trainSp.QueryDim)
	if o.dropout >= 0 {
		c.Dropout, c.InputDropout = o.dropout, o.dropout
	}
	lc := hlformer.CharadesLoss()
	lc.ClipNCE, lc.FrameNCE = lc.ClipNCE*o.nce, lc.FrameNCE*o.nce
	v, ok := variants[o.variant]
	if !ok {
		return fmt.Errorf("unknown -variant %q", o.variant)
	}
	c, lc = v.Apply(c, lc)
	tc := sc.Training()
	tc.Seed, tc.Patience, tc.VideoChunk = o.seed, o.patience, o.chunk
	if o.hard >= 0 {
		tc.HardNegativeStart = o.hard
	}
	schedule, ok := schedules[o.sched]
	if !ok {
		return fmt.Errorf("unknown -schedule %q", o.sched)
	}
	tc.Schedule = schedule(o.warmup)
	r.Config, r.Loss, r.Train, r.Schedule = c, lc, tc, fmt.Sprintf("%s, warm-up %g", o.sched, o.warmup)
	tc.Log = os.Stderr
	be := backend.MustNew()
	if info, err := backend.Describe(); err == nil {
		r.Backend = info.String()
	}
	// The study's training and test evaluation of one seed, on this point's train and validation subsets.
	point := &hlformerstudy.Setup{Name: setup.Name, Train: trainSp, Val: valSp}
	if test {
		point.Test = setup.Test
	}
	runs, err := hlformerstudy.RunVariant(be, point, c, lc, tc, hlformerstudy.Variant{Name: v.Name}, []int64{o.seed}, nil) // c, lc: v applied
	if err != nil {
		return err
	}
	res := runs.Results[0].Result
	for _, h := range res.History {
		e := Epoch{Epoch: h.Epoch, Val: h.Val, Hard: h.Hard, Seconds: h.Duration.Seconds(), Loss: map[string]float64{}}
		for i, n := range hlformer.LossTermNames {
			e.Loss[n] = h.Loss[i]
		}
		r.History = append(r.History, e)
	}
	r.BestEpoch, r.BestVal, r.Stopped, r.StepSeconds = res.BestEpoch, &res.Best, res.Stopped, res.StepTime.Seconds()
	if test {
		r.Test = &runs.Results[0].Test
		fmt.Fprintf(os.Stderr, "test (best val epoch %d): %s; floor SumR %.2f\n", r.BestEpoch, *r.Test, r.TestFloors[hlformerstudy.FloorContentWords].SumR)
	}
	r.Seconds = time.Since(start).Seconds()
	return writeJSON(o.out, r)
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
func floors(setup *hlformerstudy.Setup, sp *prvr.Split) (pess, opt, exp map[string]retrieval.Metrics, err error) {
	scores, err := setup.FloorScores(sp)
	if err != nil {
		return nil, nil, nil, err
	}
	pess, opt, exp = map[string]retrieval.Metrics{}, map[string]retrieval.Metrics{}, map[string]retrieval.Metrics{}
	for name, sc := range scores {
		mat, err := retrieval.NewMatrix(sp.NumQueries(), sp.NumVideos(), sc)
		if err != nil {
			return nil, nil, nil, err
		}
		for ties, dst := range map[retrieval.TieRule]map[string]retrieval.Metrics{retrieval.TiePessimistic: pess, retrieval.TieOptimistic: opt} {
			res, err := retrieval.Evaluate[float32](mat, sp.QueryVideo, retrieval.Options{Ks: retrieval.PRVRKs, Ties: ties})
			if err != nil {
				return nil, nil, nil, err
			}
			dst[name] = res.T2V
		}
		if exp[name], err = retrieval.RandomTies(sc, sp.QueryVideo, sp.NumVideos(), retrieval.PRVRKs, retrieval.MedianNumPy); err != nil {
			return nil, nil, nil, err
		}
	}
	return pess, opt, exp, nil
}

// tuneSubsetSeed seeds the random video subsets of a sweep point (-train-videos, -val-videos).
const tuneSubsetSeed = 20251

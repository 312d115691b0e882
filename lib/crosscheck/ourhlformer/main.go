// Command ourhlformer is our side of the HLFormer cross-check (lib/crosscheck/run.py): it trains
// lib/models/hlformer on the train captions of a data_root in the official MS-SL layout, keeps the
// epoch with the best SumR on its val captions (as the official main.py), and scores the test
// captions with that model.
//
//	ourhlformer -data build/crosscheck/data -config build/crosscheck/config.json -seed 0 -out DIR
//
// It writes DIR/result.json (per-epoch loss, val metrics and wall time; the test metrics through
// lib/retrieval) and DIR/test_scores.npz (scores [Q, V] in caption-file order, gt [Q]), the same
// files as official_hlformer.py. Bad flags or configuration: exit code 2.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data/npz"
	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/models/hlformer"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/runcache"
	"github.com/gomlx/compute/dtypes"
)

// Config is run.py's CONFIG: the one configuration both sides train at.
type Config struct {
	VisualFeature     string  `json:"visual_feature"`
	VideoDim          int     `json:"video_dim"`
	QueryDim          int     `json:"query_dim"`
	Dim               int     `json:"dim"`
	LorentzDim        int     `json:"lorentz_dim"`
	Heads             int     `json:"heads"`
	Branches          int     `json:"branches"` // attention_num: Branches/2 Euclidean + Branches/2 Lorentz
	BranchTemperature float64 `json:"branch_temperature"`
	Dropout           float64 `json:"dropout"`
	InputDropout      float64 `json:"input_dropout"`
	ClipLen           int     `json:"clip_len"`
	FrameLen          int     `json:"frame_len"`
	QueryLen          int     `json:"query_len"`
	BatchVideos       int     `json:"batch_videos"`
	LR                float64 `json:"lr"`
	Epochs            int     `json:"epochs"`
	HardNegativeStart int     `json:"hard_negative_start"`
	Patience          int     `json:"patience"`
	ClipScoreWeight   float64 `json:"clip_score_weight"`
	FrameScoreWeight  float64 `json:"frame_score_weight"`
}

// widths are the Gaussian widths of one geometry's branches in the official HLFormerBlock:
// None, then 2^i for i = 1 … attention_num/2 − 1 (model_components.py HLFormerBlock.__init__).
func widths(branches int) []float64 {
	w := []float64{0}
	for i := 1; i <= branches/2-1; i++ {
		w = append(w, math.Pow(2, float64(i)))
	}
	return w
}

// ModelConfig is x as an hlformer.Config: the official architecture (PaperConfig) at x's sizes.
func (x Config) ModelConfig() hlformer.Config {
	c := hlformer.PaperConfig(x.VideoDim, x.QueryDim)
	c.Dim, c.LorentzDim, c.Heads = x.Dim, x.LorentzDim, x.Heads
	c.EuclideanWidths, c.LorentzWidths = widths(x.Branches), widths(x.Branches)
	c.BranchTemperature, c.Dropout, c.InputDropout = x.BranchTemperature, x.Dropout, x.InputDropout
	c.ClipLen, c.FrameLen, c.QueryLen = x.ClipLen, x.FrameLen, x.QueryLen
	c.ClipScoreWeight, c.FrameScoreWeight = x.ClipScoreWeight, x.FrameScoreWeight
	return c
}

// TrainConfig is x's schedule: the official Charades one (BertAdam, warmup_linear) at x's sizes,
// every batch with all its captions (no query bucketing) and the single-graph step.
func (x Config) TrainConfig(seed int64) hlformer.TrainConfig {
	tc := hlformer.CharadesTraining()
	tc.Epochs, tc.BatchVideos, tc.LearningRate = x.Epochs, x.BatchVideos, x.LR
	tc.HardNegativeStart, tc.Patience, tc.Seed = x.HardNegativeStart, x.Patience, seed
	tc.QueryBucket = 0
	tc.PartialBatch = false // the batching of the committed cross-check (figures/crosscheck/hlformer.*)
	tc.VideoChunk = hlformer.SingleGraphStep
	tc.DType = dtypes.Float32
	return tc
}

// Epoch is one epoch of the run, in result.json.
type Epoch struct {
	Epoch        int               `json:"epoch"`
	Loss         float64           `json:"loss"`
	Val          retrieval.Metrics `json:"val"`
	TrainSeconds float64           `json:"epoch_seconds"`
}

// Result is result.json.
type Result struct {
	Side             string            `json:"side"`
	Seed             int64             `json:"seed"`
	History          []Epoch           `json:"history"`
	BestEpoch        int               `json:"best_epoch"`
	BestVal          retrieval.Metrics `json:"best_val"`
	Test             retrieval.Metrics `json:"test"`
	Stopped          string            `json:"stopped"`
	TrainWallSeconds float64           `json:"train_wall_seconds"`
	TestWallSeconds  float64           `json:"test_wall_seconds"`
	StepSeconds      float64           `json:"step_seconds"`
	Steps            int               `json:"steps"`
	Backend          string            `json:"backend"`
	GOMAXPROCS       int               `json:"gomaxprocs"`
}

func main() {
	data := flag.String("data", "", "data_root holding charades/{FeatureData,TextData} (official layout)")
	cfgPath := flag.String("config", "", "JSON configuration written by run.py")
	seed := flag.Int64("seed", 0, "seed of initialisation, dropout and batching")
	epochs := flag.Int("epochs", 0, "override the configuration's epochs (timing runs)")
	maxBatches := flag.Int("max-batches", 0, "cap the batches per epoch (timing runs; 0: all)")
	out := flag.String("out", "", "output directory")
	source := flag.Bool("source", false, "print the hash of this command's source (lib/runcache.SourceHash: every package it builds on) and exit")
	flag.Parse()
	if *source {
		src, err := runcache.SourceHash(runcache.Module + "/lib/crosscheck/ourhlformer")
		if err != nil {
			fmt.Fprintln(os.Stderr, "ourhlformer:", err)
			os.Exit(1)
		}
		fmt.Println(src.Hash)
		return
	}
	if *data == "" || *cfgPath == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "ourhlformer: -data, -config and -out are required")
		os.Exit(2)
	}
	if err := run(*data, *cfgPath, *out, *seed, *epochs, *maxBatches); err != nil {
		fmt.Fprintln(os.Stderr, "ourhlformer:", err)
		os.Exit(1)
	}
}

func readConfig(path string) (Config, error) {
	var x Config
	b, err := os.ReadFile(path)
	if err != nil {
		return x, err
	}
	if err := json.Unmarshal(b, &x); err != nil {
		return x, fmt.Errorf("%s: %w", path, err)
	}
	if x.Branches < 2 || x.Branches%2 != 0 {
		return x, fmt.Errorf("%s: field branches = %d must be even and ≥ 2", path, x.Branches)
	}
	return x, nil
}

func run(data, cfgPath, out string, seed int64, epochs, maxBatches int) error {
	x, err := readConfig(cfgPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ourhlformer:", err)
		os.Exit(2)
	}
	if epochs > 0 {
		x.Epochs = epochs
	}
	m, err := hlformer.New(x.ModelConfig())
	if err != nil {
		fmt.Fprintln(os.Stderr, "ourhlformer:", err)
		os.Exit(2)
	}
	layout := prvr.Layout{Root: data, Collection: "charades", VisualFeature: x.VisualFeature}
	splits := map[string]*prvr.Split{}
	for _, name := range []string{"train", "val", "test"} {
		if splits[name], err = prvr.Load(layout, name); err != nil {
			return err
		}
	}
	be, err := backend.New()
	if err != nil {
		return err
	}
	desc, err := backend.Describe()
	if err != nil {
		return err
	}
	tc := x.TrainConfig(seed)
	tc.MaxBatches = maxBatches
	tc.Log = os.Stderr
	t0 := time.Now()
	res, err := hlformer.Train(be, m, hlformer.CharadesLoss(), tc, splits["train"], splits["val"])
	if err != nil {
		return err
	}
	trainWall := time.Since(t0)
	t1 := time.Now()
	ev, err := hlformer.NewEvaluator(be, m, res.Store, dtypes.Float32)
	if err != nil {
		return err
	}
	test, scores, err := ev.EvaluateStream(splits["test"])
	if err != nil {
		return err
	}
	r := Result{Side: "ours", Seed: seed, BestEpoch: res.BestEpoch, BestVal: res.Best, Test: test.T2V,
		Stopped: res.Stopped, TrainWallSeconds: trainWall.Seconds(), TestWallSeconds: time.Since(t1).Seconds(),
		StepSeconds: res.StepTime.Seconds(), Steps: res.Steps, Backend: desc.String(), GOMAXPROCS: runtime.GOMAXPROCS(0)}
	for _, h := range res.History {
		r.History = append(r.History, Epoch{Epoch: h.Epoch, Loss: h.Loss[0], Val: h.Val, TrainSeconds: h.Duration.Seconds()})
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	te := splits["test"]
	gt := make([]int64, te.NumQueries())
	for q := range gt {
		gt[q] = int64(te.QueryVideo[q])
	}
	if err := atomically(filepath.Join(out, "test_scores.npz"), func(path string) error {
		return npz.Write(path, []npz.Array{{Name: "scores", Shape: []int{te.NumQueries(), te.NumVideos()}, Data: scores},
			{Name: "gt", Shape: []int{len(gt)}, Data: gt}})
	}); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return err
	}
	return atomically(filepath.Join(out, "result.json"), func(path string) error { return os.WriteFile(path, b, 0o644) })
}

// atomically lets write fill a temporary file beside path, then renames it to path.
func atomically(path string, write func(tmp string) error) error {
	tmp := path + ".tmp"
	if err := write(tmp); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

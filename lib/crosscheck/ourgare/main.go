// Command ourgare is our side of the GARE cross-check (lib/crosscheck/gare.py): lib/models/gare on
// the Charades descriptions ↔ videos track (lib/studies/garestudy.CharadesData) at the cross-check's
// configuration. Three modes:
//
//	ourgare -mode data  -config CFG -out DIR   the splits both sides read, as .npy files
//	ourgare -mode step  -config CFG -data DIR -seed S -out DIR   one batch: weights, loss terms, gradients, K steps
//	ourgare -mode init  -config CFG -data DIR -seed S -out DIR   the initial weights of seed S (init/)
//	ourgare -mode train -config CFG -data DIR -seed S -out DIR   a training run: val history, test scores
//
// data writes DIR/{train,val,test}_{text,frames,mask}.npy (float32: [N, TextDim], [N, F, VideoDim],
// [N, F]; pair i is text i ↔ video i) and DIR/counts.json. step writes, for the first Batch training
// pairs and a model drawn from seed S with ψ dropout off, init/<name>.npy (every trainable variable,
// its store path with '/' → '.'), the loss terms and grad/<name>.npy of the single-graph step's
// objective, then Steps optimizer steps of gare.Step on that batch with their loss terms and
// step<k>/<name>.npy. train trains gare.Model.Train with the val split selecting the epoch (ValMetric,
// t2v SumR) and writes result.json, and the selected model's val_scores.npy and test_scores.npy
// ([N, N], text × video). Bad flags, configuration
// or data: exit code 2.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/tracks"
	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/geoalign/geoalign/lib/npy"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/runcache"
	"github.com/geoalign/geoalign/lib/studies/garestudy"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style.
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// Config is gare.py's CONFIG: the one configuration both sides use.
type Config struct {
	Dim            int     `json:"dim"`
	TemporalLayers int     `json:"temporal_layers"`
	TemporalHeads  int     `json:"temporal_heads"`
	Batch          int     `json:"batch"`
	LR             float64 `json:"lr"`
	Epochs         int     `json:"epochs"`
	PsiDropout     float64 `json:"psi_dropout"`
	TrainPairs     int     `json:"train_pairs"`
	ValPairs       int     `json:"val_pairs"`
	TestPairs      int     `json:"test_pairs"`
	StepSteps      int     `json:"step_steps"`
	StepTotal      int     `json:"step_total_steps"`
}

func main() {
	mode := flag.String("mode", "", "data, step or train")
	cfgPath := flag.String("config", "", "configuration JSON (gare.py CONFIG)")
	dataDir := flag.String("data", "", "directory of the splits (-mode data's output)")
	cache := flag.String("cache", tracks.CacheDir(), "the data cache of `make data`")
	seed := flag.Int64("seed", 0, "model (and data order) seed")
	out := flag.String("out", "", "output directory")
	source := flag.Bool("source", false, "print the hash of this command's source (lib/runcache.SourceHash: every package it builds on) and exit")
	flag.Parse()
	if *source {
		src, err := runcache.SourceHash(runcache.Module + "/lib/crosscheck/ourgare")
		if err != nil {
			fail(1, err)
		}
		fmt.Println(src.Hash)
		return
	}
	if *cfgPath == "" || *out == "" {
		fail(2, fmt.Errorf("-config and -out are required"))
	}
	raw, err := os.ReadFile(*cfgPath)
	if err != nil {
		fail(2, err)
	}
	var c Config
	if err := json.Unmarshal(raw, &c); err != nil {
		fail(2, fmt.Errorf("%s: %w", *cfgPath, err))
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail(1, err)
	}
	switch *mode {
	case "data":
		err = writeData(*cache, c, *out)
	case "init":
		var splits map[string]*gare.Dataset
		if splits, err = readData(*dataDir); err != nil {
			fail(2, err)
		}
		err = initWeights(c, splits["train"], *seed, *out)
	case "step", "train":
		var splits map[string]*gare.Dataset
		if splits, err = readData(*dataDir); err != nil {
			fail(2, err)
		}
		if *mode == "step" {
			err = step(c, splits["train"], *seed, *out)
		} else {
			err = trainRun(c, splits, *seed, *out)
		}
	default:
		fail(2, fmt.Errorf("-mode %q: want data, init, step or train", *mode))
	}
	if err != nil {
		fail(1, err)
	}
}

func fail(code int, err error) {
	fmt.Fprintln(os.Stderr, "ourgare:", err)
	os.Exit(code)
}

// modelConfig is gare.DefaultConfig (the official code's loss weights, pooling temperature,
// BertAdam recipe) at the cross-check's size, trained from scratch: the input projections learn at
// the same rate as the rest (no pretrained encoders on either side).
func modelConfig(c Config, d *gare.Dataset) gare.Config {
	cfg := gare.DefaultConfig()
	cfg.Dim, cfg.Frames, cfg.TextInputDim, cfg.VideoInputDim = c.Dim, d.Frames, d.TextDim, d.VideoDim
	cfg.Words = garestudy.CharadesWords
	cfg.TemporalLayers, cfg.TemporalHeads = c.TemporalLayers, c.TemporalHeads
	cfg.Batch, cfg.LearningRate, cfg.Epochs, cfg.PsiDropout = c.Batch, c.LR, c.Epochs, c.PsiDropout
	cfg.ValFraction = 0 // the val split is given (TrainOptions.Val)
	return cfg
}

// writeData cuts the Charades track into the cross-check's splits: the first TrainPairs + ValPairs
// training pairs, of which data.CarveValidation sets ValPairs aside, and the first TestPairs test pairs.
func writeData(cache string, c Config, dir string) error {
	trainAll, testAll, err := garestudy.CharadesData(cache, "", c.TrainPairs+c.ValPairs, c.TestPairs)
	if err != nil {
		return err
	}
	if trainAll.NumTexts != c.TrainPairs+c.ValPairs || testAll.NumTexts != c.TestPairs {
		return fmt.Errorf("the Charades track has %d train and %d test pairs, the configuration asks for %d + %d and %d",
			trainAll.NumTexts, testAll.NumTexts, c.TrainPairs, c.ValPairs, c.TestPairs)
	}
	keep, held, err := data.CarveValidation(trainAll.NumTexts, float64(c.ValPairs)/float64(trainAll.NumTexts))
	if err != nil {
		return err
	}
	splits := map[string]*gare.Dataset{"train": trainAll.Subset("train", keep), "val": trainAll.Subset("val", held), "test": testAll}
	counts := map[string]any{}
	for name, d := range splits {
		if d.VideoOf != nil {
			return fmt.Errorf("split %s is not paired (text i ↔ video i)", name)
		}
		files := map[string]struct {
			shape []int
			data  []float32
		}{
			"text":   {[]int{d.NumTexts, d.TextDim}, d.Text},
			"frames": {[]int{d.NumVideos, d.Frames, d.VideoDim}, d.Video},
			"mask":   {[]int{d.NumVideos, d.Frames}, d.FrameMask},
		}
		for k, f := range files {
			if err := npy.WriteFile(filepath.Join(dir, name+"_"+k+".npy"), f.shape, f.data); err != nil {
				return err
			}
		}
		counts[name] = d.NumTexts
	}
	counts["train_indices_of_first_pairs"], counts["val_indices_of_first_pairs"] = keep, held
	counts["dropped_texts"] = trainAll.DroppedTexts + testAll.DroppedTexts
	return writeJSON(filepath.Join(dir, "counts.json"), counts)
}

// readData reads -mode data's splits back.
func readData(dir string) (map[string]*gare.Dataset, error) {
	out := map[string]*gare.Dataset{}
	for _, name := range []string{"train", "val", "test"} {
		read := func(k string) ([]float32, []int, error) {
			f, err := npy.Open(filepath.Join(dir, name+"_"+k+".npy"))
			if err != nil {
				return nil, nil, err
			}
			defer f.Close()
			v, err := npy.ReadAll[float32](f)
			return v, f.Header.Shape, err
		}
		text, ts, err := read("text")
		if err != nil {
			return nil, err
		}
		frames, fs, err := read("frames")
		if err != nil {
			return nil, err
		}
		mask, _, err := read("mask")
		if err != nil {
			return nil, err
		}
		if len(ts) != 2 || len(fs) != 3 || ts[0] != fs[0] {
			return nil, fmt.Errorf("%s: %s_text.npy %v and %s_frames.npy %v are not [N, D] and [N, F, D]", dir, name, ts, name, fs)
		}
		d := &gare.Dataset{Name: name, Kind: "label-derived", NumTexts: ts[0], NumVideos: fs[0], TextDim: ts[1],
			VideoDim: fs[2], Frames: fs[1], Text: text, Video: frames, FrameMask: mask}
		if err := d.Validate(); err != nil {
			return nil, err
		}
		out[name] = d
	}
	return out, nil
}

// trainable lists the model's trainable float32 variables in store order.
func trainable(m *gare.Model) []*model.Variable {
	var vs []*model.Variable
	for v := range m.Store.IterVariables() {
		if v.Trainable && v.DType() == dtypes.Float32 {
			vs = append(vs, v)
		}
	}
	return vs
}

// fileName is a variable's .npy name: its store path without the leading '/', '/' → '.'.
func fileName(path string) string {
	return strings.ReplaceAll(strings.TrimPrefix(path, "/"), "/", ".") + ".npy"
}

func writeTensor(path string, t *tensors.Tensor) error {
	return npy.WriteFile(path, t.Shape().Dimensions, tensors.MustCopyFlatData[float32](t))
}

func writeVariables(m *gare.Model, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, v := range trainable(m) {
		t, err := v.Value()
		if err != nil {
			return err
		}
		if err := writeTensor(filepath.Join(dir, fileName(v.Path())), t); err != nil {
			return err
		}
	}
	return nil
}

// batchInputs are the first n pairs of d as the step's input tensors (text, frames, mask).
func batchInputs(d *gare.Dataset, n int) []any {
	fw := d.Frames * d.VideoDim
	return []any{
		tensors.FromFlatDataAndDimensions(append([]float32(nil), d.Text[:n*d.TextDim]...), n, d.TextDim),
		tensors.FromFlatDataAndDimensions(append([]float32(nil), d.Video[:n*fw]...), n, d.Frames, d.VideoDim),
		tensors.FromFlatDataAndDimensions(append([]float32(nil), d.FrameMask[:n*d.Frames]...), n, d.Frames),
	}
}

// step writes the step check's files (see the package comment).
func step(c Config, d *gare.Dataset, seed int64, dir string) error {
	be, err := backend.New()
	if err != nil {
		return err
	}
	cfg := modelConfig(c, d)
	cfg.PsiDropout = 0 // deterministic: the official side's ψ dropout is set to p = 0 too
	m, err := gare.New(be, cfg, seed)
	if err != nil {
		return err
	}
	if err := writeVariables(m, filepath.Join(dir, "init")); err != nil {
		return err
	}
	// The objective of the single-graph step (train.go NewStep) and its gradient with respect to
	// every trainable variable, in an inference graph (variables as parameters, ψ dropout off).
	var vars []*model.Variable
	exec, err := train.NewInferenceExec(be, m.Store, func(scope *model.Scope, in []*Node) []*Node {
		g := in[0].Graph()
		terms := gare.Objective(cfg, gare.ForwardLean(cfg, m.Weights(g), gare.Inputs{Text: in[0], Frames: in[1], FrameMask: in[2]}, nil))
		vars = train.TrainableIn(m.Store.IterVariables(), g)
		outs := []*Node{terms.Total, terms.Info, terms.IB, terms.Norm, terms.Dir}
		return append(outs, Gradient(terms.Total, train.VariableNodes(vars, g)...)...)
	})
	if err != nil {
		return err
	}
	inputs := batchInputs(d, cfg.Batch)
	outs, err := exec.Exec(inputs...)
	if err != nil {
		return err
	}
	terms := func(ts []*tensors.Tensor) map[string]float64 {
		r := map[string]float64{}
		for i, k := range []string{"total", "info", "ib", "norm", "dir"} {
			r[k] = float64(tensors.ToScalar[float32](ts[i]))
		}
		return r
	}
	// which variables the optimizer decays (train.Adam.NoDecay: gare.CodeNoDecay, the code's grouping)
	opt := m.Optimizer(c.StepTotal)
	decayed := map[string]bool{}
	for _, v := range trainable(m) {
		decayed[strings.TrimSuffix(fileName(v.Path()), ".npy")] = !opt.NoDecay(v.Path())
	}
	res := map[string]any{"seed": seed, "batch": cfg.Batch, "backend": be.Name(), "config": cfg, "loss": terms(outs), "decayed": decayed}
	if err := os.MkdirAll(filepath.Join(dir, "grad"), 0o755); err != nil {
		return err
	}
	for i, v := range vars {
		if err := writeTensor(filepath.Join(dir, "grad", fileName(v.Path())), outs[5+i]); err != nil {
			return err
		}
	}
	train.FinalizeAll(outs)
	// StepSteps optimizer steps of the training step on the same batch, the schedule over StepTotal.
	st, err := m.NewStep(c.StepTotal, gare.SingleGraphStep)
	if err != nil {
		return err
	}
	idx := make([]int, cfg.Batch)
	for i := range idx {
		idx[i] = i
	}
	var steps []map[string]float64
	for k := 1; k <= c.StepSteps; k++ {
		s, err := st.Run(d, idx)
		if err != nil {
			return err
		}
		steps = append(steps, map[string]float64{"total": s.Total, "info": s.Info, "ib": s.IB, "norm": s.Norm, "dir": s.Dir})
		if err := writeVariables(m, filepath.Join(dir, fmt.Sprintf("step%d", k))); err != nil {
			return err
		}
	}
	res["steps"] = steps
	return writeJSON(filepath.Join(dir, "result.json"), res)
}

// initWeights writes the initial weights of seed's model to dir/init (the official side of a
// training run starts from them).
func initWeights(c Config, d *gare.Dataset, seed int64, dir string) error {
	be, err := backend.New()
	if err != nil {
		return err
	}
	m, err := gare.New(be, modelConfig(c, d), seed)
	if err != nil {
		return err
	}
	return writeVariables(m, filepath.Join(dir, "init"))
}

// trainRun trains one seed and scores the test split with the selected model.
func trainRun(c Config, splits map[string]*gare.Dataset, seed int64, dir string) error {
	be, err := backend.New()
	if err != nil {
		return err
	}
	cfg := modelConfig(c, splits["train"])
	m, err := gare.New(be, cfg, seed)
	if err != nil {
		return err
	}
	t0 := time.Now()
	tr, err := m.NewTrainer(splits["train"], gare.TrainOptions{Seed: seed, Val: splits["val"], Quiet: true})
	if err != nil {
		return err
	}
	result, err := tr.Train()
	if err != nil {
		return err
	}
	trainWall := time.Since(t0).Seconds()
	// the selected model's scores on val (so that both sides' val metrics come from one evaluator)
	// and on test
	if _, err := scoreMatrix(m, splits["val"], filepath.Join(dir, "val_scores.npy")); err != nil {
		return err
	}
	t1 := time.Now()
	test := splits["test"]
	mat, err := scoreMatrix(m, test, filepath.Join(dir, "test_scores.npy"))
	if err != nil {
		return err
	}
	ev, err := retrieval.Evaluate[float32](mat, test.GroundTruth(), retrieval.Options{})
	if err != nil {
		return err
	}
	var hist []map[string]any
	for _, r := range result.Records {
		hist = append(hist, map[string]any{"epoch": r.Epoch, "step": r.Step, "loss": r.Loss, "terms": r.Terms, "val": r.Val})
	}
	best := 0
	if result.Best != nil {
		best = result.Best.Epoch
	}
	res := map[string]any{
		"seed": seed, "backend": be.Name(), "gomaxprocs": runtime.GOMAXPROCS(0), "config": cfg,
		"history": hist, "best_epoch": best, "steps": result.Steps, "stopped": result.Stopped,
		"test": map[string]float64{"R@1": ev.T2V.R(1), "R@5": ev.T2V.R(5), "R@10": ev.T2V.R(10), "SumR": ev.T2V.SumR,
			"MdR": ev.T2V.MdR, "MnR": ev.T2V.MnR},
		"train_wall_seconds": trainWall, "test_wall_seconds": time.Since(t1).Seconds(),
	}
	return writeJSON(filepath.Join(dir, "result.json"), res)
}

// scoreMatrix scores every text of d against every video of d with the model (gare.Scorer) and
// writes the matrix [NumTexts, NumVideos] to path.
func scoreMatrix(m *gare.Model, d *gare.Dataset, path string) (retrieval.Matrix[float32], error) {
	sc, err := m.NewScorer(d, d.Videos(), gare.ScorerOptions{})
	if err != nil {
		return retrieval.Matrix[float32]{}, err
	}
	mat, err := sc.Matrix()
	if err != nil {
		return retrieval.Matrix[float32]{}, err
	}
	return mat, npy.WriteFile(path, []int{d.NumTexts, d.NumVideos}, mat.Data)
}

func writeJSON(path string, v any) error { return atomicfile.WriteJSON(path, v) }

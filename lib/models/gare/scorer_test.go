package gare

import (
	"math"
	"testing"

	"github.com/geoalign/geoalign/lib/retrieval"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// newScorer is m.NewScorer over every video of d; a failure ends the test.
func newScorer(t *testing.T, m *Model, d *Dataset, opts ScorerOptions) *Scorer {
	t.Helper()
	sc, err := m.NewScorer(d, d.Videos(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// scoreMatrix is sc.Matrix; a failure ends the test.
func scoreMatrix(t *testing.T, sc *Scorer) retrieval.Matrix[float32] {
	t.Helper()
	mat, err := sc.Matrix()
	if err != nil {
		t.Fatal(err)
	}
	return mat
}

// forwardSim is Forward(...).Sim of the model on the whole dataset in one graph (float32).
func forwardSim(t *testing.T, m *Model, d *Dataset) []float32 {
	t.Helper()
	idx := make([]int, d.NumTexts)
	for i := range idx {
		idx[i] = i
	}
	useWords := m.Config.Context == ContextWords
	exec, err := model.NewExec(m.backend, m.Store, func(scope *model.Scope, in []*Node) []*Node {
		inputs := Inputs{Text: in[0], Frames: in[1], FrameMask: in[2]}
		if useWords {
			inputs.Words, inputs.WordMask = in[3], in[4]
		}
		return []*Node{Forward(m.Config, m.Weights(in[0].Graph()), inputs, nil).Sim}
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Exec(batchTensors(d, idx, useWords)...)
	if err != nil {
		t.Fatal(err)
	}
	return tensors.MustCopyFlatData[float32](out[0])
}

func smallModelConfig() Config {
	cfg := DefaultConfig()
	cfg.Dim, cfg.Frames, cfg.TextInputDim, cfg.VideoInputDim, cfg.Words = 16, 4, 6, 5, 3
	cfg.TemporalLayers, cfg.TemporalHeads = 1, 2
	return cfg
}

func withWords(d *Dataset, words int, seed uint64) *Dataset {
	w := RandomDataset(d.NumTexts*words, d.TextDim, 1, 1, 1, seed)
	d.Words, d.WordFeats = words, w.Text
	d.WordMask = make([]float32, d.NumTexts*words)
	for i := range d.WordMask {
		d.WordMask[i] = 1
	}
	return d
}

// TestScorerMatchesForward: the block-by-block Scorer (factored ψ for frame contexts, the
// per-pair forward for word contexts; partial blocks padded) gives the one-graph forward's
// similarities, and the CandidateScorer gives the same numbers for arbitrary candidate lists.
func TestScorerMatchesForward(t *testing.T) {
	for name, mutate := range map[string]func(*Config){
		"code":            func(*Config) {},
		"baseline":        func(c *Config) { *c = BaselineConfig(*c) },
		"video-corrected": func(c *Config) { c.Corrected = CorrectVideo },
		"word context":    func(c *Config) { c.Context = ContextWords },
	} {
		t.Run(name, func(t *testing.T) {
			cfg := smallModelConfig()
			mutate(&cfg)
			m := newModel(t, cfg, 3)
			d := withWords(RandomDataset(37, cfg.TextInputDim, cfg.VideoInputDim, cfg.Frames, 1, 4), cfg.Words, 5)
			want := forwardSim(t, m, d)
			sc := newScorer(t, m, d, ScorerOptions{TextBlock: 16, VideoBlock: 8})
			mat := scoreMatrix(t, sc)
			for i, w := range want {
				if math.Abs(float64(mat.Data[i]-w)) > 2e-5 {
					t.Fatalf("score %d (text %d, video %d): scorer %.7f, forward %.7f", i, i/37, i%37, mat.Data[i], w)
				}
			}
			items := []int32{36, 0, 17, 5, 5, 30, 8, 9, 10, 11, 12}
			got := make([]float32, len(items))
			if err := sc.ScoreCandidates(21, items, got); err != nil {
				t.Fatal(err)
			}
			for k, it := range items {
				if math.Abs(float64(got[k]-want[21*37+int(it)])) > 2e-5 {
					t.Fatalf("candidate %d (video %d): %.7f, forward %.7f", k, it, got[k], want[21*37+int(it)])
				}
			}
		})
	}
}

// TestMeanCosineScorer: the two-stage shortlist score is cos(t_i, v̄_j) of the encoded features.
func TestMeanCosineScorer(t *testing.T) {
	cfg := smallModelConfig()
	m := newModel(t, cfg, 3)
	d := RandomDataset(19, cfg.TextInputDim, cfg.VideoInputDim, cfg.Frames, 1, 6)
	sc := newScorer(t, m, d, ScorerOptions{Mode: ScoreMeanCosine, TextBlock: 8, VideoBlock: 8})
	mat := scoreMatrix(t, sc)
	idx := make([]int, d.NumTexts)
	for i := range idx {
		idx[i] = i
	}
	exec, err := model.NewExec(m.backend, m.Store, func(scope *model.Scope, in []*Node) []*Node {
		w := m.Weights(in[0].Graph())
		return []*Node{EncodeText(w, in[0]), FrameMean(EncodeVideo(w, in[1], in[2]))}
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Exec(batchTensors(d, idx, false)...)
	if err != nil {
		t.Fatal(err)
	}
	tx, vx := tensors.MustCopyFlatData[float32](out[0]), tensors.MustCopyFlatData[float32](out[1])
	dim := cfg.Dim
	for i := range d.NumTexts {
		for j := range d.NumVideos {
			var dot, tt, vv float64
			for k := range dim {
				a, b := float64(tx[i*dim+k]), float64(vx[j*dim+k])
				dot, tt, vv = dot+a*b, tt+a*a, vv+b*b
			}
			if want := dot / math.Sqrt(tt*vv); math.Abs(float64(mat.Data[i*19+j])-want) > 1e-5 {
				t.Fatalf("cos(%d, %d) = %.7f, want %.7f", i, j, mat.Data[i*19+j], want)
			}
		}
	}
}

// TestFactoredFloat32AtScale: at the benchmark width (D = 512) the float32 factored scores stay
// within 1e-4 of the float32 per-pair reference (the expansions of ‖t + Δ‖² do not lose precision).
func TestFactoredFloat32AtScale(t *testing.T) {
	cfg := DefaultConfig()
	cfg.TemporalLayers = 0
	m := newModel(t, cfg, 7)
	d := RandomDataset(24, cfg.TextInputDim, cfg.VideoInputDim, cfg.Frames, 0.4, 8)
	want := forwardSim(t, m, d)
	sc := newScorer(t, m, d, ScorerOptions{})
	mat := scoreMatrix(t, sc)
	worst := 0.0
	for i, w := range want {
		worst = math.Max(worst, math.Abs(float64(mat.Data[i]-w)))
	}
	if worst > 1e-4 {
		t.Fatalf("float32 factored vs per-pair: max |difference| %.3g", worst)
	}
}

package gare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/loss"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// smallStepConfig is a GARE small enough for a test step: 8 pairs, 4 frames, 16-d, one temporal
// layer, projections on both sides.
func smallStepConfig() Config {
	cfg := tinyConfig()
	cfg.Dim, cfg.TextInputDim, cfg.VideoInputDim, cfg.Words = 16, 10, 12, 5
	cfg.PsiDropout = DefaultConfig().PsiDropout
	cfg.Batch = 8
	return cfg
}

// singleGraphGradients is the reference: graph.Gradient of Objective(ForwardLean) over the whole
// batch in one graph (the single-graph step without its update), per variable path, and the loss.
// The store's RNG state is restored afterwards, so that a step run next draws the same dropout.
func singleGraphGradients(t *testing.T, m *Model, batch []any) (float64, map[string][]float32) {
	t.Helper()
	rng := m.Store.GetVariable(model.JoinPath("/", model.RNGStateVariableName))
	saved, err := rng.Value()
	if err != nil {
		t.Fatal(err)
	}
	saved, err = saved.Clone()
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	exec, err := model.NewExec(m.backend, m.Store, func(scope *model.Scope, in []*Node) []*Node {
		g := in[0].Graph()
		m.Store.SetTraining(g, true)
		x := Inputs{Text: in[0], Frames: in[1], FrameMask: in[2]}
		if len(in) > 3 {
			x.Words, x.WordMask = in[3], in[4]
		}
		terms := Objective(m.Config, ForwardLean(m.Config, m.Weights(g), x, m.dropout(scope, g)))
		var params []*Node
		for v := range m.Store.IterVariables() {
			if v.Trainable && v.InUseByGraph(g) {
				params = append(params, v.NodeValue(g))
				paths = append(paths, v.Path())
			}
		}
		return append([]*Node{terms.Total}, Gradient(terms.Total, params...)...)
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Exec(batch...)
	if err != nil {
		t.Fatal(err)
	}
	if err := rng.SetValue(saved); err != nil {
		t.Fatal(err)
	}
	grads := map[string][]float32{}
	for i, p := range paths {
		grads[p] = tensors.MustCopyFlatData[float32](out[i+1])
	}
	return float64(tensors.ToScalar[float32](out[0])), grads
}

// TestChunkedStepGradientsMatchSingleGraph checks the chunked step's gradient — blocks of texts, the
// head linearised at the batch's moments, the encoders back-propagated last — against autodiff of the
// whole objective in one graph, for every loss variant and both sides of the correction, with blocks
// of 1, 2 and 4 texts (no dropout) and with dropout in blocks of 2 and in one block (lib/seedrand keys
// ψ's masks by text, so every block draws the single graph's masks; issue 50). A wrong factor in the linearisation (the 1/n of the
// mean, the 1/(n−1) of the variance, a missing block) moves the gradients by O(1) relative.
func TestChunkedStepGradientsMatchSingleGraph(t *testing.T) {
	type variant struct {
		name    string
		mutate  func(*Config)
		chunks  []int
		dropout bool
	}
	variants := []variant{
		{"code", func(*Config) {}, []int{1, 2, 4}, false},
		{"paper-loss", func(c *Config) { c.Loss = loss.PaperGAREConfig() }, []int{2}, false},
		{"text-anchor-normalized-sigma", func(c *Config) {
			c.Loss.IB.Anchor = loss.IBAnchorText
			c.NormalizedIB, c.PriorSigma = true, 2
			c.Loss.Beta = 0.05 // large enough that an IB error shows
		}, []int{2}, false},
		{"video-anchor-strong-ib", func(c *Config) { c.Loss.Beta = 0.05 }, []int{1, 4, 8}, false},
		{"orthogonality-video-corrected", func(c *Config) {
			c.Loss.Directional = loss.DirectionalStrictOrthogonality
			c.Corrected = CorrectVideo
			c.Loss.LambdaDir = 0.5
		}, []int{2}, false},
		{"query-text-words", func(c *Config) { c.Query, c.Context = QueryText, ContextWords }, []int{4}, false},
		{"dropout", func(*Config) {}, []int{2, 8}, true},
	}
	for _, v := range variants {
		for _, chunk := range v.chunks {
			t.Run(fmt.Sprintf("%s/chunk%d", v.name, chunk), func(t *testing.T) {
				if v.name != "code" || chunk != 2 {
					backend.SkipOnXLA(t, "the linearisation is backend-independent graph code, checked here on the Go backend "+
						"for every variant; on XLA code/chunk2 runs (each variant compiles a single graph and a chunked step, "+
						"about 40 s of CPU each), and lib/parity compares the single-graph step of both backends")
				}
				cfg := smallStepConfig()
				v.mutate(&cfg)
				if !v.dropout {
					cfg.PsiDropout = 0
				}
				m := newModel(t, cfg, 5)
				sharpenPsi(t, m)
				data := RandomDataset(cfg.Batch, cfg.TextInputDim, cfg.VideoInputDim, cfg.Frames, 0.3, 11)
				words := cfg.Context == ContextWords
				if words {
					data = withRandomWords(data, cfg.Words, 12)
				}
				idx := make([]int, cfg.Batch)
				for i := range idx {
					idx[i] = i
				}
				batch := batchTensors(data, idx, words)
				wantLoss, want := singleGraphGradients(t, m, batch)

				cs, err := newChunkedStep(m, m.Optimizer(10), chunk)
				if err != nil {
					t.Fatal(err)
				}
				cs.gradientsOnly = true
				st, out, err := cs.execute(batch)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("terms: total %.6g info %.6g IB %.6g norm %.6g dir %.6g", st.Total, st.Info, st.IB, st.Norm, st.Dir)
				if math.Abs(st.Total-wantLoss) > 1e-5*math.Max(1, math.Abs(wantLoss)) {
					t.Errorf("loss: chunked %.7g, single graph %.7g", st.Total, wantLoss)
				}
				if len(cs.updateVars) != len(want) {
					t.Fatalf("chunked step updates %d variables, the single graph %d", len(cs.updateVars), len(want))
				}
				var global float64
				for _, ref := range want {
					for _, x := range ref {
						global += float64(x) * float64(x)
					}
				}
				global = math.Sqrt(global)
				for i, vr := range cs.updateVars {
					got := tensors.MustCopyFlatData[float32](out[i])
					ref, ok := want[vr.Path()]
					if !ok {
						t.Fatalf("variable %s has no single-graph gradient", vr.Path())
					}
					var diff, norm float64
					for k := range ref {
						diff += math.Pow(float64(got[k]-ref[k]), 2)
						norm += math.Pow(float64(ref[k]), 2)
					}
					// Relative to the variable's gradient, floored at 1e-4 of the whole gradient:
					// the key biases have an exactly zero gradient (softmax is shift-invariant), so
					// both sides are rounding noise there.
					scale := math.Max(math.Sqrt(norm), 1e-4*global)
					if rel := math.Sqrt(diff) / scale; rel > 1e-4 {
						t.Errorf("%s: gradient error %.2e relative (‖ref‖ %.3g, whole gradient %.3g)", vr.Path(), rel, math.Sqrt(norm), global)
					}
				}
			})
		}
	}
}

// sharpenPsi redraws ψ's projections at std 0.4 (the code's 0.02 leaves the attention uniform and Δ
// almost the same for every text: std over texts ≈ 4e-4, which makes L_IB's 1/σ² gradient an
// ill-conditioned float32 quantity and the comparison one of rounding, not of formulas).
func sharpenPsi(t *testing.T, m *Model) {
	t.Helper()
	rng := rand.New(rand.NewPCG(21, 22))
	p := m.vars.psi
	for _, l := range []linearVars{p.q, p.k, p.v, p.o, p.linear1, p.meanOut} {
		d := l.w.Shape().Dimensions
		if err := l.w.SetValue(normalTensor(rng, 0.4, d...)); err != nil {
			t.Fatal(err)
		}
		if err := l.b.SetValue(normalTensor(rng, 0.1, l.b.Shape().Dimensions...)); err != nil {
			t.Fatal(err)
		}
	}
}

// withRandomWords gives d word features (the text feature spread over the words with noise) so
// that ContextWords can run.
func withRandomWords(d *Dataset, words int, seed uint64) *Dataset {
	r := RandomDataset(d.NumTexts, d.TextDim*words, d.VideoDim, d.Frames, 0.3, seed)
	out := *d
	out.Words = words
	out.WordFeats = r.Text[:d.NumTexts*words*d.TextDim]
	out.WordMask = make([]float32, d.NumTexts*words)
	for i := range out.WordMask {
		out.WordMask[i] = 1
		if i%words == words-1 && (i/words)%2 == 0 {
			out.WordMask[i] = 0 // every other text has a padded last word
		}
	}
	return &out
}

// TestChunkedStepErrors: the chunked step refuses the baseline and a block size below 1.
func TestChunkedStepErrors(t *testing.T) {
	cfg := smallStepConfig()
	base := newModel(t, BaselineConfig(cfg), 1)
	if _, err := newChunkedStep(base, base.Optimizer(1), 4); err == nil {
		t.Error("chunked step accepted the baseline")
	}
	m := newModel(t, cfg, 1)
	if _, err := newChunkedStep(m, m.Optimizer(1), 0); err == nil {
		t.Error("chunked step accepted a block of 0 texts")
	}
}

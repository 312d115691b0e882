package gare

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/geoalign/geoalign/lib/backend"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck
	"github.com/gomlx/gomlx/core/tensors"
)

// valueTol is the absolute tolerance between float64 graphs and the float64 loop references.
const valueTol = 1e-9

// testNet is a set of random float64 parameters for a configuration, usable both as graph inputs
// (weights) and as loop-reference parameters.
type testNet struct {
	cfg    Config
	params []arr
}

// Parameter layout: [text W, b] [video W, b] [positions] per temporal layer (ln1 g b, ln2 g b,
// q k v o fc proj as W b) [ψ: ln1 ln2 ln3 as g b, q k v o linear1 mean as W b].
func newTestNet(cfg Config, rng *rand.Rand) testNet {
	n := testNet{cfg: cfg}
	d := cfg.Dim
	lin := func(in, out int) {
		n.params = append(n.params, randArr(rng, 0.6/math.Sqrt(float64(in)), in, out), randArr(rng, 0.2, out))
	}
	norm := func() {
		g := randArr(rng, 0.3, d)
		for i := range g.data {
			g.data[i] += 1
		}
		n.params = append(n.params, g, randArr(rng, 0.3, d))
	}
	if cfg.TextInputDim != d {
		lin(cfg.TextInputDim, d)
	}
	if cfg.VideoInputDim != d {
		lin(cfg.VideoInputDim, d)
	}
	if cfg.TemporalLayers > 0 {
		n.params = append(n.params, randArr(rng, 0.3, cfg.Frames, d))
		for range cfg.TemporalLayers {
			norm()
			norm()
			lin(d, d)
			lin(d, d)
			lin(d, d)
			lin(d, d)
			lin(d, 4*d)
			lin(4*d, d)
		}
	}
	if cfg.UseDelta {
		norm()
		norm()
		norm()
		for range 6 {
			lin(d, d)
		}
	}
	return n
}

func (n testNet) tensors() []*tensors.Tensor {
	out := make([]*tensors.Tensor, len(n.params))
	for i, p := range n.params {
		out[i] = p.tensor()
	}
	return out
}

// weights builds Weights from the parameter nodes (same layout as params).
func (n testNet) weights(ns []*Node) Weights {
	var w Weights
	i := 0
	next := func() *Node { i++; return ns[i-1] }
	lin := func() Linear { return Linear{next(), next()} }
	norm := func() Norm { return Norm{Gain: next(), Bias: next()} }
	d := n.cfg.Dim
	if n.cfg.TextInputDim != d {
		l := lin()
		w.TextProj = &l
	}
	if n.cfg.VideoInputDim != d {
		l := lin()
		w.VideoProj = &l
	}
	if n.cfg.TemporalLayers > 0 {
		w.FramePositions = next()
		for range n.cfg.TemporalLayers {
			l := TemporalLayer{Heads: n.cfg.TemporalHeads, LN1: norm(), LN2: norm()}
			l.LN1.Eps, l.LN2.Eps = temporalLayerNormEpsilon, temporalLayerNormEpsilon // as params.go reads them
			l.Q, l.K, l.V, l.O, l.FC, l.Proj = lin(), lin(), lin(), lin(), lin(), lin()
			w.Temporal = append(w.Temporal, l)
		}
	}
	if n.cfg.UseDelta {
		p := &PsiWeights{LN1: norm(), LN2: norm(), LN3: norm()}
		p.Q, p.K, p.V, p.O, p.Linear1, p.MeanOut = lin(), lin(), lin(), lin(), lin(), lin()
		w.Psi = p
	}
	if i != len(ns) {
		panic("testNet.weights: layout mismatch")
	}
	return w
}

// refParams returns the loop-reference parameters (same layout).
func (n testNet) ref() (textProj, videoProj *refLin, positions arr, temporal []refTemporalLayer, psi *refPsiParams) {
	i := 0
	next := func() arr { i++; return n.params[i-1] }
	lin := func() refLin { w := next(); return refLin{w, next().data} }
	norm := func() refNorm { g := next(); return refNorm{g.data, next().data} }
	d := n.cfg.Dim
	if n.cfg.TextInputDim != d {
		l := lin()
		textProj = &l
	}
	if n.cfg.VideoInputDim != d {
		l := lin()
		videoProj = &l
	}
	if n.cfg.TemporalLayers > 0 {
		positions = next()
		for range n.cfg.TemporalLayers {
			l := refTemporalLayer{heads: n.cfg.TemporalHeads, ln1: norm(), ln2: norm()}
			l.q, l.k, l.v, l.o, l.fc, l.proj = lin(), lin(), lin(), lin(), lin(), lin()
			temporal = append(temporal, l)
		}
	}
	if n.cfg.UseDelta {
		p := &refPsiParams{ln1: norm(), ln2: norm(), ln3: norm()}
		p.q, p.k, p.v, p.o, p.lin1, p.mean = lin(), lin(), lin(), lin(), lin(), lin()
		psi = p
	}
	return
}

// run executes fn on inputs (data tensors first, then the net's parameters) and returns the
// outputs as float64 slices.
func run(t testing.TB, n testNet, data []*tensors.Tensor, fn func(w Weights, in []*Node) []*Node) [][]float64 {
	t.Helper()
	return runner(n, len(data), fn)(data)
}

// runner compiles fn once for nd data inputs followed by n's parameters and returns a function
// that executes it on data and the parameters' current values (n.params, read at every call):
// for loops that evaluate one graph many times, such as finite differences, where a new Exec per
// evaluation would build the graph again and, on XLA, compile it again (docs/xla.md §2).
func runner(n testNet, nd int, fn func(w Weights, in []*Node) []*Node) func(data []*tensors.Tensor) [][]float64 {
	exec := MustNewExec(backend.MustNew(), func(in []*Node) []*Node {
		return fn(n.weights(in[nd:]), in[:nd])
	})
	return func(data []*tensors.Tensor) [][]float64 {
		args := make([]any, 0, nd+len(n.params))
		for _, x := range data {
			args = append(args, x)
		}
		for _, x := range n.tensors() {
			args = append(args, x)
		}
		res := exec.MustExec(args...)
		out := make([][]float64, len(res))
		for i, r := range res {
			out[i] = flat64(r)
		}
		return out
	}
}

func flat64(x *tensors.Tensor) []float64 {
	if x.Shape().IsScalar() {
		switch v := x.Value().(type) {
		case float64:
			return []float64{v}
		case float32:
			return []float64{float64(v)}
		}
	}
	if x.DType().String() == "Float32" {
		f := tensors.MustCopyFlatData[float32](x)
		out := make([]float64, len(f))
		for i, v := range f {
			out[i] = float64(v)
		}
		return out
	}
	return tensors.MustCopyFlatData[float64](x)
}

func assertClose(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	worst, at := 0.0, 0
	for i := range got {
		e := math.Abs(got[i]-want[i]) / math.Max(1, math.Abs(want[i]))
		if !(e <= worst) { // NaN counts as worst
			worst, at = e, i
			if math.IsNaN(e) {
				break
			}
		}
	}
	if !(worst <= tol) {
		t.Fatalf("%s: max error %.3g at %d (got %.12g, want %.12g), tolerance %.1g", what, worst, at, got[at], want[at], tol)
	}
}

// newModel is New on the default backend; a failure ends the test or benchmark.
func newModel(tb testing.TB, cfg Config, seed int64) *Model {
	tb.Helper()
	m, err := New(backend.MustNew(), cfg, seed)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// newTrainer is m.NewTrainer; a failure ends the test.
func newTrainer(t *testing.T, m *Model, d *Dataset, opts TrainOptions) *Trainer {
	t.Helper()
	tr, err := m.NewTrainer(d, opts)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// tinyConfig is a small configuration with every part present.
func tinyConfig() Config {
	cfg := DefaultConfig()
	cfg.Dim, cfg.Frames, cfg.TextInputDim, cfg.VideoInputDim, cfg.Words = 6, 4, 5, 7, 3
	cfg.TemporalLayers, cfg.TemporalHeads = 1, 2
	cfg.PsiDropout = 0
	return cfg
}

// frames3 views an arr [B, F, D] as [B][F][]float64.
func frames3(a arr) [][][]float64 {
	out := make([][][]float64, a.dims[0])
	for b := range out {
		out[b] = make([][]float64, a.dims[1])
		for f := range out[b] {
			out[b][f] = a.row(b, f)
		}
	}
	return out
}

func ones(n int) []float64 {
	o := make([]float64, n)
	for i := range o {
		o[i] = 1
	}
	return o
}

func TestPsiReferenceAgainstLoops(t *testing.T) {
	cfg := tinyConfig()
	rng := rand.New(rand.NewPCG(1, 2))
	n := newTestNet(cfg, rng)
	_, _, _, _, rp := n.ref()
	a, b, f, d := 3, 4, cfg.Frames, cfg.Dim
	query := randArr(rng, 1, a, b, d)
	ctx := randArr(rng, 1, b, f, d)
	mask := arr{[]float64{1, 1, 1, 1, 1, 1, 0, 1, 1, 0, 0, 1, 1, 1, 1, 0}, []int{b, f}}
	keep := randArr(rng, 1, a, b, d)
	for i := range keep.data {
		keep.data[i] = float64(map[bool]int{true: 0, false: 2}[keep.data[i] < 0]) // dropout-like 0/2 mask
	}
	for _, withMask := range []bool{false, true} {
		for _, withKeep := range []bool{false, true} {
			out := run(t, n, []*tensors.Tensor{query.tensor(), ctx.tensor(), mask.tensor(), keep.tensor()}, func(w Weights, in []*Node) []*Node {
				var m *Node
				if withMask {
					m = in[2]
				}
				var drop func(*Node) *Node
				if withKeep {
					drop = func(x *Node) *Node { return Mul(x, in[3]) }
				}
				return []*Node{PsiReference(w.Psi, in[0], in[1], m, drop)}
			})
			var want []float64
			for i := range a {
				for j := range b {
					var mrow, krow []float64
					if withMask {
						mrow = mask.row(j)
					}
					if withKeep {
						krow = keep.row(i, j)
					}
					want = append(want, refPsi(*rp, query.row(i, j), frames3(ctx)[j], mrow, krow)...)
				}
			}
			assertClose(t, "PsiReference", out[0], want, valueTol)
		}
	}
}

// The factored Δ and ψ's attention weights (PsiAttention) equal the loop reference's for every query
// mode.
func TestFactoredPsiAgainstLoops(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name  string
		gap   GapSign
		query QueryMode
		keep  bool
	}{
		{"gap v-t", GapVideoMinusText, QueryGap, false},
		{"gap t-v", GapTextMinusVideo, QueryGap, false},
		{"no-gap query", GapVideoMinusText, QueryText, false},
		{"gap v-t with dropout mask", GapVideoMinusText, QueryGap, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tinyConfig()
			cfg.TextInputDim, cfg.VideoInputDim, cfg.TemporalLayers = cfg.Dim, cfg.Dim, 0
			cfg.Gap, cfg.Query = tc.gap, tc.query
			n := newTestNet(cfg, rng)
			_, _, _, _, rp := n.ref()
			a, b, f, d := 3, 5, cfg.Frames, cfg.Dim
			text := randArr(rng, 1, a, d)
			frames := randArr(rng, 1, b, f, d)
			keep := randArr(rng, 1, a, b, d)
			for i := range keep.data {
				keep.data[i] = float64(map[bool]int{true: 0, false: 2}[keep.data[i] < 0])
			}
			out := run(t, n, []*tensors.Tensor{text.tensor(), frames.tensor(), keep.tensor()}, func(w Weights, in []*Node) []*Node {
				var drop func(*Node) *Node
				if tc.keep {
					drop = func(x *Node) *Node { return Mul(x, in[2]) }
				}
				return []*Node{Delta(cfg, w, in[0], in[1], Inputs{}, drop), PsiAttention(cfg, w, in[0], in[1])}
			})
			var want, wantAttention []float64
			for i := range a {
				ti := text.row(i)
				for j := range b {
					fr := frames3(frames)[j]
					mean := refFrameMean(fr)
					q := refPsiQuery(tc.gap, tc.query, ti, mean)
					wantAttention = append(wantAttention, refPsiAttention(*rp, q, fr, nil)...)
					var krow []float64
					if tc.keep {
						krow = keep.row(i, j)
					}
					psi := refPsi(*rp, q, fr, nil, krow)
					if tc.query == QueryText {
						for k := range psi {
							psi[k] = mean[k] - psi[k]
						}
					}
					want = append(want, psi...)
				}
			}
			assertClose(t, "factored Δ", out[0], want, valueTol)
			assertClose(t, "PsiAttention", out[1], wantAttention, valueTol)
		})
	}
}

// Probe feeds fn the dataset's rows idx, text k with video k.
func TestProbeGathersThePairs(t *testing.T) {
	cfg := tinyConfig()
	m := newModel(t, cfg, 1)
	d := RandomDataset(6, cfg.TextInputDim, cfg.VideoInputDim, cfg.Frames, 1, 3)
	idx := []int{4, 1, 5}
	out, err := m.Probe(d, idx, func(w Weights, in Inputs) []*Node { return []*Node{in.Text, in.Frames} })
	if err != nil {
		t.Fatal(err)
	}
	var text, frames []float64
	fw := cfg.Frames * cfg.VideoInputDim
	for _, i := range idx {
		for _, v := range d.Text[i*cfg.TextInputDim : (i+1)*cfg.TextInputDim] {
			text = append(text, float64(v))
		}
		for _, v := range d.Video[i*fw : (i+1)*fw] {
			frames = append(frames, float64(v))
		}
	}
	assertClose(t, "probed texts", flat64(out[0]), text, 0)
	assertClose(t, "probed frames", flat64(out[1]), frames, 0)
}

func TestPoolingGapAndCosineAgainstLoops(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	a, b, f, d := 3, 4, 5, 6
	text := randArr(rng, 1, a, d)
	frames := randArr(rng, 1, b, f, d)
	mask := arr{[]float64{1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1, 0}, []int{b, f}}
	const temp = 3.0
	n := testNet{cfg: Config{Dim: d, TextInputDim: d, VideoInputDim: d}}
	out := run(t, n, []*tensors.Tensor{text.tensor(), frames.tensor(), mask.tensor()}, func(_ Weights, in []*Node) []*Node {
		weights, dots := PoolingWeights(in[0], in[1], in[2], temp)
		pooled := PooledVideo(weights, in[1])
		gap := SemanticGap(in[0], FrameMean(in[1]), 1)
		neg := SemanticGap(in[0], FrameMean(in[1]), -1)
		adj := Add(InsertAxes(in[0], 1), gap)
		return []*Node{weights, dots, pooled, gap, neg, PairCosine(adj, pooled)}
	})
	var wantW, wantDots, wantPooled, wantGap, wantNeg, wantCos []float64
	for i := range a {
		for j := range b {
			fr := frames3(frames)[j]
			w, p := refPool(text.row(i), fr, mask.row(j), temp)
			wantW = append(wantW, w...)
			for _, h := range fr {
				wantDots = append(wantDots, floats.Dot(text.row(i), h))
			}
			wantPooled = append(wantPooled, p...)
			m := refFrameMean(fr)
			adj := make([]float64, d)
			for k := range m {
				wantGap = append(wantGap, m[k]-text.row(i)[k])
				wantNeg = append(wantNeg, text.row(i)[k]-m[k])
				adj[k] = m[k]
			}
			wantCos = append(wantCos, refCos(adj, p))
		}
	}
	// The mask is applied after the softmax without renormalising: masked rows sum to < 1.
	sum := 0.0
	for _, v := range wantW[f*3 : f*4] { // pair (0, 3): video 3 has one masked frame
		sum += v
	}
	if sum >= 1-1e-9 {
		t.Fatalf("reference weights of a partly masked video sum to %g, want < 1", sum)
	}
	assertClose(t, "pooling weights", out[0], wantW, valueTol)
	assertClose(t, "dot products", out[1], wantDots, valueTol)
	assertClose(t, "pooled video", out[2], wantPooled, valueTol)
	assertClose(t, "gap v−t", out[3], wantGap, valueTol)
	assertClose(t, "gap t−v", out[4], wantNeg, valueTol)
	assertClose(t, "cosine", out[5], wantCos, valueTol)
}

// refForward is the whole similarity of Forward in loops: texts [A][Dt], frames [B][F][Dv], mask.
func refForward(n testNet, text, frames, mask arr, words, wordMask arr) []float64 {
	cfg := n.cfg
	tp, vp, pos, temporal, rp := n.ref()
	a, b, d := text.dims[0], frames.dims[0], cfg.Dim
	project := func(x []float64, l *refLin) []float64 {
		if l == nil {
			return append([]float64(nil), x...)
		}
		return refLinear(x, l.w, l.b)
	}
	ts := make([][]float64, a)
	for i := range ts {
		ts[i] = project(text.row(i), tp)
	}
	hs := make([][][]float64, b)
	for j := range hs {
		fr := make([][]float64, cfg.Frames)
		for f := range fr {
			fr[f] = project(frames.row(j, f), vp)
		}
		if len(temporal) > 0 {
			fr = refTemporal(temporal, fr, frames3(arr{pos.data, []int{1, cfg.Frames, d}})[0], mask.row(j))
		}
		hs[j] = fr
	}
	var sims []float64
	for i := range a {
		for j := range b {
			_, pooled := refPool(ts[i], hs[j], mask.row(j), cfg.PoolTemperature)
			if !cfg.UseDelta {
				sims = append(sims, refCos(ts[i], pooled))
				continue
			}
			mean := refFrameMean(hs[j])
			alpha, beta := queryCoefficients(cfg)
			q := make([]float64, d)
			for k := range q {
				q[k] = alpha*mean[k] + beta*ts[i][k]
			}
			var psi []float64
			if cfg.Context == ContextWords {
				ws := make([][]float64, cfg.Words)
				for l := range ws {
					ws[l] = project(words.row(i, l), tp)
				}
				psi = refPsi(*rp, q, ws, wordMask.row(i), nil)
			} else {
				psi = refPsi(*rp, q, hs[j], nil, nil)
			}
			delta := psi
			if cfg.Query == QueryText {
				delta = make([]float64, d)
				for k := range delta {
					delta[k] = mean[k] - psi[k]
				}
			}
			x, y := make([]float64, d), make([]float64, d)
			for k := range x {
				if cfg.Corrected == CorrectVideo {
					x[k], y[k] = ts[i][k], pooled[k]+delta[k]
				} else {
					x[k], y[k] = ts[i][k]+delta[k], pooled[k]
				}
			}
			sims = append(sims, refCos(x, y))
		}
	}
	return sims
}

// variants are the configurations the forward and the factored scores are checked on.
func variants() map[string]Config {
	out := map[string]Config{}
	for name, change := range map[string]func(*Config){
		"code":            func(*Config) {},
		"baseline":        func(c *Config) { c.UseDelta = false },
		"eta -1":          func(c *Config) { c.Gap = GapTextMinusVideo },
		"no-gap query":    func(c *Config) { c.Query = QueryText },
		"video-corrected": func(c *Config) { c.Corrected = CorrectVideo },
		"word context":    func(c *Config) { c.Context = ContextWords },
	} {
		c := tinyConfig()
		change(&c)
		out[name] = c
	}
	return out
}

func forwardData(rng *rand.Rand, cfg Config, a, b int) (text, frames, mask, words, wordMask arr) {
	text = randArr(rng, 1, a, cfg.TextInputDim)
	frames = randArr(rng, 1, b, cfg.Frames, cfg.VideoInputDim)
	mask = arr{ones(b * cfg.Frames), []int{b, cfg.Frames}}
	mask.data[cfg.Frames-1] = 0 // video 0's last frame is padding
	words = randArr(rng, 1, a, cfg.Words, cfg.TextInputDim)
	wordMask = arr{ones(a * cfg.Words), []int{a, cfg.Words}}
	wordMask.data[cfg.Words-1] = 0
	return
}

func TestForwardAgainstLoops(t *testing.T) {
	for name, cfg := range variants() {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(len(name))))
			n := newTestNet(cfg, rng)
			a, b := 3, 4
			text, frames, mask, words, wordMask := forwardData(rng, cfg, a, b)
			out := run(t, n, []*tensors.Tensor{text.tensor(), frames.tensor(), mask.tensor(), words.tensor(), wordMask.tensor()},
				func(w Weights, in []*Node) []*Node {
					inputs := Inputs{Text: in[0], Frames: in[1], FrameMask: in[2], Words: in[3], WordMask: in[4]}
					o := Forward(cfg, w, inputs, nil)
					res := []*Node{o.Sim, o.Text, o.Frames, o.Pooled, o.Adjusted, ForwardLean(cfg, w, inputs, nil).Sim}
					if o.Delta != nil {
						res = append(res, o.Delta)
					}
					return res
				})
			want := refForward(n, text, frames, mask, words, wordMask)
			assertClose(t, "S", out[0], want, valueTol)
			assertClose(t, "S (ForwardLean)", out[5], want, valueTol)
			d := cfg.Dim
			for k, want := range []int{a * b, a * d, b * cfg.Frames * d, a * b * d, a * b * d} {
				if len(out[k]) != want {
					t.Fatalf("output %d has %d values, want %d", k, len(out[k]), want)
				}
			}
			if cfg.UseDelta && len(out[6]) != a*b*d {
				t.Fatalf("Δ has %d values, want %d", len(out[6]), a*b*d)
			}
		})
	}
}

func TestFactoredScoresMatchForward(t *testing.T) {
	for name, cfg := range variants() {
		if !cfg.factored() {
			continue
		}
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(8, uint64(len(name))))
			n := newTestNet(cfg, rng)
			a, b := 5, 3
			text, frames, mask, _, _ := forwardData(rng, cfg, a, b)
			out := run(t, n, []*tensors.Tensor{text.tensor(), frames.tensor(), mask.tensor()},
				func(w Weights, in []*Node) []*Node {
					h := EncodeVideo(w, in[1], in[2])
					vs := videoSideFromList(newVideoSide(cfg, w.Psi, h, in[2]).list())
					return []*Node{factoredScores(cfg, w.Psi, EncodeText(w, in[0]), vs)}
				})
			assertClose(t, "factored S", out[0], refForward(n, text, frames, mask, arr{}, arr{}), valueTol)
		})
	}
}

// fdStep is the central finite-difference step (float64: truncation O(h²) ≈ 1e-12, rounding
// O(ε/h) ≈ 1e-10 relative to the loss).
const fdStep = 1e-6

func TestGradientsFiniteDifferences(t *testing.T) {
	for _, name := range []string{"code", "baseline", "word context", "no-gap query", "code with dropout mask",
		"lean code", "lean code with dropout mask", "lean video-corrected"} {
		lean := strings.HasPrefix(name, "lean ")
		withKeep := strings.HasSuffix(name, "with dropout mask")
		base := strings.TrimSuffix(strings.TrimPrefix(name, "lean "), " with dropout mask")
		cfg := variants()[base]
		t.Run(name, func(t *testing.T) {
			// Weight the regularisers so their gradients matter; the L_ε cut-off is moved far away
			// (its switch is a discontinuity finite differences cannot straddle).
			if cfg.UseDelta {
				cfg.Loss.Beta, cfg.Loss.LambdaNorm, cfg.Loss.LambdaDir, cfg.Loss.LowerBound = 0.05, 0.3, 0.3, 1e6
			}
			cfg.LogitScale = 5 // keep the softmax away from saturation at this tiny size
			rng := rand.New(rand.NewPCG(9, uint64(len(name))))
			n := newTestNet(cfg, rng)
			text, frames, mask, words, wordMask := forwardData(rng, cfg, 4, 4)
			keep := randArr(rng, 1, 4, 4, cfg.Dim)
			for i := range keep.data {
				keep.data[i] = float64(map[bool]int{true: 0, false: 2}[keep.data[i] < 0])
			}
			data := []arr{text, frames, mask, words, wordMask, keep}
			lossOf := func(w Weights, in []*Node) *Node {
				var drop func(*Node) *Node
				if withKeep {
					drop = func(x *Node) *Node { return Mul(x, in[5]) }
				}
				forward := Forward
				if lean {
					forward = ForwardLean
				}
				o := forward(cfg, w, Inputs{Text: in[0], Frames: in[1], FrameMask: in[2], Words: in[3], WordMask: in[4]}, drop)
				return Objective(cfg, o).Total
			}
			all := append(append([]arr(nil), data...), n.params...)
			wrtData := []int{0, 1}
			if cfg.Context == ContextWords {
				wrtData = append(wrtData, 3)
			}
			grads := runLossAndGradients(t, n, data, wrtData, lossOf)
			loss := runner(n, len(data), func(w Weights, in []*Node) []*Node { return []*Node{lossOf(w, in)} })
			value := func() float64 { return loss(tensorsOf(data))[0][0] }
			check := rand.New(rand.NewPCG(10, 11))
			checked := 0
			for k, x := range all {
				if grads[k] == nil {
					continue // masks, and words unused by frame contexts
				}
				for range min(6, len(x.data)) {
					i := check.IntN(len(x.data))
					orig := x.data[i]
					x.data[i] = orig + fdStep
					plus := value()
					x.data[i] = orig - fdStep
					minus := value()
					x.data[i] = orig
					fd := (plus - minus) / (2 * fdStep)
					if e := math.Abs(grads[k][i]-fd) / math.Max(1, math.Abs(fd)); !(e < 1e-6) {
						t.Fatalf("input %d[%d]: gradient %.10g, finite difference %.10g", k, i, grads[k][i], fd)
					}
					checked++
				}
			}
			if checked < 50 {
				t.Fatalf("only %d coordinates checked", checked)
			}
		})
	}
}

func tensorsOf(xs []arr) []*tensors.Tensor {
	out := make([]*tensors.Tensor, len(xs))
	for i, x := range xs {
		out[i] = x.tensor()
	}
	return out
}

// runLossAndGradients returns the gradient of the scalar loss with respect to every data input
// and every parameter, in that order (nil for data inputs not in wrtData).
func runLossAndGradients(t *testing.T, n testNet, data []arr, wrtData []int, lossOf func(Weights, []*Node) *Node) [][]float64 {
	t.Helper()
	nd := len(data)
	exec := MustNewExec(backend.MustNew(), func(in []*Node) []*Node {
		l := lossOf(n.weights(in[nd:]), in[:nd])
		var targets []*Node
		for _, k := range wrtData {
			targets = append(targets, in[k])
		}
		return Gradient(l, append(targets, in[nd:]...)...)
	})
	var args []any
	for _, x := range tensorsOf(data) {
		args = append(args, x)
	}
	for _, x := range n.tensors() {
		args = append(args, x)
	}
	res := exec.MustExec(args...)
	out := make([][]float64, nd+len(n.params))
	for i, k := range wrtData {
		out[k] = flat64(res[i])
	}
	for i := range n.params {
		out[nd+i] = flat64(res[len(wrtData)+i])
	}
	return out
}

func TestReferenceSimilarityAgainstLoops(t *testing.T) {
	for _, name := range []string{"code", "baseline", "eta -1"} {
		cfg := variants()[name]
		rng := rand.New(rand.NewPCG(12, uint64(len(name))))
		n := newTestNet(cfg, rng)
		text, frames, mask, words, wordMask := forwardData(rng, cfg, 3, 4)
		out := run(t, n, []*tensors.Tensor{text.tensor(), frames.tensor(), mask.tensor()}, func(w Weights, in []*Node) []*Node {
			return []*Node{ReferenceSimilarity(cfg, w, Inputs{Text: in[0], Frames: in[1], FrameMask: in[2]})}
		})
		assertClose(t, name+" ReferenceSimilarity", out[0], refForward(n, text, frames, mask, words, wordMask), valueTol)
	}
}

package hlformer

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// tinyConfig is a float64-testable configuration: d = 8, 2 heads, Lorentz space L^7 ⊂ R^8 (2 heads of 4).
func tinyConfig() Config {
	c := PaperConfig(6, 5)
	c.Dim, c.Heads, c.LorentzDim = 8, 2, 7
	c.ClipLen, c.FrameLen, c.QueryLen = 32, 6, 4
	return c
}

func newTestStore(t *testing.T, seed int64) *model.Store {
	store, err := NewStore(seed)
	if err != nil {
		t.Fatal(err)
	}
	return store
}

// randInputs returns n sequences [L, d] and a key mask with the last `pad` positions of sequence 1 padded.
func randInputs(rng *rand.Rand, n, length, d, pad int) ([]mat, [][]float64) {
	xs := make([]mat, n)
	masks := make([][]float64, n)
	for i := range xs {
		xs[i] = randMat(rng, length, d, 1)
		masks[i] = make([]float64, length)
		for j := range masks[i] {
			masks[i][j] = 1
			if i == 1 && j >= length-pad {
				masks[i][j] = 0
			}
		}
	}
	return xs, masks
}

func tensorMats(t *tensors.Tensor) []mat {
	v := t.Value().([][][]float64)
	out := make([]mat, len(v))
	for i := range v {
		out[i] = v[i]
	}
	return out
}

// runBlock runs fn on inputs xs (as [N, L, D]) and masks under scope "blk" of a fresh test store
// (seed), and returns that store's variables and fn's outputs.
func runBlock(t *testing.T, seed int64, xs []mat, masks [][]float64, fn func(blk *model.Scope, x, mask *graph.Node) []*graph.Node) (vars, []*tensors.Tensor) {
	t.Helper()
	store := newTestStore(t, seed)
	out := runExec(t, store, func(scope *model.Scope, in []*graph.Node) []*graph.Node {
		return fn(scope.In("blk"), in[0], in[1])
	}, toNested(xs), masks)
	return vars{t, store}, out
}

func TestEuclideanBlockMatchesReference(t *testing.T) {
	c := tinyConfig()
	rng := rand.New(rand.NewPCG(1, 2))
	xs, masks := randInputs(rng, 2, 5, c.Dim, 2)
	for _, width := range []float64{0, 2} {
		v, out := runBlock(t, 3, xs, masks, func(blk *model.Scope, x, mask *graph.Node) []*graph.Node {
			return []*graph.Node{EuclideanBlock(blk, x, mask, width, c)}
		})
		gauss := GaussianMask(5, width, c.Mask)
		got := tensorMats(out[0])
		for n := range xs {
			att := v.euclideanAttention("/blk/attention", xs[n], xs[n], masks[n], gauss, c.Heads)
			want := v.residual("/blk", xs[n], att)
			assertClose(t, "EuclideanBlock", flatten(got[n]), flatten(want), 1e-10)
		}
	}
}

// lorentzLinearRef is HyboNet's Lorentz linear for one point p [n+1] with weights W [n+1, n+1] and time
// log-scale s: per head, time = sigmoid(y₀)·e^s + 1.1 and space = y_s·√((time² − 1)/‖y_s‖²).
func lorentzLinearRef(p []float64, w mat, s float64, heads int) [][]float64 {
	y := affine(mat{p}, w, nil)[0]
	m := len(y) / heads
	out := make([][]float64, heads)
	for h := range out {
		blk := y[h*m : (h+1)*m]
		time := 1/(1+math.Exp(-blk[0]))*math.Exp(s) + LorentzTimeOffset
		n2 := 0.0
		for _, v := range blk[1:] {
			n2 += v * v
		}
		f := math.Sqrt((time*time - 1) / n2)
		out[h] = append([]float64{time}, blk[1:]...)
		for i := 1; i < m; i++ {
			out[h][i] *= f
		}
	}
	return out
}

// lorentzSelfAttentionRef recomputes LorentzSelfAttention for one sequence x [L, d] (dropout off) and
// returns the output and, per head, the logits [L][L] (after the Gaussian mask) and centroids [L][m].
func (v vars) lorentzSelfAttentionRef(p string, x mat, keyMask []float64, gauss mat, c Config) (out mat, logits [][][]float64, centroids [][][]float64, input mat) {
	u := v.linearLayer(p+"/input_proj", x)
	alpha := math.Exp(math.Min(v.scalar(p+"/scale_alpha"), 0))
	input = zeros(len(u), len(u[0])+1)
	for i := range u {
		norm := 0.0
		for j := range u[i] {
			u[i][j] *= alpha
			norm += u[i][j] * u[i][j]
		}
		r := math.Sqrt(math.Max(norm, 1e-9))
		f := math.Sinh(math.Min(r, 10)) / r
		sp := 0.0
		for j := range u[i] {
			input[i][j+1] = f * u[i][j]
			sp += input[i][j+1] * input[i][j+1]
		}
		input[i][0] = math.Sqrt(1 + sp)
	}
	heads := c.Heads
	proj := func(name string) [][][]float64 { // [L][h][m]
		out := make([][][]float64, len(input))
		for i := range input {
			out[i] = lorentzLinearRef(input[i], v.m(p+"/attention/"+name+"/weights"), v.scalar(p+"/attention/"+name+"/time_scale"), heads)
		}
		return out
	}
	K, V, Q := proj("keys"), proj("values"), proj("query")
	s, b := v.scalar(p+"/attention/logit_scale"), v.scalar(p+"/attention/logit_bias")
	length, m := len(x), len(input[0])/heads
	y := zeros(length, len(input[0]))
	logits = make([][][]float64, heads)
	centroids = make([][][]float64, heads)
	for h := 0; h < heads; h++ {
		logits[h] = make([][]float64, length)
		centroids[h] = make([][]float64, length)
		for i := 0; i < length; i++ {
			row := make([]float64, length)
			masked := make([]float64, length)
			for j := 0; j < length; j++ {
				row[j] = (2+2*minkowski(Q[i][h], K[j][h]))/s + b
				if gauss != nil {
					row[j] *= gauss[i][j]
				}
				masked[j] = row[j]
				if keyMask != nil && keyMask[j] == 0 {
					masked[j] = LorentzMaskFill
				}
			}
			logits[h][i] = row
			pr := softmaxRow(masked)
			a := make([]float64, m)
			for j := 0; j < length; j++ {
				for e := range a {
					a[e] += pr[j] * V[j][h][e]
				}
			}
			den := math.Sqrt(math.Max(math.Abs(minkowski(a, a)), 1e-8))
			for e := range a {
				a[e] /= den
				y[i][h*m+e] = a[e]
			}
			centroids[h][i] = a
		}
	}
	z := zeros(length, len(input[0])-1)
	for i := range y {
		t0 := y[i][0]
		f := math.Acosh(t0) / math.Sqrt(t0*t0-1)
		for j := range z[i] {
			z[i][j] = f * y[i][j+1] / alpha
		}
	}
	return v.linearLayer(p+"/output_proj", z), logits, centroids, input
}

func TestLorentzSelfAttentionMatchesReference(t *testing.T) {
	c := tinyConfig()
	rng := rand.New(rand.NewPCG(5, 6))
	xs, masks := randInputs(rng, 2, 5, c.Dim, 2)
	for _, width := range []float64{0, 4} {
		v, out := runBlock(t, 7, xs, masks, func(blk *model.Scope, x, mask *graph.Node) []*graph.Node {
			y, tr := LorentzSelfAttention(blk, x, mask, width, c)
			return []*graph.Node{y, tr.Logits, tr.Centroid, tr.Input}
		})
		got := tensorMats(out[0])
		gotLogits := out[1].Value().([][][][]float64)
		gotCentroid := out[2].Value().([][][][]float64)
		gotInput := tensorMats(out[3])
		for n := range xs {
			want, logits, centroids, input := v.lorentzSelfAttentionRef("/blk", xs[n], masks[n], GaussianMask(5, width, c.Mask), c)
			assertClose(t, "input points", flatten(gotInput[n]), flatten(input), 1e-12)
			for h := range logits {
				assertClose(t, "logits", flatten(gotLogits[n][h]), flatten(logits[h]), 1e-10)
				assertClose(t, "centroid", flatten(gotCentroid[n][h]), flatten(centroids[h]), 1e-10)
			}
			assertClose(t, "LorentzSelfAttention", flatten(got[n]), flatten(want), 1e-9)
		}
	}
}

// The Lorentz linear, the attention's centroid and the exp map all land on the hyperboloid.
func TestLorentzPointsOnHyperboloid(t *testing.T) {
	c := tinyConfig()
	rng := rand.New(rand.NewPCG(8, 9))
	xs, masks := randInputs(rng, 2, 6, c.Dim, 3)
	_, out := runBlock(t, 10, xs, masks, func(blk *model.Scope, x, mask *graph.Node) []*graph.Node {
		_, tr := LorentzSelfAttention(blk, x, mask, 2, c)
		return []*graph.Node{tr.Input, tr.Query, tr.Key, tr.Value, tr.Centroid}
	})
	assertOnHyperboloid(t, "input", out[0], 1e-12)
	for i, name := range []string{"query", "key", "value", "centroid"} {
		assertOnHyperboloid(t, name, out[i+1], 1e-12)
	}
}

// assertOnHyperboloid checks ⟨x, x⟩_L = −1 (k = 1) and x₀ > 0 for every point along the last axis.
func assertOnHyperboloid(t *testing.T, what string, x *tensors.Tensor, tol float64) {
	t.Helper()
	var flat []float64
	switch x.DType() {
	case dtypes.Float64:
		flat = tensors.MustCopyFlatData[float64](x)
	default:
		for _, v := range tensors.MustCopyFlatData[float32](x) {
			flat = append(flat, float64(v))
		}
	}
	m := x.Shape().Dim(-1)
	worst := 0.0
	for i := 0; i < len(flat); i += m {
		p := flat[i : i+m]
		if p[0] <= 0 {
			t.Fatalf("%s: point %d has time %g ≤ 0", what, i/m, p[0])
		}
		// Relative to x₀², the scale of the cancellation in −x₀² + ‖x_s‖².
		worst = math.Max(worst, math.Abs(minkowski(p, p)+1)/(p[0]*p[0]))
	}
	if worst > tol || math.IsNaN(worst) {
		t.Fatalf("%s: max |⟨x, x⟩_L + 1|/x₀² = %g > %g", what, worst, tol)
	}
}

// maimRef recomputes MAIM for one sequence: branches [B][L][d], keyMask [L].
func (v vars) maimRef(p string, branches []mat, keyMask []float64, c Config) mat {
	length, d := len(branches[0]), len(branches[0][0])
	out := zeros(length, d)
	for l, pr := range v.maimWeightsRef(p, branches, keyMask, c) {
		for i := range branches {
			for e := 0; e < d; e++ {
				out[l][e] += pr[i] * branches[i][l][e]
			}
		}
	}
	return out
}

// maimWeightsRef are MAIM's branch weights for one sequence, [L][B]: at each position the softmax
// over branches of layer2(ReLU(layer1(CA(φ, branch))))/τ.
func (v vars) maimWeightsRef(p string, branches []mat, keyMask []float64, c Config) mat {
	b, length, d := len(branches), len(branches[0]), len(branches[0][0])
	phi := make([]float64, d)
	for _, br := range branches {
		for _, row := range br {
			for e, x := range row {
				phi[e] += x / float64(b*length)
			}
		}
	}
	tokens := zeros(b, d)
	for i, br := range branches {
		att := v.euclideanAttention(p+"/cross_attention/attention", mat{phi}, br, keyMask, nil, c.Heads)
		tokens[i] = v.residual(p+"/cross_attention", mat{phi}, att)[0]
	}
	w := v.linear(p+"/layer2", relu(v.linear(p+"/layer1", tokens, true)), true) // [B, L]
	weights := zeros(length, b)
	for l := range weights {
		logits := make([]float64, b)
		for i := range logits {
			logits[i] = w[i][l] / c.BranchTemperature
		}
		weights[l] = softmaxRow(logits)
	}
	return weights
}

func TestMAIMMatchesReference(t *testing.T) {
	c := tinyConfig()
	rng := rand.New(rand.NewPCG(11, 12))
	const n, length, b = 2, 5, 3
	branches := make([][]mat, n)      // [N][B][L][d]
	input := make([][][][]float64, b) // [B][N][L][d]
	for i := range branches {
		for k := 0; k < b; k++ {
			branches[i] = append(branches[i], randMat(rng, length, c.Dim, 1))
		}
	}
	for k := 0; k < b; k++ {
		input[k] = make([][][]float64, n)
		for i := 0; i < n; i++ {
			input[k][i] = branches[i][k]
		}
	}
	_, masks := randInputs(rng, n, length, 1, 2)
	store := newTestStore(t, 13)
	out := runExec(t, store, func(scope *model.Scope, in []*graph.Node) []*graph.Node {
		return []*graph.Node{MAIMFusion(scope.In("maim"), in[0], in[1], c)}
	}, input, masks)
	v := vars{t, store}
	got := tensorMats(out[0])
	for i := range branches {
		assertClose(t, "MAIM", flatten(got[i]), flatten(v.maimRef("/maim", branches[i], masks[i], c)), 1e-10)
	}
}

// An HLFormer block with one Euclidean and one Lorentz branch is MAIM over the two references.
func TestHLFormerBlockMatchesReference(t *testing.T) {
	c := tinyConfig()
	c.EuclideanWidths, c.LorentzWidths = []float64{2}, []float64{0}
	rng := rand.New(rand.NewPCG(14, 15))
	xs, masks := randInputs(rng, 2, 6, c.Dim, 2)
	store := newTestStore(t, 16)
	out := runExec(t, store, func(scope *model.Scope, in []*graph.Node) []*graph.Node {
		return []*graph.Node{HLFormerBlock(scope.In("blk"), in[0], in[1], c, nil)}
	}, toNested(xs), masks)
	v := vars{t, store}
	got := tensorMats(out[0])
	for n := range xs {
		euc := v.residual("/blk/euclidean_0", xs[n], v.euclideanAttention("/blk/euclidean_0/attention", xs[n], xs[n], masks[n], GaussianMask(6, 2, c.Mask), c.Heads))
		latt, _, _, _ := v.lorentzSelfAttentionRef("/blk/lorentz_0/attention", xs[n], masks[n], nil, c)
		lor := v.residual("/blk/lorentz_0", xs[n], latt)
		want := v.maimRef("/blk/maim", []mat{euc, lor}, masks[n], c)
		assertClose(t, "HLFormerBlock", flatten(got[n]), flatten(want), 1e-9)
	}
	// The other aggregations: mean pooling is the plain average of the two branches.
	c.Aggregation = MeanPooling
	v, out = runBlock(t, 16, xs, masks, func(blk *model.Scope, x, mask *graph.Node) []*graph.Node {
		return []*graph.Node{HLFormerBlock(blk, x, mask, c, nil)}
	})
	got = tensorMats(out[0])
	euc := v.residual("/blk/euclidean_0", xs[0], v.euclideanAttention("/blk/euclidean_0/attention", xs[0], xs[0], masks[0], GaussianMask(6, 2, c.Mask), c.Heads))
	latt, _, _, _ := v.lorentzSelfAttentionRef("/blk/lorentz_0/attention", xs[0], masks[0], nil, c)
	lor := v.residual("/blk/lorentz_0", xs[0], latt)
	mean := addMat(euc, lor)
	for i := range mean {
		for j := range mean[i] {
			mean[i][j] /= 2
		}
	}
	assertClose(t, "HLFormerBlock MP", flatten(got[0]), flatten(mean), 1e-9)
}

func TestEncodeQueryMatchesReference(t *testing.T) {
	c := tinyConfig()
	rng := rand.New(rand.NewPCG(17, 18))
	toks, masks := randInputs(rng, 3, c.QueryLen, c.QueryDim, 2)
	store := newTestStore(t, 19)
	m := &Model{Config: c}
	out := runExec(t, store, func(scope *model.Scope, in []*graph.Node) []*graph.Node {
		return []*graph.Node{m.EncodeQuery(scope, in[0], in[1])}
	}, toNested(toks), masks)
	v := vars{t, store}
	got := out[0].Value().([][]float64)
	table := v.m("/query/position/embeddings")
	for q := range toks {
		x := v.linearLayer("/query/input_proj", toks[q])
		x = v.layerNorm("/query/position/norm", addMat(x, table[:c.QueryLen]))
		x = v.residual("/query/encoder", x, v.euclideanAttention("/query/encoder/attention", x, x, masks[q], nil, c.Heads))
		score := affine(x, v.m("/query/pooling/weights"), nil)
		logits := make([]float64, len(x))
		for i := range logits {
			logits[i] = score[i][0]*masks[q][i] + (1-masks[q][i])*PoolingMaskFill
		}
		pr := softmaxRow(logits)
		want := make([]float64, c.Dim)
		for i := range x {
			for e := range want {
				want[e] += pr[i] * x[i][e]
			}
		}
		assertClose(t, "EncodeQuery", got[q], want, 1e-10)
	}
}

func TestScoresMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 21))
	q := randMat(rng, 3, 4, 1)
	ctx := []mat{randMat(rng, 5, 4, 1), randMat(rng, 5, 4, 1)}
	ctx[1][4] = []float64{0, 0, 0, 0} // a padded (zero) frame
	out := runExec(t, model.NewStore(), func(scope *model.Scope, in []*graph.Node) []*graph.Node {
		return []*graph.Node{MaxOverTimeScores(in[0], in[1], true), MaxOverTimeScores(in[0], in[1], false)}
	}, [][]float64(q), toNested(ctx))
	cosine, raw := out[0].Value().([][]float64), out[1].Value().([][]float64)
	norm := func(x []float64) float64 {
		s := 0.0
		for _, v := range x {
			s += v * v
		}
		return math.Max(math.Sqrt(s), NormalizeEpsilon)
	}
	for i := range q {
		for v := range ctx {
			bestCos, bestRaw := math.Inf(-1), math.Inf(-1)
			for _, f := range ctx[v] {
				dot := 0.0
				for e := range f {
					dot += q[i][e] * f[e]
				}
				bestRaw = math.Max(bestRaw, dot)
				bestCos = math.Max(bestCos, dot/(norm(q[i])*norm(f)))
			}
			assertClose(t, "cosine", []float64{cosine[i][v]}, []float64{bestCos}, 1e-12)
			assertClose(t, "raw", []float64{raw[i][v]}, []float64{bestRaw}, 1e-12)
		}
	}
}

// POP: attention pooling of frames (unmasked) and clips, scaled by exp(α), MERU exp map with c = exp(curv).
func TestHyperbolicEmbeddingsMatchReference(t *testing.T) {
	c := tinyConfig()
	rng := rand.New(rand.NewPCG(22, 23))
	clips := []mat{randMat(rng, 4, c.Dim, 1), randMat(rng, 4, c.Dim, 1)}
	frames := []mat{randMat(rng, 3, c.Dim, 1), randMat(rng, 3, c.Dim, 1)}
	queries := randMat(rng, 3, c.Dim, 1)
	store := newTestStore(t, 24)
	m := &Model{Config: c}
	out := runExec(t, store, func(scope *model.Scope, in []*graph.Node) []*graph.Node {
		h := m.Hyperbolic(scope, m.PooledVideo(scope, in[0], in[1]), in[2])
		return []*graph.Node{h.Videos, h.Queries, h.C}
	}, toNested(clips), toNested(frames), [][]float64(queries))
	v := vars{t, store}
	if got := out[2].Value().(float64); math.Abs(got-CurvatureInit) > 1e-15 {
		t.Fatalf("curvature %g, want %g", got, CurvatureInit)
	}
	alpha := math.Exp(-0.5 * math.Log(float64(c.Dim)))
	expMap := func(u []float64) []float64 { // MERU exp_map0 with c = 1
		r := 0.0
		for _, x := range u {
			r += x * x
		}
		r = math.Sqrt(r)
		out := make([]float64, len(u))
		for i, x := range u {
			out[i] = math.Sinh(r) / r * x
		}
		return out
	}
	pool := func(name string, x mat) []float64 {
		s := affine(x, v.m("/"+name+"/weights"), nil)
		logits := make([]float64, len(x))
		for i := range x {
			logits[i] = s[i][0]
		}
		pr := softmaxRow(logits)
		out := make([]float64, c.Dim)
		for i := range x {
			for e := range out {
				out[e] += pr[i] * x[i][e]
			}
		}
		return out
	}
	videos := out[0].Value().([][]float64)
	for i := range clips {
		f, cl := pool("pool_frames", frames[i]), pool("pool_clips", clips[i])
		u := make([]float64, c.Dim)
		for e := range u {
			u[e] = (f[e] + cl[e]) / 2 * alpha
		}
		assertClose(t, "video point", videos[i], expMap(u), 1e-12)
	}
	qs := out[1].Value().([][]float64)
	for i := range queries {
		u := make([]float64, c.Dim)
		for e := range u {
			u[e] = queries[i][e] * alpha
		}
		assertClose(t, "query point", qs[i], expMap(u), 1e-12)
	}
}

// The trace of an HLFormer block carries the branch outputs, every branch's attention weights and
// MAIM's branch weights, each equal to its float64 reference.
func TestHLFormerBlockTraceMatchesReference(t *testing.T) {
	c := tinyConfig()
	c.EuclideanWidths, c.LorentzWidths = []float64{2}, []float64{4}
	rng := rand.New(rand.NewPCG(17, 18))
	const length = 6
	xs, masks := randInputs(rng, 2, length, c.Dim, 2)
	store := newTestStore(t, 19)
	var names []string
	out := runExec(t, store, func(scope *model.Scope, in []*graph.Node) []*graph.Node {
		var tr BlockTrace
		y := HLFormerBlock(scope.In("blk"), in[0], in[1], c, func(name string, t BlockTrace) { names, tr = append(names, name), t })
		return []*graph.Node{y, tr.Branches, tr.Attention[0], tr.Attention[1], tr.Fusion, tr.Lorentz[0].Weights}
	}, toNested(xs), masks)
	if len(names) != 1 || names[0] != "/blk" {
		t.Fatalf("traced blocks %v, want [/blk]", names)
	}
	v := vars{t, store}
	branches := out[1].Value().([][][][]float64) // [B][N][L][d]
	euclidean := out[2].Value().([][][][]float64)
	lorentz := out[3].Value().([][][][]float64)
	fusion := tensorMats(out[4])
	for n := range xs {
		gaussE, gaussL := GaussianMask(length, 2, c.Mask), GaussianMask(length, 4, c.Mask)
		euc := v.residual("/blk/euclidean_0", xs[n], v.euclideanAttention("/blk/euclidean_0/attention", xs[n], xs[n], masks[n], gaussE, c.Heads))
		latt, logits, _, _ := v.lorentzSelfAttentionRef("/blk/lorentz_0/attention", xs[n], masks[n], gaussL, c)
		lor := v.residual("/blk/lorentz_0", xs[n], latt)
		assertClose(t, "Euclidean branch", flatten(branches[0][n]), flatten(euc), 1e-9)
		assertClose(t, "Lorentz branch", flatten(branches[1][n]), flatten(lor), 1e-9)
		for h, want := range v.euclideanWeights("/blk/euclidean_0/attention", xs[n], xs[n], masks[n], gaussE, c.Heads) {
			assertClose(t, "Euclidean attention weights", flatten(euclidean[n][h]), flatten(want), 1e-10)
		}
		for h := range logits {
			var want mat
			for _, row := range logits[h] {
				masked := append([]float64(nil), row...)
				for j := range masked {
					if masks[n][j] == 0 {
						masked[j] = LorentzMaskFill
					}
				}
				want = append(want, softmaxRow(masked))
			}
			assertClose(t, "Lorentz attention weights", flatten(lorentz[n][h]), flatten(want), 1e-10)
		}
		assertClose(t, "MAIM weights", flatten(fusion[n]), flatten(v.maimWeightsRef("/blk/maim", []mat{euc, lor}, masks[n], c)), 1e-9)
	}
	assertClose(t, "LorentzTrace.Weights", flatten(toMats(out[5].Value().([][][][]float64)[0])...), flatten(toMats(lorentz[0])...), 0)
}

// toMats views [][][]float64 as a list of mats.
func toMats(x [][][]float64) []mat {
	out := make([]mat, len(x))
	for i := range x {
		out[i] = x[i]
	}
	return out
}

package hlformer

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// An independent float64 reference of the model's pieces, written on plain slices: every test below
// runs the GoMLX graph on a fresh store, reads the variables the graph created back from the store,
// and recomputes the same forward pass here, term by term from the official code's definitions.

type mat [][]float64

func zeros(r, c int) mat {
	m := make(mat, r)
	for i := range m {
		m[i] = make([]float64, c)
	}
	return m
}

func randMat(rng *rand.Rand, r, c int, scale float64) mat {
	m := zeros(r, c)
	for i := range m {
		for j := range m[i] {
			m[i][j] = scale * rng.NormFloat64()
		}
	}
	return m
}

// affine is x·W + b (b may be nil).
func affine(x mat, w mat, b []float64) mat {
	out := zeros(len(x), len(w[0]))
	for i := range x {
		for k := range w[0] {
			s := 0.0
			for j := range x[i] {
				s += x[i][j] * w[j][k]
			}
			if b != nil {
				s += b[k]
			}
			out[i][k] = s
		}
	}
	return out
}

func relu(x mat) mat {
	out := zeros(len(x), len(x[0]))
	for i := range x {
		for j, v := range x[i] {
			out[i][j] = math.Max(v, 0)
		}
	}
	return out
}

func addMat(a, b mat) mat {
	out := zeros(len(a), len(a[0]))
	for i := range a {
		for j := range a[i] {
			out[i][j] = a[i][j] + b[i][j]
		}
	}
	return out
}

// layerNormRef is torch's LayerNorm over each row (biased variance, eps inside the sqrt).
func layerNormRef(x mat, gain, offset []float64) mat {
	out := zeros(len(x), len(x[0]))
	for i, row := range x {
		mean, v := 0.0, 0.0
		for _, a := range row {
			mean += a
		}
		mean /= float64(len(row))
		for _, a := range row {
			v += (a - mean) * (a - mean)
		}
		v /= float64(len(row))
		for j, a := range row {
			out[i][j] = (a-mean)/math.Sqrt(v+LayerNormEpsilon)*gain[j] + offset[j]
		}
	}
	return out
}

func softmaxRow(x []float64) []float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	out := make([]float64, len(x))
	s := 0.0
	for i, v := range x {
		out[i] = math.Exp(v - m)
		s += out[i]
	}
	for i := range out {
		out[i] /= s
	}
	return out
}

// minkowski is ⟨x, y⟩_L = −x₀y₀ + Σ x_i y_i.
func minkowski(x, y []float64) float64 {
	s := -x[0] * y[0]
	for i := 1; i < len(x); i++ {
		s += x[i] * y[i]
	}
	return s
}

// vars reads the store's variables by path.
type vars struct {
	t     *testing.T
	store *model.Store
}

func (v vars) get(path string) *tensors.Tensor {
	x := v.store.GetVariable(path)
	if x == nil {
		v.t.Fatalf("no variable %s; the store has: %v", path, varPaths(v.store))
	}
	return x.MustValue()
}
func (v vars) m(path string) mat { return mat(v.get(path).Value().([][]float64)) }
func (v vars) vec(path string) []float64 {
	return v.get(path).Value().([]float64)
}
func (v vars) scalar(path string) float64 { return v.get(path).Value().(float64) }

func varPaths(s *model.Store) []string {
	var ps []string
	for v := range s.IterVariables() {
		ps = append(ps, v.Path())
	}
	return ps
}

// linearRef applies the variables of linear() at scope path p.
func (v vars) linear(p string, x mat, bias bool) mat {
	var b []float64
	if bias {
		b = v.vec(p + "/biases")
	}
	return affine(x, v.m(p+"/weights"), b)
}

// layerNorm applies the variables of layerNorm() at scope path p.
func (v vars) layerNorm(p string, x mat) mat {
	return layerNormRef(x, v.vec(p+"/layer_normalization/gain"), v.vec(p+"/layer_normalization/offset"))
}

// linearLayer is the code's LinearLayer (LN → Linear → ReLU; dropout off).
func (v vars) linearLayer(p string, x mat) mat {
	return relu(v.linear(p+"/linear", v.layerNorm(p+"/norm", x), true))
}

// ffn is FeedForward (dropout off).
func (v vars) ffn(p string, x mat) mat {
	return v.linear(p+"/layer2", relu(v.linear(p+"/layer1", x, true)), true)
}

// residual is the blocks' wrapper: LN(x + att), then LN(h + FFN(h)).
func (v vars) residual(p string, x, att mat) mat {
	h := v.layerNorm(p+"/norm1", addMat(x, att))
	return v.layerNorm(p+"/norm2", addMat(h, v.ffn(p+"/ffn", h)))
}

// euclideanAttention is the code's EuclideanGaussianAttention for one sequence (no dropout): q [Lq, d],
// kv [L, d], keyMask [L] (nil: all valid), mask [Lq][L] multiplying the scaled logits (nil: none).
func (v vars) euclideanAttention(p string, q, kv mat, keyMask []float64, gauss mat, heads int) mat {
	V := v.linear(p+"/value", kv, true)
	d := len(V[0])
	dh := d / heads
	out := zeros(len(q), d)
	for h, probs := range v.euclideanWeights(p, q, kv, keyMask, gauss, heads) {
		for i, pr := range probs {
			for j := range V {
				for e := h * dh; e < (h+1)*dh; e++ {
					out[i][e] += pr[j] * V[j][e]
				}
			}
		}
	}
	return out
}

// euclideanWeights are that attention's weights per head, [h][Lq][L]: the softmax over keys of the
// scaled logits times the Gaussian mask, padded keys filled with AttentionMaskFill.
func (v vars) euclideanWeights(p string, q, kv mat, keyMask []float64, gauss mat, heads int) [][][]float64 {
	Q, K := v.linear(p+"/query", q, true), v.linear(p+"/key", kv, true)
	dh := len(Q[0]) / heads
	weights := make([][][]float64, heads)
	for h := range weights {
		for i := range Q {
			logits := make([]float64, len(K))
			for j := range K {
				s := 0.0
				for e := h * dh; e < (h+1)*dh; e++ {
					s += Q[i][e] * K[j][e]
				}
				s /= math.Sqrt(float64(dh))
				if gauss != nil {
					s *= gauss[i][j]
				}
				if keyMask != nil {
					s += (1 - keyMask[j]) * AttentionMaskFill
				}
				logits[j] = s
			}
			weights[h] = append(weights[h], softmaxRow(logits))
		}
	}
	return weights
}

// runExec builds fn on store (not training: dropout off) and returns its outputs.
func runExec(t *testing.T, store *model.Store, fn func(scope *model.Scope, in []*graph.Node) []*graph.Node, inputs ...any) []*tensors.Tensor {
	t.Helper()
	exec, err := model.NewExec(backend.MustNew(), store, fn)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := exec.Exec(inputs...)
	if err != nil {
		t.Fatal(err)
	}
	return outs
}

func assertClose(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.IsNaN(got[i]) || math.Abs(got[i]-want[i]) > tol*math.Max(1, math.Abs(want[i])) {
			t.Fatalf("%s[%d]: got %.12g, reference %.12g", what, i, got[i], want[i])
		}
	}
}

func flatten(ms ...mat) []float64 {
	var out []float64
	for _, m := range ms {
		for _, r := range m {
			out = append(out, r...)
		}
	}
	return out
}

// toNested converts a mat list to [][][]float64 for graph inputs.
func toNested(ms []mat) [][][]float64 {
	out := make([][][]float64, len(ms))
	for i, m := range ms {
		out[i] = m
	}
	return out
}

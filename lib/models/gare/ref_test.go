package gare

// Independent float64 references in plain Go loops (no GoMLX): LayerNorm, Linear, ψ, the
// temporal transformer, text-conditioned pooling, the semantic gap and the cosine similarity,
// written from docs/official-code.md (§4.1, §4.2) and the official code's formulas, not from the package.

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"github.com/gomlx/gomlx/core/tensors"
)

// arr is a float64 test tensor.
type arr struct {
	data []float64
	dims []int
}

func (a arr) tensor() *tensors.Tensor { return tensors.FromFlatDataAndDimensions(a.data, a.dims...) }

func (a arr) clone() arr {
	return arr{data: append([]float64(nil), a.data...), dims: append([]int(nil), a.dims...)}
}

func randArr(rng *rand.Rand, scale float64, dims ...int) arr {
	n := 1
	for _, d := range dims {
		n *= d
	}
	x := make([]float64, n)
	for i := range x {
		x[i] = scale * rng.NormFloat64()
	}
	return arr{x, dims}
}

// row returns the contiguous last-axis vector at the given leading indices.
func (a arr) row(idx ...int) []float64 {
	off := 0
	for i, k := range idx {
		off = off*a.dims[i] + k
	}
	d := a.dims[len(a.dims)-1]
	return a.data[off*d : (off+1)*d]
}

func refLayerNorm(x, gain, bias []float64) []float64 { return refLayerNormEps(x, gain, bias, 1e-5) }

// refLayerNormEps is LayerNorm with eps added to the variance: torch.nn.LayerNorm's 1e-5 (ψ) or
// until_module.LayerNorm's 1e-12 (the temporal blocks' ln_1, ln_2).
func refLayerNormEps(x, gain, bias []float64, eps float64) []float64 {
	d := float64(len(x))
	mean := 0.0
	for _, v := range x {
		mean += v
	}
	mean /= d
	variance := 0.0
	for _, v := range x {
		variance += (v - mean) * (v - mean)
	}
	variance /= d
	s := math.Sqrt(variance + eps)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = (v-mean)/s*gain[i] + bias[i]
	}
	return out
}

// refLinear is x·W + b with W [in, out] row-major.
func refLinear(x []float64, w arr, b []float64) []float64 {
	in, out := w.dims[0], w.dims[1]
	y := make([]float64, out)
	for o := range out {
		s := b[o]
		for i := range in {
			s += x[i] * w.data[i*out+o]
		}
		y[o] = s
	}
	return y
}

func softmax(x []float64) []float64 {
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

// refLin and refNorm are one Linear / LayerNorm's parameters.
type refLin struct {
	w arr
	b []float64
}
type refNorm struct{ gain, bias []float64 }

type refPsiParams struct {
	ln1, ln2, ln3          refNorm
	q, k, v, o, lin1, mean refLin
}

// refPsi is ψ of docs/official-code.md §4.2 for one pair: query [D], context [F][D], optional context mask
// (nil = none), keep multiplies linear1's output (the dropout mask, nil = 1).
func refPsi(p refPsiParams, query []float64, context [][]float64, mask []float64, keep []float64) []float64 {
	d := len(query)
	a := refPsiAttention(p, query, context, mask)
	values := make([][]float64, len(context))
	for f, c := range context {
		values[f] = refLinear(refLayerNorm(c, p.ln1.gain, p.ln1.bias), p.v.w, p.v.b)
	}
	att := make([]float64, d)
	for f := range context {
		for k := range att {
			att[k] += a[f] * values[f][k]
		}
	}
	x := refLayerNorm(refLinear(att, p.o.w, p.o.b), p.ln2.gain, p.ln2.bias)
	lin := refLinear(x, p.lin1.w, p.lin1.b)
	z := make([]float64, d)
	for k := range z {
		l := lin[k]
		if keep != nil {
			l *= keep[k]
		}
		z[k] = x[k] + l
	}
	return refLinear(refLayerNorm(z, p.ln3.gain, p.ln3.bias), p.mean.w, p.mean.b)
}

// refPsiQuery is ψ's query for text t and frame mean v̄ (GARE Eq. 7): η(v̄ − t) with η = +1 for
// GapVideoMinusText and −1 for GapTextMinusVideo, or t itself for QueryText (Table 5).
func refPsiQuery(gap GapSign, query QueryMode, t, mean []float64) []float64 {
	q := make([]float64, len(t))
	for k := range q {
		switch {
		case query == QueryText:
			q[k] = t[k]
		case gap == GapTextMinusVideo:
			q[k] = t[k] - mean[k]
		default:
			q[k] = mean[k] - t[k]
		}
	}
	return q
}

// refPsiAttention is ψ's attention weights over the context for one pair (docs/official-code.md §4.2): softmax
// over f of LN1(query) W_q · LN1(context_f) W_k / √D, masked entries at −1e6.
func refPsiAttention(p refPsiParams, query []float64, context [][]float64, mask []float64) []float64 {
	q := refLinear(refLayerNorm(query, p.ln1.gain, p.ln1.bias), p.q.w, p.q.b)
	logits := make([]float64, len(context))
	for f, c := range context {
		logits[f] = floats.Dot(q, refLinear(refLayerNorm(c, p.ln1.gain, p.ln1.bias), p.k.w, p.k.b)) / math.Sqrt(float64(len(query)))
		if mask != nil && mask[f] == 0 {
			logits[f] += -1e6
		}
	}
	return softmax(logits)
}

type refTemporalLayer struct {
	heads      int
	ln1, ln2   refNorm
	q, k, v, o refLin
	fc, proj   refLin
}

// refTemporal is the temporal transformer of docs/official-code.md §4.1 on one video: frames [F][D] (already
// projected), positions [F][D], mask [F].
func refTemporal(layers []refTemporalLayer, frames, positions [][]float64, mask []float64) [][]float64 {
	nf, d := len(frames), len(frames[0])
	x := make([][]float64, nf)
	for f := range x {
		x[f] = make([]float64, d)
		for k := range x[f] {
			x[f][k] = frames[f][k] + positions[f][k]
		}
	}
	for _, l := range layers {
		hd := d / l.heads
		qs, ks, vs := make([][]float64, nf), make([][]float64, nf), make([][]float64, nf)
		for f := range x {
			h := refLayerNormEps(x[f], l.ln1.gain, l.ln1.bias, 1e-12)
			qs[f], ks[f], vs[f] = refLinear(h, l.q.w, l.q.b), refLinear(h, l.k.w, l.k.b), refLinear(h, l.v.w, l.v.b)
		}
		next := make([][]float64, nf)
		for f := range x {
			att := make([]float64, d)
			for hh := range l.heads {
				lo, hi := hh*hd, (hh+1)*hd
				logits := make([]float64, nf)
				for g := range nf {
					logits[g] = floats.Dot(qs[f][lo:hi], ks[g][lo:hi]) / math.Sqrt(float64(hd))
					if mask[g] == 0 {
						logits[g] += -1e6
					}
				}
				w := softmax(logits)
				for g := range nf {
					for k := lo; k < hi; k++ {
						att[k] += w[g] * vs[g][k]
					}
				}
			}
			o := refLinear(att, l.o.w, l.o.b)
			next[f] = make([]float64, d)
			for k := range o {
				next[f][k] = x[f][k] + o[k]
			}
			m := refLinear(refLayerNormEps(next[f], l.ln2.gain, l.ln2.bias, 1e-12), l.fc.w, l.fc.b)
			for k := range m {
				m[k] = m[k] / (1 + math.Exp(-1.702*m[k]))
			}
			p := refLinear(m, l.proj.w, l.proj.b)
			for k := range p {
				next[f][k] += p[k]
			}
		}
		x = next
	}
	for f := range x {
		for k := range x[f] {
			x[f][k] += frames[f][k]
		}
	}
	return x
}

// refPool is the text-conditioned pooled video of docs/official-code.md §4.1: softmax over frames of t·h/temp, the
// mask multiplied after the softmax, no renormalisation.
func refPool(t []float64, frames [][]float64, mask []float64, temp float64) (weights, pooled []float64) {
	logits := make([]float64, len(frames))
	for f, h := range frames {
		logits[f] = floats.Dot(t, h) / temp
	}
	weights = softmax(logits)
	pooled = make([]float64, len(t))
	for f, h := range frames {
		weights[f] *= mask[f]
		for k := range pooled {
			pooled[k] += weights[f] * h[k]
		}
	}
	return weights, pooled
}

// refFrameMean is the unmasked frame mean.
func refFrameMean(frames [][]float64) []float64 {
	m := make([]float64, len(frames[0]))
	for _, h := range frames {
		for k := range m {
			m[k] += h[k] / float64(len(frames))
		}
	}
	return m
}

func refCos(x, y []float64) float64 {
	return floats.Dot(x, y) / math.Sqrt(floats.Dot(x, x)*floats.Dot(y, y))
}

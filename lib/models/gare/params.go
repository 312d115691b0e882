package gare

import (
	"math/rand/v2"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/nn"
)

// ProjectionInitStd is the initial standard deviation of the input projections that map our
// features (GloVe words, label-derived frames; both L2-normalised) to Dim. It puts the projected
// features at about 0.4 per dimension, the scale of CLIP ViT-B/32's unnormalised embeddings that
// GARE's ψ, pooling temperature and KL prior were tuned for (CLIP features have norms ≈ 8–10 in
// 512 dimensions). Our choice: the code has no such projection (its encoders are CLIP).
const ProjectionInitStd = 0.4

// Linear is y = x·W + B with W [in, out] and B [out] (torch's nn.Linear, transposed layout).
type Linear struct{ W, B *Node }

// Apply maps x [..., in] to [..., out].
func (l Linear) Apply(x *Node) *Node {
	return nn.Dense(x, l.W, l.B, compute.DenseLayoutInputOutputs)
}

// Norm is a LayerNorm over the last axis with gain and bias; Eps is added to the variance (0:
// layerNormEpsilon, torch's 1e-5; the temporal blocks use temporalLayerNormEpsilon).
type Norm struct {
	Gain, Bias *Node
	Eps        float64
}

// Apply normalises x over its last axis.
func (n Norm) Apply(x *Node) *Node {
	eps := n.Eps
	if eps == 0 {
		eps = layerNormEpsilon
	}
	return nn.LayerNorm(x, []int{-1}, eps, n.Gain, n.Bias, nil)
}

// PsiWeights are ψ's parameters (docs/official-code.md §4.2): the shared pre-LayerNorm LN1, the q/k/v/out
// projections of the one-head cross-attention, LN2, the residual Linear1, LN3 and mean_proj.
// The code's log_std_proj, linear2 and mlp are built but never used by the forward pass, so they
// are not here.
type PsiWeights struct {
	LN1, LN2, LN3    Norm
	Q, K, V, O       Linear
	Linear1, MeanOut Linear
}

// TemporalLayer is one CLIP residual attention block (pre-LN, QuickGELU MLP of width 4·D).
type TemporalLayer struct {
	Heads      int
	LN1, LN2   Norm
	Q, K, V, O Linear
	FC, Proj   Linear
}

// Weights are all the parameters of a GARE model as graph nodes.
type Weights struct {
	// TextProj and VideoProj are nil when the given features already have width Dim.
	TextProj, VideoProj *Linear
	// FramePositions [Frames, D] is added to the frames before the temporal transformer.
	FramePositions *Node
	Temporal       []TemporalLayer
	// Psi is nil for the baseline.
	Psi *PsiWeights
}

// variables holds the model's GoMLX variables; nodes() reads them into a graph.
type variables struct {
	textProj, videoProj *linearVars
	framePositions      *model.Variable
	temporal            []temporalVars
	heads               int
	psi                 *psiVars
}

type linearVars struct{ w, b *model.Variable }
type normVars struct{ gain, bias *model.Variable }
type psiVars struct {
	ln1, ln2, ln3    normVars
	q, k, v, o       linearVars
	linear1, meanOut linearVars
}
type temporalVars struct {
	ln1, ln2   normVars
	q, k, v, o linearVars
	fc, proj   linearVars
}

// newVariables creates every variable of cfg under scope with values drawn from rng: Linear
// weights N(0, 0.02²) and zero biases (docs/official-code.md §4.2: init_weights overwrites ψ's identity init),
// LayerNorm gain 1 and bias 0, frame position embeddings N(0, 0.02²) (the code copies CLIP's
// positional embedding; no CLIP here), input projections N(0, ProjectionInitStd²).
func newVariables(scope *model.Scope, cfg Config, rng *rand.Rand) *variables {
	d := cfg.Dim
	v := &variables{heads: cfg.TemporalHeads}
	if cfg.TextInputDim != d {
		l := newLinearVars(scope.In("text_projection"), cfg.TextInputDim, d, ProjectionInitStd, rng)
		v.textProj = &l
	}
	if cfg.VideoInputDim != d {
		l := newLinearVars(scope.In("video_projection"), cfg.VideoInputDim, d, ProjectionInitStd, rng)
		v.videoProj = &l
	}
	if cfg.TemporalLayers > 0 {
		v.framePositions = scope.In("frame_position_embeddings").VariableWithValue("weights", normalTensor(rng, InitStd, cfg.Frames, d))
		temporal := scope.In("temporal")
		for l := range cfg.TemporalLayers {
			s := temporal.In("layer_%d", l)
			v.temporal = append(v.temporal, temporalVars{
				ln1: newNormVars(s.In("layer_norm1"), d), ln2: newNormVars(s.In("layer_norm2"), d),
				q: newLinearVars(s.In("q_proj"), d, d, InitStd, rng), k: newLinearVars(s.In("k_proj"), d, d, InitStd, rng),
				v: newLinearVars(s.In("v_proj"), d, d, InitStd, rng), o: newLinearVars(s.In("out_proj"), d, d, InitStd, rng),
				fc: newLinearVars(s.In("c_fc"), d, 4*d, InitStd, rng), proj: newLinearVars(s.In("c_proj"), 4*d, d, InitStd, rng),
			})
		}
	}
	if cfg.UseDelta {
		s := scope.In("psi")
		v.psi = &psiVars{
			ln1: newNormVars(s.In("layer_norm1"), d), ln2: newNormVars(s.In("layer_norm2"), d), ln3: newNormVars(s.In("layer_norm3"), d),
			q: newLinearVars(s.In("q_proj"), d, d, InitStd, rng), k: newLinearVars(s.In("k_proj"), d, d, InitStd, rng),
			v: newLinearVars(s.In("v_proj"), d, d, InitStd, rng), o: newLinearVars(s.In("out_proj"), d, d, InitStd, rng),
			linear1: newLinearVars(s.In("linear1"), d, d, InitStd, rng), meanOut: newLinearVars(s.In("mean_proj"), d, d, InitStd, rng),
		}
	}
	return v
}

func newLinearVars(s *model.Scope, in, out int, std float64, rng *rand.Rand) linearVars {
	return linearVars{
		w: s.VariableWithValue("weights", normalTensor(rng, std, in, out)),
		b: s.VariableWithValue("bias", tensors.FromShape(shapes.Make(dtypes.Float32, out))),
	}
}

func newNormVars(s *model.Scope, d int) normVars {
	gain := make([]float32, d)
	for i := range gain {
		gain[i] = 1
	}
	return normVars{
		gain: s.VariableWithValue("gain", gain),
		bias: s.VariableWithValue("bias", tensors.FromShape(shapes.Make(dtypes.Float32, d))),
	}
}

func normalTensor(rng *rand.Rand, std float64, dims ...int) *tensors.Tensor {
	t := tensors.FromShape(shapes.Make(dtypes.Float32, dims...))
	tensors.MustMutableFlatData(t, func(flat []float32) {
		for i := range flat {
			flat[i] = float32(std * rng.NormFloat64())
		}
	})
	return t
}

// nodes reads the variables into graph g.
func (v *variables) nodes(g *Graph) Weights {
	var w Weights
	if v.textProj != nil {
		l := v.textProj.node(g)
		w.TextProj = &l
	}
	if v.videoProj != nil {
		l := v.videoProj.node(g)
		w.VideoProj = &l
	}
	if v.framePositions != nil {
		w.FramePositions = v.framePositions.NodeValue(g)
	}
	for _, t := range v.temporal {
		w.Temporal = append(w.Temporal, TemporalLayer{
			Heads: v.heads,
			LN1:   t.ln1.nodeEps(g, temporalLayerNormEpsilon), LN2: t.ln2.nodeEps(g, temporalLayerNormEpsilon),
			Q: t.q.node(g), K: t.k.node(g), V: t.v.node(g), O: t.o.node(g),
			FC: t.fc.node(g), Proj: t.proj.node(g),
		})
	}
	if v.psi != nil {
		w.Psi = v.psi.node(g)
	}
	return w
}

// node reads ψ's variables into g.
func (p *psiVars) node(g *Graph) *PsiWeights {
	return &PsiWeights{
		LN1: p.ln1.node(g), LN2: p.ln2.node(g), LN3: p.ln3.node(g),
		Q: p.q.node(g), K: p.k.node(g), V: p.v.node(g), O: p.o.node(g),
		Linear1: p.linear1.node(g), MeanOut: p.meanOut.node(g),
	}
}

func (l linearVars) node(g *Graph) Linear { return Linear{l.w.NodeValue(g), l.b.NodeValue(g)} }
func (n normVars) node(g *Graph) Norm {
	return Norm{Gain: n.gain.NodeValue(g), Bias: n.bias.NodeValue(g)}
}
func (n normVars) nodeEps(g *Graph, eps float64) Norm {
	return Norm{Gain: n.gain.NodeValue(g), Bias: n.bias.NodeValue(g), Eps: eps}
}

// videoEncoderNodes reads the video tower's variables only (projection, frame positions,
// temporal transformer) into g: Weights with TextProj and Psi nil.
func (v *variables) videoEncoderNodes(g *Graph) Weights {
	psi, text := v.psi, v.textProj
	v.psi, v.textProj = nil, nil
	defer func() { v.psi, v.textProj = psi, text }()
	return v.nodes(g)
}

// encoderNodes reads the encoder variables only (projections, frame positions, temporal
// transformer) into g: Weights with Psi nil.
func (v *variables) encoderNodes(g *Graph) Weights {
	psi := v.psi
	v.psi = nil
	defer func() { v.psi = psi }()
	return v.nodes(g)
}

// videoEncoderVariables lists the video tower's variables in a fixed order.
func (v *variables) videoEncoderVariables() []*model.Variable {
	var out []*model.Variable
	if v.videoProj != nil {
		out = append(out, v.videoProj.w, v.videoProj.b)
	}
	if v.framePositions != nil {
		out = append(out, v.framePositions)
	}
	for _, t := range v.temporal {
		out = append(out, t.ln1.gain, t.ln1.bias, t.ln2.gain, t.ln2.bias)
		for _, l := range []linearVars{t.q, t.k, t.v, t.o, t.fc, t.proj} {
			out = append(out, l.w, l.b)
		}
	}
	return out
}

// psiVariables lists ψ's variables in a fixed order (none for the baseline).
func (v *variables) psiVariables() []*model.Variable {
	p := v.psi
	if p == nil {
		return nil
	}
	var out []*model.Variable
	for _, n := range []normVars{p.ln1, p.ln2, p.ln3} {
		out = append(out, n.gain, n.bias)
	}
	for _, l := range []linearVars{p.q, p.k, p.v, p.o, p.linear1, p.meanOut} {
		out = append(out, l.w, l.b)
	}
	return out
}

package gare

import (
	"fmt"
	"math/rand/v2"

	"github.com/geoalign/geoalign/lib/seedrand"

	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
	"github.com/gomlx/gomlx/ml/model"
)

// Inputs is a batch of given features as graph nodes: A texts and B videos (A = B for a training
// batch of pairs, text i matching video i).
type Inputs struct {
	Text      *Node // t_i [A, TextInputDim]: the text's [CLS]/EOT feature
	Words     *Node // [A, Words, TextInputDim] word features; ContextWords only (else nil)
	WordMask  *Node // [A, Words], 1 for real words; ContextWords only
	Frames    *Node // [B, F, VideoInputDim] frame features
	FrameMask *Node // [B, F], 1 for real frames
}

// Outputs are the per-pair tensors of a forward pass, all materialised (the training path).
type Outputs struct {
	Sim    *Node // S_ij [A, B]
	Text   *Node // t_i [A, D] after the text projection
	Frames *Node // h_jf [B, F, D] after the temporal transformer
	Pooled *Node // v_ij [A, B, D] text-conditioned pooled video
	Delta  *Node // Δ_ij [A, B, D]; nil for the baseline
	// Adjusted is the side Δ is added to, per pair [A, B, D]: t_i + Δ_ij (CorrectText),
	// v_ij + Δ_ij (CorrectVideo), or t_i broadcast over j for the baseline — the node whose
	// per-pair gradients GARE Fig. 2/4 plot.
	Adjusted *Node
}

// Forward computes GARE's similarity for every pair of a batch, materialising Δ (GARE Eq. 7–9 as
// the code computes them, docs/official-code.md §4.1–§4.2): t = EncodeText(text), h = EncodeVideo(frames), the
// text-conditioned pooled video v_ij, Δ_ij = ψ(η(v̄_j − t_i), C) and S_ij = cos(t_i + Δ_ij, v_ij).
// dropout (nil: none) acts on ψ's linear residual. The ψ pairs use the exact factored form of
// psi.go for frame contexts and PsiReference for word contexts.
func Forward(cfg Config, w Weights, in Inputs, dropout func(*Node) *Node) Outputs {
	var out Outputs
	out.Text = EncodeText(w, in.Text)
	out.Frames = EncodeVideo(w, in.Frames, in.FrameMask)
	pool, _ := PoolingWeights(out.Text, out.Frames, in.FrameMask, cfg.PoolTemperature)
	out.Pooled = PooledVideo(pool, out.Frames)
	a, d := out.Text.Shape().Dimensions[0], out.Text.Shape().Dimensions[1]
	b := out.Frames.Shape().Dimensions[0]
	if !cfg.UseDelta {
		out.Adjusted = BroadcastToDims(InsertAxes(out.Text, 1), a, b, d)
		out.Sim = PairCosine(out.Adjusted, out.Pooled)
		return out
	}
	if w.Psi == nil {
		panic("gare.Forward: UseDelta is set but the weights have no ψ")
	}
	out.Delta = Delta(cfg, w, out.Text, out.Frames, in, dropout)
	if cfg.Corrected == CorrectVideo {
		out.Adjusted = Add(out.Pooled, out.Delta)
		out.Sim = PairCosine(BroadcastToDims(InsertAxes(out.Text, 1), a, b, d), out.Adjusted)
	} else {
		out.Adjusted = Add(InsertAxes(out.Text, 1), out.Delta)
		out.Sim = PairCosine(out.Adjusted, out.Pooled)
	}
	return out
}

// ForwardLean is Forward for training: the same S and Δ, but S is computed from Δ, the pooling
// weights and per-video Gram matrices without materialising v_ij or t_i + Δ_ij (two [A, B, D]
// tensors and their gradients less). With π the pooling weights and t·h, Δ·h the dot products
// with the frames,
//
//	t·v = Σ_f π_f t·h_f,   Δ·v = Σ_f π_f Δ·h_f,   ‖v‖² = πᵀ(h hᵀ)π,   ‖t + Δ‖² = ‖t‖² + 2 t·Δ + ‖Δ‖².
//
// Outputs.Pooled and Outputs.Adjusted are nil.
func ForwardLean(cfg Config, w Weights, in Inputs, dropout func(*Node) *Node) Outputs {
	if !cfg.UseDelta {
		return Forward(cfg, w, in, dropout) // the baseline has no Δ to spare
	}
	var out Outputs
	out.Text = EncodeText(w, in.Text)
	out.Frames = EncodeVideo(w, in.Frames, in.FrameMask)
	out.Sim, out.Delta = pairsLean(cfg, w, out.Text, out.Frames, in, dropout)
	return out
}

// pairsLean is ForwardLean after the encoders: S [A, B] and Δ [A, B, D] for encoded texts t [A, D]
// and frames h [B, F, D] (in supplies the frame mask and, for ContextWords, the word features of the
// same A texts). Every output row depends on its own text only, which is what lets the chunked
// training step (step.go) run it a block of texts at a time.
func pairsLean(cfg Config, w Weights, t, frames *Node, in Inputs, dropout func(*Node) *Node) (sim, delta *Node) {
	pool, dots := PoolingWeights(t, frames, in.FrameMask, cfg.PoolTemperature)
	delta = Delta(cfg, w, t, frames, in, dropout)
	tv := ReduceSum(Mul(pool, dots), -1)                                  // [A, B]
	vv := quadratic(pool, Einsum("bfd,bgd->bfg", frames, frames), pool)   // [A, B]
	dv := ReduceSum(Mul(pool, Einsum("abd,bfd->abf", delta, frames)), -1) // [A, B]
	td := ReduceSum(Mul(InsertAxes(t, 1), delta), -1)                     // [A, B]
	dd := sqNorm(delta)                                                   // [A, B]
	tt := InsertAxes(sqNorm(t), 1)                                        // [A, 1]
	if cfg.Corrected == CorrectVideo {
		sim = Div(Add(tv, td), Sqrt(Mul(tt, Add(Add(vv, MulScalar(dv, 2)), dd))))
	} else {
		sim = Div(Add(tv, dv), Sqrt(Mul(Add(Add(tt, MulScalar(td, 2)), dd), vv)))
	}
	return sim, delta
}

// Delta is Δ_ij [A, B, D] for encoded texts t [A, D] and frames h [B, F, D] (in carries the word
// features and masks for ContextWords). For QueryText (Table 5) ψ's output is t′_ij and
// Δ_ij = v̄_j − t′_ij.
func Delta(cfg Config, w Weights, t, frames *Node, in Inputs, dropout func(*Node) *Node) *Node {
	mean := FrameMean(frames)
	alpha, beta := queryCoefficients(cfg)
	var psi *Node
	if cfg.factored() {
		pv := newPsiVideo(w.Psi, frames, mean, nil)
		pt := newPsiText(w.Psi, t)
		_, coef := psiAttention(pt, pv, alpha, beta)
		if dropout != nil {
			psi = psiWithDropout(w.Psi, pv, coef, dropout)
		} else {
			ob := newPsiOutputBasis(w.Psi, pv)
			psi = ob.materialize(ob.outputCoefficients(coef))
		}
	} else {
		// Word context: the context of pair (i, j) is text i's words, so run ψ with the roles of
		// the two axes swapped and transpose back.
		if in.Words == nil || in.WordMask == nil {
			panic("gare.Delta: ContextWords needs Inputs.Words and Inputs.WordMask")
		}
		words := EncodeText(w, in.Words)
		query := Add(MulScalar(InsertAxes(mean, 1), alpha), MulScalar(InsertAxes(t, 0), beta)) // [B, A, D]
		psi = Transpose(PsiReference(w.Psi, query, words, in.WordMask, dropout), 0, 1)
	}
	if cfg.Query == QueryText {
		return Sub(InsertAxes(mean, 0), psi)
	}
	return psi
}

// Model is a GARE model: its configuration and its variables in a GoMLX store.
type Model struct {
	Config  Config
	Store   *model.Store
	backend compute.Backend
	vars    *variables
}

// New creates a model with parameters drawn from seed (see newVariables for the initialisation)
// and the store's random state (dropout) seeded from it too.
func New(backend compute.Backend, cfg Config, seed int64) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	store, err := seedrand.NewStore(seed)
	if err != nil {
		return nil, fmt.Errorf("gare: seeding the store: %w", err)
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6a09e667f3bcc908))
	vars := newVariables(store.RootScope().In("gare"), cfg, rng)
	return &Model{Config: cfg, Store: store, backend: backend, vars: vars}, nil
}

// Weights reads the model's parameters into graph g.
func (m *Model) Weights(g *Graph) Weights { return m.vars.nodes(g) }

// Backend is the backend the model computes on.
func (m *Model) Backend() compute.Backend { return m.backend }

// dropout returns ψ's dropout for graph g: active only in a training pass (train.TrainingPass: not
// in the inference graphs of a Scorer) and when PsiDropout > 0.
func (m *Model) dropout(scope *model.Scope, g *Graph) func(*Node) *Node {
	if m.Config.PsiDropout <= 0 || !train.TrainingPass(scope, g) {
		return nil
	}
	return psiDropout(scope, m.Config.PsiDropout)
}

// psiDropout is ψ's dropout at rate: lib/seedrand's, keyed by the seed, the global step and each
// text's index in the batch — the same masks on every backend and in either step.
func psiDropout(scope *model.Scope, rate float64) func(*Node) *Node {
	return func(x *Node) *Node { return seedrand.Dropout(scope.In("psi_dropout"), x, rate) }
}

// NumParameters is the number of scalar parameters (ψ, temporal transformer, projections).
func (m *Model) NumParameters() int { return m.Store.NumParameters() }

// CopyEncodersFrom initialises the model's input projections, frame position embeddings and
// temporal transformer with src's values (the two configurations must agree on them). This is how
// a GARE run starts from "pretrained" encoders, as the paper's runs start from CLIP: the encoders
// of a trained baseline play CLIP's part, ψ starts from its own initialisation.
func (m *Model) CopyEncodersFrom(src *Model) error {
	pairs := []struct {
		dst, src *model.Variable
	}{}
	addLinear := func(d, s *linearVars) {
		if d != nil && s != nil {
			pairs = append(pairs, struct{ dst, src *model.Variable }{d.w, s.w}, struct{ dst, src *model.Variable }{d.b, s.b})
		}
	}
	if (m.vars.textProj == nil) != (src.vars.textProj == nil) || (m.vars.videoProj == nil) != (src.vars.videoProj == nil) ||
		len(m.vars.temporal) != len(src.vars.temporal) {
		return fmt.Errorf("gare: CopyEncodersFrom: the encoders of the two configurations differ")
	}
	addLinear(m.vars.textProj, src.vars.textProj)
	addLinear(m.vars.videoProj, src.vars.videoProj)
	if m.vars.framePositions != nil {
		pairs = append(pairs, struct{ dst, src *model.Variable }{m.vars.framePositions, src.vars.framePositions})
	}
	for l := range m.vars.temporal {
		d, s := &m.vars.temporal[l], &src.vars.temporal[l]
		for _, n := range [][2]*normVars{{&d.ln1, &s.ln1}, {&d.ln2, &s.ln2}} {
			pairs = append(pairs, struct{ dst, src *model.Variable }{n[0].gain, n[1].gain}, struct{ dst, src *model.Variable }{n[0].bias, n[1].bias})
		}
		for _, l := range [][2]*linearVars{{&d.q, &s.q}, {&d.k, &s.k}, {&d.v, &s.v}, {&d.o, &s.o}, {&d.fc, &s.fc}, {&d.proj, &s.proj}} {
			addLinear(l[0], l[1])
		}
	}
	for _, p := range pairs {
		v, err := p.src.Value()
		if err != nil {
			return err
		}
		if !v.Shape().Equal(p.dst.Shape()) {
			return fmt.Errorf("gare: CopyEncodersFrom: %s has shape %s, source %s", p.dst.Path(), p.dst.Shape(), v.Shape())
		}
		c, err := v.Clone()
		if err != nil {
			return err
		}
		if err := p.dst.SetValue(c); err != nil {
			return err
		}
	}
	return nil
}

// ReferenceSimilarity is S_ij computed literally as the official code does, every per-pair
// tensor materialised and ψ = PsiReference (four D×D products per pair): the check for the
// factored scores (tests, notebook) and the "same computation" the benchmarks compare with.
// Frame context, text-corrected, no dropout.
func ReferenceSimilarity(cfg Config, w Weights, in Inputs) *Node {
	t := EncodeText(w, in.Text)
	frames := EncodeVideo(w, in.Frames, in.FrameMask)
	pool, _ := PoolingWeights(t, frames, in.FrameMask, cfg.PoolTemperature)
	pooled := PooledVideo(pool, frames)
	if !cfg.UseDelta {
		return PairCosine(BroadcastToDims(InsertAxes(t, 1), pooled.Shape().Dimensions...), pooled)
	}
	gap := SemanticGap(t, FrameMean(frames), cfg.eta())
	delta := PsiReference(w.Psi, gap, frames, nil, nil)
	return PairCosine(Add(InsertAxes(t, 1), delta), pooled)
}

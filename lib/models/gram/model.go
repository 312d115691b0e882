package gram

import (
	"github.com/geoalign/geoalign/lib/geom"
	"github.com/geoalign/geoalign/lib/loss"
	"github.com/geoalign/geoalign/lib/seedrand"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/layers"
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/layers/norm"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/support/exceptions"
)

// Variable paths of the model's scalars (the encoders live under "/encoder_<m>", the contra heads
// under "/contra_head_<m>", the DAM head under "/matching_head").
const (
	TemperaturePath = "/gram/temperature"
	AlphaPath       = "/gram/alpha"
)

// MatchingLayerNormEpsilon is the LayerNorm eps of GRAM's ITM head (Linear → GELU →
// LayerNorm(eps 1e-12) → Linear(2), docs/official-code.md §1.4), kept for the MLP matching head that replaces it.
const MatchingLayerNormEpsilon = 1e-12

// Encode runs modality m's encoder and contra head on features x [B, in]: hidden [B, Hidden] (the
// matching head's input) and head [B, ContraDim], the contra head's output before normalisation
// (GRAM's Contra_head is a bias-free linear layer followed by L2 normalisation, docs/official-code.md §1.1; the
// normalisation is Unit, applied by the volume and cosine scores).
func Encode(scope *model.Scope, cfg Config, m int, x *graph.Node) (hidden, head *graph.Node) {
	if x.Rank() != 2 {
		exceptions.Panicf("gram.Encode: modality %d features must be [B, in], got %s", m, x.Shape())
	}
	h := x
	enc := scope.In("encoder_%d", m)
	for l := 0; l < cfg.EncoderLayers; l++ {
		h = activation.Gelu(layers.DenseWithBias(seedrand.He(enc.In("layer_%d", l)), h, cfg.Hidden))
	}
	head = layers.Dense(seedrand.He(scope.In("contra_head_%d", m)), h, false, cfg.ContraDim)
	return h, head
}

// Unit is GRAM's L2 normalisation of the contra head output (F.normalize in the code; GoMLX's
// graph.L2Normalize maps an all-zero row to zero with a finite gradient instead of F.normalize's 1e-12 floor).
func Unit(head *graph.Node) *graph.Node { return graph.L2Normalize(head, -1) }

// Temperature is GRAM's learnable τ in graph g: a raw scalar (not log-parameterised, never
// clamped) that divides the volume (docs/official-code.md §1.3).
func Temperature(store *model.Store, g *graph.Graph, cfg Config) *graph.Node {
	v := store.VariableWithValue(TemperaturePath, float32(cfg.TemperatureInit)).SetTrainable(!cfg.FixedTemperature)
	return v.NodeValue(g)
}

// Alpha is HyperGRAM's mixing weight α in graph g (Hybrid geometry only): a raw scalar initialised
// at cfg.AlphaInit; the trainer projects it to [0, 1] after every step (ProjectAlpha).
func Alpha(store *model.Store, g *graph.Graph, cfg Config) *graph.Node {
	v := store.VariableWithValue(AlphaPath, float32(cfg.AlphaInit)).SetTrainable(!cfg.FixedAlpha)
	return v.NodeValue(g)
}

// VolumeFunc returns the B1×B2 volume function of the geometry (lib/geom), taking the contra-head
// outputs (before normalisation) of the anchor and the data modalities. alpha is used by Hybrid only.
//
//   - Euclidean: geom.VolumeMatrix of the unit vectors (GRAM).
//   - Hyperbolic: geom.HyperbolicVolumeMatrix of π(unit vectors), or of π(raw heads) with rawLift.
//   - Hybrid: geom.HybridVolumeMatrix(α, unit vectors); with rawLift the hyperbolic term lifts the raw
//     heads and the Euclidean one the unit vectors, mixed by the same (1−α)·V_hyp + α·V_euc.
func VolumeFunc(geometry Geometry, rawLift bool, alpha *graph.Node) loss.VolumeFunc {
	units := func(xs []*graph.Node) []*graph.Node {
		out := make([]*graph.Node, len(xs))
		for i, x := range xs {
			out[i] = Unit(x)
		}
		return out
	}
	switch geometry {
	case Euclidean:
		return func(anchor *graph.Node, others ...*graph.Node) *graph.Node {
			return geom.VolumeMatrix(Unit(anchor), units(others)...)
		}
	case Hyperbolic:
		if rawLift {
			return geom.HyperbolicVolumeMatrix
		}
		return func(anchor *graph.Node, others ...*graph.Node) *graph.Node {
			return geom.HyperbolicVolumeMatrix(Unit(anchor), units(others)...)
		}
	case Hybrid:
		if alpha == nil {
			exceptions.Panicf("gram.VolumeFunc: the hybrid geometry needs α")
		}
		if !rawLift {
			return func(anchor *graph.Node, others ...*graph.Node) *graph.Node {
				return geom.HybridVolumeMatrix(alpha, Unit(anchor), units(others)...)
			}
		}
		return func(anchor *graph.Node, others ...*graph.Node) *graph.Node {
			hyp := geom.HyperbolicVolumeMatrix(anchor, others...)
			euc := geom.VolumeMatrix(Unit(anchor), units(others)...)
			a := graph.ConvertDType(alpha, hyp.DType())
			return graph.Add(graph.Mul(graph.OneMinus(a), hyp), graph.Mul(a, euc)) // as geom.HybridVolumeMatrix mixes them
		}
	}
	exceptions.Panicf("gram.VolumeFunc: unknown geometry %v", geometry)
	return nil
}

// MeanCosine is the pairwise-cosine retrieval score of a T→V+A query: the mean over the data
// modalities of cos(anchor_i, m_j), [B1, B2] (the "sum of pairwise similarities" that cosine-based
// models use for more than two modalities; GRAM §3.1).
func MeanCosine(anchor *graph.Node, others ...*graph.Node) *graph.Node {
	var sum *graph.Node
	for _, o := range others {
		c := loss.CosineSimilarityMatrix(anchor, o)
		if sum == nil {
			sum = c
		} else {
			sum = graph.Add(sum, c)
		}
	}
	return graph.DivScalar(sum, float64(len(others)))
}

// MatchingLogits is the DAM matching head on a batch of (anchor, data tuple) pairs: hidden[0] is the
// anchor's encoder output [N, H], hidden[1:] the data modalities' [N, H]. The pair feature is the
// concatenation of all hidden vectors and of the anchor's elementwise products with each data
// modality; the head is Dense(MatchHidden) → GELU → LayerNorm(1e-12) → Dense(2), as GRAM's ITM head
// (docs/official-code.md §1.4) but on pooled features instead of a BERT cross-encoder over tokens. → [N, 2]
// (column 1 = matched).
func MatchingLogits(scope *model.Scope, cfg Config, hidden []*graph.Node) *graph.Node {
	parts := append([]*graph.Node(nil), hidden...)
	for _, h := range hidden[1:] {
		parts = append(parts, graph.Mul(hidden[0], h))
	}
	s := scope.In("matching_head")
	x := activation.Gelu(layers.DenseWithBias(seedrand.He(s.In("hidden")), graph.Concatenate(parts, -1), cfg.MatchHidden))
	x = norm.LayerNorm(s, x, -1).Epsilon(MatchingLayerNormEpsilon).Done()
	return layers.DenseWithBias(seedrand.He(s.In("logits")), x, 2)
}

// LossOutputs are the nodes TrainingLoss returns, in this order, after the total loss.
var LossOutputs = []string{"loss", "contrastive", "dam", "temperature", "alpha"}

// TrainingLoss builds the training objective on one batch: features[m] [B, in_m] per modality
// (anchor first). It returns [total, contrastive, dam, τ, α] (dam = 0 without DAM, α = 0 unless
// the geometry is Hybrid).
//
//   - Volume objective, BothDirections: loss.VolumeContrastiveOneSided (code) or
//     loss.VolumeContrastive (TwoSidedGradients) on the geometry's VolumeFunc, label smoothing ε.
//   - AnchorToData / DataToAnchor: one loss.DiagonalCrossEntropy term (GRAM Table 6 ablation), with
//     the same stop-gradient convention.
//   - Pairwise-cosine objective: loss.PairwiseCosineInfoNCEOneSided / PairwiseCosineInfoNCE.
//   - DAM (docs/official-code.md §1.4): negatives drawn by loss.SampleDAMNegatives from the batch's volume (or −cosine)
//     matrix, 3B pairs scored by MatchingLogits, loss.MatchingCrossEntropy, weight DAMWeight.
func TrainingLoss(scope *model.Scope, cfg Config, features []*graph.Node) []*graph.Node {
	if len(features) < 2 {
		exceptions.Panicf("gram.TrainingLoss: need ≥ 2 modalities, got %d", len(features))
	}
	g := features[0].Graph()
	store := scope.Store()
	hidden := make([]*graph.Node, len(features))
	heads := make([]*graph.Node, len(features))
	for m, x := range features {
		hidden[m], heads[m] = Encode(scope, cfg, m, x)
	}
	tau := Temperature(store, g, cfg)
	var alpha *graph.Node
	if cfg.Geometry == Hybrid {
		alpha = Alpha(store, g, cfg)
	}
	anchor, others := heads[0], heads[1:]

	var contrastive, score *graph.Node // score: [B, B] "volume-like" matrix (smaller = better) for DAM sampling
	if cfg.Objective == PairwiseCosineObjective {
		units := make([]*graph.Node, len(others))
		for i, o := range others {
			units[i] = Unit(o)
		}
		if cfg.TwoSidedGradients {
			contrastive = loss.PairwiseCosineInfoNCE(Unit(anchor), units, tau, cfg.LabelSmoothing)
		} else {
			contrastive = loss.PairwiseCosineInfoNCEOneSided(Unit(anchor), units, tau, cfg.LabelSmoothing)
		}
		score = graph.Neg(MeanCosine(anchor, others...))
	} else {
		volume := VolumeFunc(cfg.Geometry, cfg.RawLift, alpha)
		contrastive, score = volumeLoss(cfg, volume, tau, anchor, others)
		if score == nil && cfg.DAM {
			score = graph.StopGradient(volume(anchor, others...))
		}
	}
	total := contrastive
	dam := graph.ScalarZero(g, contrastive.DType())
	if cfg.DAM {
		dam = damLoss(scope, cfg, score, tau, hidden)
		total = graph.Add(total, graph.MulScalar(dam, cfg.DAMWeight))
	}
	alphaOut := graph.ScalarZero(g, tau.DType())
	if alpha != nil {
		alphaOut = alpha
	}
	return []*graph.Node{total, contrastive, dam, tau, alphaOut}
}

// volumeLoss is the volume-contrastive term with the configured directions and gradient flow; it
// also returns the batch volume matrix when it computed one that DAM can sample from (nil for the
// official one-sided form, whose two matrices carry stop-gradients on opposite sides).
func volumeLoss(cfg Config, volume loss.VolumeFunc, tau, anchor *graph.Node, others []*graph.Node) (contrastive, vol *graph.Node) {
	if cfg.Directions == BothDirections {
		if cfg.TwoSidedGradients {
			vol = volume(anchor, others...)
			return loss.VolumeContrastive(vol, tau, cfg.LabelSmoothing), vol
		}
		return loss.VolumeContrastiveOneSided(volume, tau, cfg.LabelSmoothing, anchor, others...), nil
	}
	// One direction (GRAM Table 6): the one-sided form stops the key side of that direction.
	queryAnchor := cfg.Directions == AnchorToData
	a, os := anchor, others
	if !cfg.TwoSidedGradients {
		if queryAnchor {
			os = make([]*graph.Node, len(others))
			for i, o := range others {
				os[i] = graph.StopGradient(o)
			}
		} else {
			a = graph.StopGradient(anchor)
		}
	}
	vol = volume(a, os...)
	logits := graph.Neg(graph.Div(vol, tau))
	if !queryAnchor {
		logits = graph.Transpose(logits, 0, 1)
	}
	return loss.DiagonalCrossEntropy(logits, cfg.LabelSmoothing), graph.StopGradient(vol)
}

// damLoss is GRAM's data-anchor matching loss (docs/official-code.md §1.4) on the batch: for each anchor i one hard
// negative data tuple and for each data tuple j one hard negative anchor, drawn ∝ softmax(−V/τ) + 1e-4
// (positive excluded); 3B pairs (positive, negative data, negative anchor) through the matching head.
func damLoss(scope *model.Scope, cfg Config, vol, tau *graph.Node, hidden []*graph.Node) *graph.Node {
	// The negatives come from lib/seedrand's counter-based generator keyed by the store's seed (the
	// configuration's) and the global step: the same draws on every backend and device count.
	rng := seedrand.StepState(scope, vol.Graph(), "gram/dam")
	rng, negData := loss.SampleDAMNegatives(rng, vol, tau)                        // [B]: a negative tuple per anchor
	_, negAnchor := loss.SampleDAMNegatives(rng, graph.Transpose(vol, 0, 1), tau) // [B]: a negative anchor per tuple
	b := vol.Shape().Dim(0)
	gatherRows := func(x, idx *graph.Node) *graph.Node { return graph.Gather(x, graph.Reshape(idx, b, 1)) }

	pairs := make([]*graph.Node, len(hidden)) // per modality, the 3B rows of the pairs
	for m, h := range hidden {
		var negRows *graph.Node
		if m == 0 {
			negRows = gatherRows(h, negAnchor)
			pairs[m] = graph.Concatenate([]*graph.Node{h, h, negRows}, 0) // (t_i, d_i), (t_i, d_neg), (t_neg, d_i)
		} else {
			negRows = gatherRows(h, negData)
			pairs[m] = graph.Concatenate([]*graph.Node{h, negRows, h}, 0)
		}
	}
	logits := MatchingLogits(scope, cfg, pairs)
	matched := graph.Concatenate([]*graph.Node{graph.OnesLike(negData), graph.ZerosLike(negData), graph.ZerosLike(negData)}, 0)
	return loss.MatchingCrossEntropy(logits, matched)
}

package loss

import (
	"github.com/geoalign/geoalign/lib/geom"
	"github.com/geoalign/geoalign/lib/seedrand"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style (as in ml/layers).
)

// HLFormer losses (ICCV 2025; official code convention in docs/official-code.md
// §3.3, HLF:src/Losses/loss.py). A training batch holds V videos and Q queries; labels [Q] gives the video
// (column index in [0, V)) of each query, and a video may have several queries.

// HLFormer constants of the official code (docs/official-code.md §3.3, Table 4 of the paper).
const (
	// HLFormerHardPoolSize is the number of hardest negative videos among which the t2v triplet samples
	// uniformly once hard negatives are on (hard_pool_size).
	HLFormerHardPoolSize = 20
	// HLFormerHardNegativeStartEpoch is the epoch from which the code switches the triplet loss to hard
	// negatives (hard_negative_start_epoch). The switch is the caller's TripletOptions.HardNegatives.
	HLFormerHardNegativeStartEpoch = 20
	// HLFormerFocal is λ of the query-diversity focal factor (1 + cos)^λ (neg_factor[2]).
	HLFormerFocal = 1.0
	// HLFormerDiversityScale is α of the query-diversity loss (neg_factor[1]).
	HLFormerDiversityScale = 32.0
)

// EntailmentCone is HLFormer's partial-order-preservation loss L_pop (Eq. 18–20) as the official code
// computes it (docs/official-code.md §3.3–3.4(a): MERU's entailment loss with the roles flipped, the video is the apex):
//
//	L_pop = mean_rows relu( ExteriorAngle(apex, x) − HalfAperture(apex) ),
//
// apex [N, n] (the video of each query, apex row r = video of query r) and x [N, n] (the queries), both as
// space components of points on the hyperboloid of curvature −c (lib/geom convention), c a scalar node
// (HLFormer's learned curvature, clamped by the caller to [0.1, 10]), minRadius the cone's K
// (geom.MinRadius = 0.1) -> scalar. The angles are lib/geom's HalfAperture and ExteriorAngle.
func EntailmentCone(apex, x, c *Node, minRadius float64) *Node {
	assertRank("EntailmentCone", "apex", apex, 2)
	assertFloat("EntailmentCone", "apex", apex)
	assertSameShape("EntailmentCone", "apex", apex, "x", x)
	assertScalar("EntailmentCone", "c", c)
	violation := Sub(geom.ExteriorAngle(apex, x, c), geom.HalfAperture(apex, c, minRadius))
	return ReduceAllMean(hinge(violation))
}

// MultiPositiveNCE is HLFormer's InfoNCE as the official code computes it (clip_nce, docs/official-code.md §3.3): on raw,
// unnormalised max-over-time dot products and without temperature,
//
//	mean_q ( logsumexp_v s[q, v] − s[q, label(q)] )
//	  + mean_v ( logsumexp_q s[q, v] − logsumexp_{q ∈ captions(v)} s[q, v] ).
//
// scores [Q, V], labels [Q] integer in [0, V) -> scalar. A video with no query in the batch contributes 0
// to the second sum but still counts in its mean (the code leaves both of its logsumexps at 0). The
// paper's Eq. 30 writes ratios of S without exp; the code's form is the one implemented.
func MultiPositiveNCE(scores, labels *Node) *Node {
	assertRank("MultiPositiveNCE", "scores", scores, 2)
	assertFloat("MultiPositiveNCE", "scores", scores)
	q, v := scores.Shape().Dimensions[0], scores.Shape().Dimensions[1]
	assertLabels("MultiPositiveNCE", labels, q)
	positives := OneHot(labels, v, dtypes.Bool) // [Q, V]: query q describes video v
	allTrue := OnesLike(positives)

	t2vAll, _ := maskedLogSumExp(scores, allTrue, 1)                         // [Q]
	t2vPositive := ReduceSum(Where(positives, scores, ZerosLike(scores)), 1) // s[q, label(q)]
	v2tAll, _ := maskedLogSumExp(scores, allTrue, 0)                         // [V]
	v2tPositive, hasCaption := maskedLogSumExp(scores, positives, 0)         // [V]
	v2t := Where(hasCaption, Sub(v2tAll, v2tPositive), ZerosLike(v2tAll))
	return Add(ReduceAllMean(Sub(t2vAll, t2vPositive)), ReduceAllMean(v2t))
}

// maskedLogSumExp returns log Σ_{mask} exp(x) along axis, and whether the mask has any true entry there.
// Where the mask is empty the result is 0 (and carries no NaN into gradients).
func maskedLogSumExp(x, mask *Node, axis int) (lse, nonEmpty *Node) {
	g := x.Graph()
	dtype := x.DType()
	negInf := Infinity(g, dtype, -1)
	masked := Where(mask, x, negInf)
	nonEmpty = ReduceLogicalOr(mask, axis)
	maxKept := StopGradient(ReduceAndKeep(masked, ReduceMax, axis))
	maxKept = Where(InsertAxes(nonEmpty, axis), maxKept, ZerosLike(maxKept)) // finite shift for empty slices
	shifted := Where(mask, Sub(x, maxKept), negInf)
	sum := ReduceSum(Exp(shifted), axis)
	sum = Where(nonEmpty, sum, OnesLike(sum))
	lse = Add(Log(sum), Squeeze(maxKept, axis))
	return Where(nonEmpty, lse, ZerosLike(lse)), nonEmpty
}

// TripletOptions configures TripletRanking.
type TripletOptions struct {
	// Margin m of relu(m + neg − pos): 0.1 (TVR) or 0.2 (ActivityNet, Charades), docs/official-code.md §3.3.
	Margin float64
	// HardNegatives switches to the hard-negative curriculum (the code's use_hard_negative, on from
	// HLFormerHardNegativeStartEpoch): t2v samples uniformly among the HardPoolSize hardest negative
	// videos, v2t takes the single hardest negative query. Off: both sample uniformly among all negatives.
	HardNegatives bool
	// HardPoolSize is the t2v hard pool (HLFormerHardPoolSize when 0); capped at V − 1.
	HardPoolSize int
}

// TripletRanking is HLFormer's triplet ranking loss (Eq. 29) as the official code computes it
// (get_clip_triplet_loss, docs/official-code.md §3.3), on cosine scores [Q, V] with labels [Q]:
//
//	t2v: (1/Q) Σ_q relu(m + s[q, neg(q)] − s[q, label(q)]),        neg(q) a video ≠ label(q);
//	v2t: (1/V) Σ_v relu(m + s[neg(v), v] − mean_{q ∈ captions(v)} s[q, v]), neg(v) a query of another video.
//
// Negatives are drawn in the graph from rngState (see SampleTripletNegatives); the updated state is
// returned first, GoMLX style. A video with no caption in the batch contributes 0 (the code would give NaN).
func TripletRanking(rngState, scores, labels *Node, opts TripletOptions) (newRNGState, loss *Node) {
	newRNGState, t2vNegatives, v2tNegatives := SampleTripletNegatives(rngState, scores, labels, opts.HardNegatives, opts.HardPoolSize)
	return newRNGState, TripletRankingWithNegatives(scores, labels, t2vNegatives, v2tNegatives, opts.Margin)
}

// SampleTripletNegatives draws the negatives of TripletRanking (docs/official-code.md §3.3), without gradient:
//
//   - t2vNegatives [Q] (Int32): for each query a video ≠ its own, uniformly among all V − 1 others, or,
//     with hard = true, uniformly among the min(hardPoolSize, V − 1) highest-scoring others;
//   - v2tNegatives [V] (Int32): for each video a query of another video, uniformly, or, with hard = true,
//     the highest-scoring one (ties: the lowest query index).
//
// hardPoolSize ≤ 0 means HLFormerHardPoolSize. Ties at the edge of the hard pool follow TopK's stable
// order (the code's torch.sort order is unspecified). If every query of the batch belongs to video v, v has
// no negative and gets index 0; that needs all other videos to have no query, which a PRVR batch never has.
func SampleTripletNegatives(rngState, scores, labels *Node, hard bool, hardPoolSize int) (newRNGState, t2vNegatives, v2tNegatives *Node) {
	assertRank("SampleTripletNegatives", "scores", scores, 2)
	assertFloat("SampleTripletNegatives", "scores", scores)
	q, v := scores.Shape().Dimensions[0], scores.Shape().Dimensions[1]
	assertLabels("SampleTripletNegatives", labels, q)
	if v < 2 {
		panicf("SampleTripletNegatives: needs at least 2 videos for a negative, scores is %s", scores.Shape())
	}
	if hardPoolSize <= 0 {
		hardPoolSize = HLFormerHardPoolSize
	}
	scores = StopGradient(scores)
	g := scores.Graph()
	dtype := scores.DType()
	negInf := Infinity(g, dtype, -1)
	negatives := LogicalNot(OneHot(labels, v, dtypes.Bool)) // [Q, V]: video v is a negative of query q

	// t2v: candidates = all negatives, or the top-k negatives by score.
	t2vCandidates := negatives
	if hard {
		k := min(hardPoolSize, v-1)
		t2vCandidates = LogicalAnd(negatives, TopKMask(Where(negatives, scores, negInf), k, 1))
	}
	rngState, t2vNegatives = uniformAmong(rngState, t2vCandidates, 1)

	// v2t: negatives of video v are the queries of other videos (column v of `negatives`).
	if hard {
		v2tNegatives = ArgMax(Where(negatives, scores, negInf), 0)
	} else {
		rngState, v2tNegatives = uniformAmong(rngState, negatives, 0)
	}
	return rngState, t2vNegatives, v2tNegatives
}

// uniformAmong picks, along axis, one index uniformly among the true entries of candidates (Int32), by
// taking the argmax of uniform noise restricted to the candidates. An all-false slice yields index 0.
func uniformAmong(rngState, candidates *Node, axis int) (newRNGState, indices *Node) {
	newRNGState, noise := seedrand.Uniform(rngState, shapes.Make(dtypes.Float32, candidates.Shape().Dimensions...))
	minusOne := Scalar(candidates.Graph(), dtypes.Float32, -1)
	return newRNGState, ArgMax(Where(candidates, noise, minusOne), axis)
}

// TripletRankingWithNegatives is the value of TripletRanking for given negatives (see TripletRanking):
// scores [Q, V], labels [Q], t2vNegatives [Q] (a video index per query), v2tNegatives [V] (a query index
// per video), all integers -> scalar. Gradients flow into scores only.
func TripletRankingWithNegatives(scores, labels, t2vNegatives, v2tNegatives *Node, margin float64) *Node {
	assertRank("TripletRankingWithNegatives", "scores", scores, 2)
	assertFloat("TripletRankingWithNegatives", "scores", scores)
	q, v := scores.Shape().Dimensions[0], scores.Shape().Dimensions[1]
	assertLabels("TripletRankingWithNegatives", labels, q)
	assertIndexVector("TripletRankingWithNegatives", "t2vNegatives", t2vNegatives, q)
	assertIndexVector("TripletRankingWithNegatives", "v2tNegatives", v2tNegatives, v)
	zeros := ZerosLike(scores)
	positives := OneHot(labels, v, dtypes.Bool) // [Q, V]

	// t2v: one positive video per query.
	t2vPositive := ReduceSum(Where(positives, scores, zeros), 1)                            // [Q]
	t2vNegative := ReduceSum(Where(OneHot(t2vNegatives, v, dtypes.Bool), scores, zeros), 1) // [Q]
	t2v := ReduceAllMean(hinge(AddScalar(Sub(t2vNegative, t2vPositive), margin)))

	// v2t: positive = mean over the video's captions; negative = the chosen query's score.
	counts := ReduceSum(ConvertDType(positives, scores.DType()), 0) // [V]
	hasCaption := GreaterThan(counts, ZerosLike(counts))
	v2tPositive := Div(ReduceSum(Where(positives, scores, zeros), 0), Where(hasCaption, counts, OnesLike(counts)))
	chosen := Transpose(OneHot(v2tNegatives, q, dtypes.Bool), 0, 1) // [Q, V]: query chosen for video v
	v2tNegative := ReduceSum(Where(chosen, scores, zeros), 0)       // [V]
	v2tTerms := hinge(AddScalar(Sub(v2tNegative, v2tPositive), margin))
	v2t := ReduceAllMean(Where(hasCaption, v2tTerms, ZerosLike(v2tTerms)))
	return Add(t2v, v2t)
}

// hinge is relu(x) = max(x, 0), the code's clamp(min=0).
func hinge(x *Node) *Node { return Max(x, ZerosLike(x)) }

// QueryDiversityOptions configures QueryDiversityWith.
type QueryDiversityOptions struct {
	Margin float64 // δ: 0.15 (TVR) or 0.2 (ActivityNet, Charades)
	Scale  float64 // α: HLFormerDiversityScale
	// Focal is λ of the factor (1 + cos)^λ; 0 removes the factor (the paper's Eq. 32).
	Focal float64
	// IncludeSelfPairs also sums the pairs i = j (the paper's indicator is 1 for every pair of the same
	// video, including i = j); the code excludes them.
	IncludeSelfPairs bool
}

// QueryDiversity is HLFormer's query-diversity loss as the official code computes it (query_diverse_loss,
// docs/official-code.md §3.3): with q̂ = q/max(‖q‖, 1e-12) and cos_ij = ⟨q̂_i, q̂_j⟩,
//
//	L_div = (1/Q) Σ_{i ≠ j, label(i) = label(j)} (1 + cos_ij)^focal · log(1 + exp(scale·(cos_ij + margin))).
//
// queries [Q, d], labels [Q] integer -> scalar. The softplus is evaluated stably (same value). The paper's
// Eq. 32 (no focal factor, pairs i = j included) is QueryDiversityPaper; QueryDiversityWith mixes the two.
func QueryDiversity(queries, labels *Node, margin, scale, focal float64) *Node {
	return QueryDiversityWith(queries, labels, QueryDiversityOptions{Margin: margin, Scale: scale, Focal: focal})
}

// QueryDiversityPaper is HLFormer Eq. 32: (1/Q) Σ_{i, j of the same video} log(1 + exp(scale·(cos_ij + margin))),
// without the focal factor and with i = j included.
func QueryDiversityPaper(queries, labels *Node, margin, scale float64) *Node {
	return QueryDiversityWith(queries, labels, QueryDiversityOptions{Margin: margin, Scale: scale, IncludeSelfPairs: true})
}

// QueryDiversityWith is the query-diversity loss with every switch explicit (see QueryDiversityOptions).
func QueryDiversityWith(queries, labels *Node, opts QueryDiversityOptions) *Node {
	assertRank("QueryDiversity", "queries", queries, 2)
	assertFloat("QueryDiversity", "queries", queries)
	n := queries.Shape().Dimensions[0]
	assertLabels("QueryDiversity", labels, n)
	if opts.Focal < 0 {
		panicf("QueryDiversity: focal exponent must be ≥ 0, got %g", opts.Focal)
	}
	unit := unitRows(queries)
	cos := MatMul(unit, Transpose(unit, 0, 1)) // [Q, Q]
	pairs := Equal(InsertAxes(labels, 1), InsertAxes(labels, 0))
	if !opts.IncludeSelfPairs {
		pairs = LogicalAnd(pairs, offDiagonalMask(cos))
	}
	terms := Softplus(MulScalar(AddScalar(cos, opts.Margin), opts.Scale))
	switch opts.Focal {
	case 0:
	case 1:
		terms = Mul(focalBase(cos), terms)
	default:
		terms = Mul(Pow(focalBase(cos), Scalar(cos.Graph(), cos.DType(), opts.Focal)), terms)
	}
	return DivScalar(ReduceAllSum(Where(pairs, terms, ZerosLike(terms))), float64(n))
}

// focalBase is 1 + cos, floored at 0: rounding can push a cosine a hair below −1, and a negative base
// would make a fractional power NaN (the code has no floor; with its λ = 1 it makes no difference).
func focalBase(cos *Node) *Node { return MaxScalar(OnePlus(cos), 0) }

func assertIndexVector(fn, name string, x *Node, n int) {
	assertRank(fn, name, x, 1)
	if !x.DType().IsInt() {
		panicf("%s: %s must be an integer dtype, got %s", fn, name, x.DType())
	}
	if x.Shape().Dimensions[0] != n {
		panicf("%s: %s has %d entries, want %d", fn, name, x.Shape().Dimensions[0], n)
	}
}

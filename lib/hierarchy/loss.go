package hierarchy

import (
	"github.com/geoalign/geoalign/lib/geom"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/support/exceptions"
)

// Distance returns the distance the loss and the evaluation rank by, elementwise over the last
// axis with broadcasting: [..., n] × [..., n] → [...].
//
//   - Lorentz: the geodesic distance arcosh(−c⟨x, y⟩_L)/√c of lib/geom, on space coordinates;
//   - Poincare: the geodesic distance of the ball of lib/geom;
//   - Euclidean: the squared distance ‖x − y‖², the baseline of the official code
//     (hype/manifolds/euclidean.py distance()).
//
// c is the scalar curvature node (curvature −c); it is unused for Euclidean.
func Distance(m Manifold, x, y, c *Node) *Node {
	switch m {
	case Lorentz:
		return geom.LorentzDistance(x, y, c)
	case Poincare:
		return geom.PoincareDistance(x, y, c)
	case Euclidean:
		return ReduceSum(Square(Sub(x, y)), -1)
	}
	exceptions.Panicf("hierarchy.Distance: unknown manifold %q", m)
	return nil
}

// NegativeSamplingLoss is the softmax loss of Nickel & Kiela (2017 §4, 2018 §4) over a batch:
//
//	L = −1/B Σ_(u,v) log( e^{−d(u,v)} / Σ_{v' ∈ {v} ∪ N(u)} e^{−d(u,v')} )
//
// where N(u) are K sampled nodes v' with (u, v') not in the closure.
//
// rows [R, n] are the embedding rows the batch touches (space coordinates for Lorentz);
// triples [B, 2+K] int32 hold, per positive pair, the local row indices of the child u, the true
// parent v and the K negatives; weights [B] are 1 for real pairs and 0 for padding (the last batch
// of an epoch is padded to keep shapes fixed). The mean is over real pairs, as in the official
// code's cross_entropy(size_average=True).
func NegativeSamplingLoss(m Manifold, rows, triples, weights, c *Node) *Node {
	if triples.Rank() != 2 || triples.Shape().Dim(1) < 3 {
		exceptions.Panicf("hierarchy.NegativeSamplingLoss: triples must be [B, 2+K] with K ≥ 1, got %s", triples.Shape())
	}
	b, k1 := triples.Shape().Dim(0), triples.Shape().Dim(1)-1
	emb := Gather(rows, InsertAxes(triples, -1)) // [B, 2+K, n]
	n := emb.Shape().Dim(2)
	u := Slice(emb, AxisRange(), AxisElem(0), AxisRange())        // [B, 1, n]
	vs := Slice(emb, AxisRange(), AxisRangeToEnd(1), AxisRange()) // [B, 1+K, n]: the parent, then negatives
	u = BroadcastToDims(u, b, k1, n)
	logits := Neg(Distance(m, u, vs, c)) // [B, 1+K]
	nll := Neg(Squeeze(Slice(LogSoftmax(logits, -1), AxisRange(), AxisElem(0)), -1))
	w := ConvertDType(weights, nll.DType())
	return Div(ReduceAllSum(Mul(nll, w)), ReduceAllSum(w)) // the sampler never sends an all-padding batch
}

// ConeViolation is HLFormer's partial-order violation of the pair (child, parent): how far, in
// radians, the child lies outside the entailment cone whose apex is the parent,
//
//	EA(parent, child) − HA(parent)   (HLFormer Eq. 18–20, the argument of L_pop's max),
//
// with lib/geom's ExteriorAngle and HalfAperture (MERU's oxy_angle and half_aperture, K =
// geom.MinRadius), the parent in the video's role (the general concept) and the child in the
// text's: ≤ 0 when the child is inside the cone. parents, children [..., n] are space
// coordinates on the hyperboloid of curvature −c (c a scalar node) → [...].
func ConeViolation(parents, children, c *Node) *Node {
	return Sub(geom.ExteriorAngle(parents, children, c), geom.HalfAperture(parents, c, geom.MinRadius))
}

// ConeLoss is HLFormer's L_pop (Eq. 20) over the positive pairs of a batch: the weighted mean of
// relu(ConeViolation(parent, child)) with the weights of NegativeSamplingLoss (rows [R, n], triples
// [B, 2+K], weights [B]: padding pairs weigh 0). It is loss.EntailmentCone's term, averaged with
// the batch's weights, which loss.EntailmentCone's plain mean over rows cannot take.
func ConeLoss(rows, triples, weights, c *Node) *Node {
	pairs := Gather(rows, InsertAxes(Slice(triples, AxisRange(), AxisRange(0, 2)), -1)) // [B, 2, n]
	child := Squeeze(Slice(pairs, AxisRange(), AxisElem(0), AxisRange()), 1)
	parent := Squeeze(Slice(pairs, AxisRange(), AxisElem(1), AxisRange()), 1)
	v := ConeViolation(parent, child, c)
	violation := Max(v, ZerosLike(v)) // [B]
	w := ConvertDType(weights, violation.DType())
	return Div(ReduceAllSum(Mul(violation, w)), ReduceAllSum(w))
}

// lossAndGradient is the training step's graph: the loss — NegativeSamplingLoss, plus
// coneWeight·ConeLoss when coneWeight > 0 (HLFormer Eq. 21's λ₂L_pop) — and its gradient with
// respect to rows. Gather's gradient adds up the contributions of a row used several times in
// the batch.
func lossAndGradient(m Manifold, curvature, coneWeight float64) func(rows, triples, weights *Node) (*Node, *Node) {
	return func(rows, triples, weights *Node) (*Node, *Node) {
		c := Scalar(rows.Graph(), rows.DType(), curvature)
		loss := NegativeSamplingLoss(m, rows, triples, weights, c)
		if coneWeight > 0 {
			loss = Add(loss, MulScalar(ConeLoss(rows, triples, weights, c), coneWeight))
		}
		return loss, Gradient(loss, rows)[0]
	}
}

// pairwiseDistance is the evaluation graph: distances from each of the query rows [Q, n] to
// every row of the table [N, n] → [Q, N].
func pairwiseDistance(m Manifold, curvature float64) func(queries, table *Node) *Node {
	return func(queries, table *Node) *Node {
		c := Scalar(queries.Graph(), queries.DType(), curvature)
		if m == Lorentz {
			return geom.PairwiseLorentzDistance(queries, table, c)
		}
		return Distance(m, InsertAxes(queries, 1), InsertAxes(table, 0), c)
	}
}

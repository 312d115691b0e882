package geom

import (
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/support/exceptions"
)

// VolumeGradFloor is our guard on the volume's square root (a deviation: GRAM's volume.py takes
// sqrt(|det|) with no eps, docs/official-code.md §1.2, whose gradient is infinite at det = 0, i.e. for perfectly
// aligned or repeated vectors). The value stays √|det| exactly; its derivative 1/(2√|det|) is
// evaluated at max(|det|, VolumeGradFloor), at most 5e5. Since d|det| itself vanishes at det = 0, the
// volume's gradient there is 0 and near it never larger than the exact one.
const VolumeGradFloor = 1e-12

// volumeFromDet is √|det| with the VolumeGradFloor guard.
func volumeFromDet(det *Node) *Node {
	return SafeSqrt(Abs(det), VolumeGradFloor)
}

// gramRows splits v [..., k, d] into its k rows [..., d].
func gramRows(where string, v *Node) []*Node {
	if v.Rank() < 2 {
		exceptions.Panicf("geom.%s: want v [..., k, d] with k ≥ 2 vectors, got shape %s", where, v.Shape())
	}
	k := v.Shape().Dim(v.Rank() - 2)
	if k < 2 {
		exceptions.Panicf("geom.%s: want k ≥ 2 vectors on axis -2, got shape %s", where, v.Shape())
	}
	rows := make([]*Node, k)
	for p := range rows {
		rows[p] = Squeeze(SliceAxis(v, v.Rank()-2, AxisElem(p)), v.Rank()-2)
	}
	return rows
}

// dot is x·y over the last axis.
func dot(x, y *Node) *Node { return ReduceSum(Mul(x, y), x.Rank()-1) }

// euclideanGram returns the upper triangle of the Gram table ⟨v_p, v_q⟩.
func euclideanGram(rows []*Node) [][]*Node {
	k := len(rows)
	g := make([][]*Node, k)
	for p := range g {
		g[p] = make([]*Node, k)
		for q := p; q < k; q++ {
			g[p][q] = dot(rows[p], rows[q])
		}
	}
	return g
}

// lorentzGram returns the upper triangle of the Lorentzian Gram table ⟨π(v_p), π(v_q)⟩_L of the lifted
// vectors π(x) = [√(1+‖x‖²), x] (c = 1, HyperGRAM): diagonal exactly −1, off-diagonal v_p·v_q − t_p t_q.
func lorentzGram(rows []*Node) [][]*Node {
	k := len(rows)
	one := scalarLike(rows[0], 1)
	times := make([]*Node, k)
	for p := range rows {
		times[p] = LorentzTime(rows[p], one)
	}
	g := make([][]*Node, k)
	for p := range g {
		g[p] = make([]*Node, k)
		g[p][p] = Neg(OnesLike(times[p]))
		for q := p + 1; q < k; q++ {
			g[p][q] = Sub(dot(rows[p], rows[q]), Mul(times[p], times[q]))
		}
	}
	return g
}

// GramVolume returns the volume of the parallelotope spanned by the k vectors of v: [..., k, d] → [...],
// √|det(V Vᵀ)| (GRAM Eq. 4–6; GRAM volume.py takes the absolute value too). k = 2 gives ‖v₀‖‖v₁‖|sin θ|.
// The vectors are used as given (GRAM normalises them before, in the model).
func GramVolume(v *Node) *Node {
	return roundTo(volumeFromDet(symmetricDet(euclideanGram(gramRows("GramVolume", computeIn(v))))), v.DType())
}

// HyperbolicGramVolume returns HyperGRAM's hyperbolic pseudo-volume of the k vectors of v:
// [..., k, d] → [...]. Each vector is lifted to the hyperboloid of curvature −1, π(x) = [√(1+‖x‖²), x],
// and V = √|det G_L| with G_L[p][q] = ⟨π(x_p), π(x_q)⟩_L (HyperGRAM summary; docs/official-code.md §2). k orthogonal unit
// vectors give G_L = I − 2J (J all ones), so V = √(2k − 1): √5 for k = 3. The vectors are lifted as given (HyperGRAM
// feeds L2-normalised embeddings, docs/official-code.md §2; normalising is the model's job).
func HyperbolicGramVolume(v *Node) *Node {
	return roundTo(volumeFromDet(symmetricDet(lorentzGram(gramRows("HyperbolicGramVolume", computeIn(v))))), v.DType())
}

// HybridVolume returns HyperGRAM's mixed volume V_α = (1−α)·V_hyp + α·V_euc of the k vectors of v:
// [..., k, d] → [...], with α a scalar node (HyperGRAM summary: α initialised at 0.5, kept in [0, 1]
// by the trainer; this function does not clip it).
func HybridVolume(alpha, v *Node) *Node {
	rows := gramRows("HybridVolume", computeIn(v))
	euc := volumeFromDet(symmetricDet(euclideanGram(rows)))
	hyp := volumeFromDet(symmetricDet(lorentzGram(rows)))
	return roundTo(mix(computeIn(alpha), hyp, euc), v.DType())
}

// mix returns (1−α)·hyp + α·euc for a scalar α.
func mix(alpha, hyp, euc *Node) *Node {
	if !alpha.Shape().IsScalar() {
		exceptions.Panicf("geom: hybrid-volume α must be a scalar node, got shape %s", alpha.Shape())
	}
	if alpha.DType() != hyp.DType() {
		alpha = ConvertDType(alpha, hyp.DType())
	}
	return Add(Mul(OneMinus(alpha), hyp), Mul(alpha, euc))
}

// volumeMatrixInputs validates VolumeMatrix-style inputs: anchor [B1, d], others each [B2, d].
func volumeMatrixInputs(where string, anchor *Node, others []*Node) {
	if len(others) == 0 {
		exceptions.Panicf("geom.%s: need at least one non-anchor modality (k = 1 + len(others) ≥ 2)", where)
	}
	if anchor.Rank() != 2 {
		exceptions.Panicf("geom.%s: anchor must be [B1, d], got shape %s", where, anchor.Shape())
	}
	d := anchor.Shape().Dim(1)
	b2 := others[0].Shape().Dim(0)
	for i, o := range others {
		if o.Rank() != 2 || o.Shape().Dim(1) != d || o.Shape().Dim(0) != b2 {
			exceptions.Panicf("geom.%s: others[%d] must be [B2=%d, d=%d] like others[0] and the anchor %s, got %s",
				where, i, b2, d, anchor.Shape(), o.Shape())
		}
		if o.DType() != anchor.DType() {
			exceptions.Panicf("geom.%s: others[%d] has dtype %s, anchor has %s", where, i, o.DType(), anchor.DType())
		}
	}
}

// computeInMatrixInputs is computeInAll of the anchor and the others.
func computeInMatrixInputs(anchor *Node, others []*Node) (*Node, []*Node) {
	wide := computeInAll(append([]*Node{anchor}, others...)...)
	return wide[0], wide[1:]
}

// volumeMatrixParts holds what the Euclidean and the hyperbolic volume matrices share: the B1×B2
// dot products anchor_i·other_p,j (one matmul per modality) and the per-sample dot products among
// the non-anchor modalities.
type volumeMatrixParts struct {
	anchor *Node
	others []*Node
	cross  []*Node   // cross[p] = anchor · othersₚᵀ, [B1, B2]
	data   [][]*Node // data[p][q] = othersₚ,ⱼ · others_q,ⱼ, [1, B2] (p ≤ q)
}

func newVolumeMatrixParts(anchor *Node, others []*Node) *volumeMatrixParts {
	m := len(others)
	parts := &volumeMatrixParts{anchor: anchor, others: others}
	parts.cross = make([]*Node, m)
	parts.data = make([][]*Node, m)
	for p := 0; p < m; p++ {
		parts.cross[p] = pairwiseDot(anchor, others[p])
		parts.data[p] = make([]*Node, m)
		for q := p; q < m; q++ {
			parts.data[p][q] = InsertAxes(dot(others[p], others[q]), 0)
		}
	}
	return parts
}

// euclideanDet returns det of the Gram matrix of (anchor_i, o1_j, ..., om_j), [B1, B2].
func (parts *volumeMatrixParts) euclideanDet() *Node {
	alpha := InsertAxes(squaredNorm(parts.anchor), 1) // [B1, 1]
	return borderedDet(alpha, parts.cross, parts.data)
}

// lorentzDet returns det of the Lorentzian Gram matrix of the lifted (anchor_i, o1_j, ..., om_j), [B1, B2].
func (parts *volumeMatrixParts) lorentzDet() *Node {
	anchor := parts.anchor
	one := scalarLike(anchor, 1)
	m := len(parts.others)
	anchorTime := InsertAxes(LorentzTime(anchor, one), 1) // [B1, 1]
	times := make([]*Node, m)
	for p, o := range parts.others {
		times[p] = InsertAxes(LorentzTime(o, one), 0) // [1, B2]
	}
	cross := make([]*Node, m)
	data := make([][]*Node, m)
	for p := 0; p < m; p++ {
		cross[p] = Sub(parts.cross[p], Mul(anchorTime, times[p]))
		data[p] = make([]*Node, m)
		data[p][p] = Neg(OnesLike(times[p]))
		for q := p + 1; q < m; q++ {
			data[p][q] = Sub(parts.data[p][q], Mul(times[p], times[q]))
		}
	}
	alpha := Neg(OnesLike(anchorTime)) // ⟨π(a), π(a)⟩_L = −1 exactly
	return borderedDet(alpha, cross, data)
}

// VolumeMatrix returns GRAM's B1×B2 volume matrix: entry (i, j) is the volume spanned by
// (anchor_i, others[0]_j, others[1]_j, ...), i.e. √|det G_ij| (GRAM Eq. 4–6, volume.py; docs/official-code.md §1.2).
// anchor [B1, d], each of others [B2, d], k = 1 + len(others) ≥ 2. The non-anchor modalities always
// come from the same sample j.
//
// The B1×B2×k×k Gram tensor is never built: det G_ij = ‖a_i‖²·det(D_j) − c_ijᵀ adj(D_j) c_ij, with
// D_j the (k−1)×(k−1) Gram of sample j's data vectors (computed once per j) and c_ij their dot
// products with anchor i (one B1×B2 matmul per modality). See doc.go.
func VolumeMatrix(anchor *Node, others ...*Node) *Node {
	volumeMatrixInputs("VolumeMatrix", anchor, others)
	return roundTo(volumeFromDet(newVolumeMatrixParts(computeInMatrixInputs(anchor, others)).euclideanDet()), anchor.DType())
}

// HyperbolicVolumeMatrix is VolumeMatrix with HyperbolicGramVolume's lifted Lorentzian Gram
// (curvature −1): entry (i, j) = √|det ⟨π(·), π(·)⟩_L| of (anchor_i, others[0]_j, ...). Same shapes and
// the same bordered-determinant evaluation (the anchor's diagonal entry is exactly −1).
func HyperbolicVolumeMatrix(anchor *Node, others ...*Node) *Node {
	volumeMatrixInputs("HyperbolicVolumeMatrix", anchor, others)
	return roundTo(volumeFromDet(newVolumeMatrixParts(computeInMatrixInputs(anchor, others)).lorentzDet()), anchor.DType())
}

// HybridVolumeMatrix returns HyperGRAM's (1−α)·HyperbolicVolumeMatrix + α·VolumeMatrix, [B1, B2],
// sharing the matmuls of the two. α is a scalar node (not clipped here).
func HybridVolumeMatrix(alpha, anchor *Node, others ...*Node) *Node {
	volumeMatrixInputs("HybridVolumeMatrix", anchor, others)
	parts := newVolumeMatrixParts(computeInMatrixInputs(anchor, others))
	return roundTo(mix(computeIn(alpha), volumeFromDet(parts.lorentzDet()), volumeFromDet(parts.euclideanDet())), anchor.DType())
}

// Package geom is the geometry core shared by the project's models (GRAM, HyperGRAM, HLFormer, GARE):
// the Lorentz model of hyperbolic space, Gramian volumes (Euclidean, hyperbolic, hybrid), entailment
// cones and the Poincaré ball. It is written once here and used everywhere else.
//
// Every function takes and returns *graph.Node (github.com/gomlx/gomlx/core/graph) and works in float32
// and float64, and in float16 and bfloat16 as storage dtypes (see Low precision). Shapes are written
// [..., n]: any leading batch axes, the vector axis last.
//
// # Conventions
//
// Hyperboloid points are stored as their space components only (MERU's convention, which HLFormer's
// lorentz.py copies byte for byte): x ∈ Rⁿ stands for the point (x₀, x) ∈ R^{n+1} with time coordinate
// x₀ = √(1/c + ‖x‖²) (LorentzTime). The curvature is −c, with c > 0 a scalar node, so it can be a learned
// variable (HLFormer learns it, clamped to [0.1, 10]); c is converted to the inputs' dtype. The
// Lorentzian inner product is ⟨x, y⟩_L = x·y − x₀y₀ (HLFormer Eq. 2), so ⟨x, x⟩_L = −1/c, and the
// geodesic distance is arcosh(−c⟨x, y⟩_L)/√c. ExpMap0/LogMap0 work in the tangent space at the origin
// (HLFormer Eq. 4–5 at o = (1/√c, 0)); the distance from the origin to ExpMap0(u) is ‖u‖.
//
// The exceptions are named for it: MinkowskiInner, ToFullCoordinates, ExpMap0Full, LogMap0Full and
// LorentzCentroid use full coordinates [x₀, x] ∈ R^{n+1} at curvature −1 (geoopt/HyboNet "k = 1"), as
// HLFormer's Lorentz attention does (onmt/lmath.py; docs/official-code.md §3.2, §3.4(b)). HyperGRAM's lift
// π(x) = [√(1+‖x‖²), x] is ToFullCoordinates at c = 1.
//
// Functions measure exactly the vectors they are given: nothing is normalised behind the caller's back.
// GRAM and HyperGRAM L2-normalise embeddings before the volume (docs/official-code.md §1.1, §2); that is the model's job.
//
// # Which source each formula follows
//
// The last column is the section of docs/official-code.md; where paper and official code differ, the
// code is the default.
//
//	LorentzTime, LorentzInner,         MERU lorentz.py pairwise_inner (HLF Eq. 1–2)          §3.4(a)
//	PairwiseLorentzInner
//	LorentzDistance, Pairwise…         MERU pairwise_dist                                     §3.4(a)
//	ExpMap0, LogMap0                   MERU exp_map0 / log_map0 (HLF Eq. 4–5)                 §3.4(a)
//	HalfAperture, ExteriorAngle        MERU half_aperture / oxy_angle (HLF Eq. 18–19, A.1)    §3.4(a)
//	GramVolume, VolumeMatrix           GRAM Eq. 4–6, utils/volume.py                          §1.2
//	HyperbolicGramVolume, …Matrix      HyperGRAM summary (lift π, √|det G_L|)                 §2
//	HybridVolume, HybridVolumeMatrix   HyperGRAM V_α = (1−α)V_hyp + αV_euc                    §2
//	ExpMap0Full, LogMap0Full,          HLF onmt/lmath.py expmap0+project, logmap0,            §3.2, §3.4(b)
//	LorentzCentroid, MinkowskiInner    lorentz.py mid_point, _inner
//	PoincareDistance, LorentzToPoincare, PoincareToLorentz   Nickel & Kiela; HLF A.1 Eq. 23
//
// # Determinants (VolumeMatrix, HyperbolicVolumeMatrix)
//
// GRAM's volume.py builds the B1×B2×k×k Gram tensor and calls torch.det (an LU factorisation per entry).
// We never build that tensor. For entry (i, j) the Gram matrix of (a_i, d_1j, …, d_{k−1,j}) is the
// bordered matrix
//
//	G_ij = [ α_i    c_ijᵀ ]    α_i = ⟨a_i, a_i⟩ (depends on i only),
//	       [ c_ij   D_j   ]    c_ij[p] = ⟨a_i, d_pj⟩ (one B1×B2 matmul per data modality),
//	                           D_j = Gram of sample j's data vectors, (k−1)×(k−1) (depends on j only),
//
// and det G_ij = α_i·det(D_j) − c_ijᵀ adj(D_j) c_ij, an exact polynomial identity (the Schur complement
// written with the adjugate instead of the inverse, so it holds for singular D_j too: aligned or repeated
// modalities are the normal case at the end of training). det(D_j) and adj(D_j) are computed once per j
// on [1, B2]-shaped nodes; the B1×B2 work is the quadratic form, k(k−1)/2 products, plus the k−1 matmuls.
// Memory is O(k·B1·B2) instead of O(k²·B1·B2), and there is no pivoting or division, so values and
// gradients are smooth polynomials everywhere (LU-based det backpropagates through the inverse, which
// does not exist at det = 0). Small determinants use closed forms (k ≤ 3); larger ones a cofactor
// (Laplace) expansion with memoised minors, O(k·2ᵏ) products: k ≤ 6 is cheap, k = 20 would not be. The hyperbolic
// volume uses the same identity on the Lorentzian Gram matrix of the lifted vectors, whose diagonal is
// exactly −1 (used as a constant) and whose cross terms are a·dᵀ − t_a t_dᵀ from the same matmuls, so
// HybridVolumeMatrix shares them. GramVolume and HyperbolicGramVolume (one Gram matrix per batch entry)
// use the same symmetric determinant code on the k(k+1)/2 pairwise dot products.
//
// Float32: the determinant is computed in the inputs' dtype (GRAM casts to float32 too). Near-singular
// entries lose absolute accuracy of order eps·scale, as with LU; a zero volume comes out as √(rounding):
// for unit vectors in d = 512, up to 5e-4 (Euclidean) and 1.4e-3 (hyperbolic) in float32, versus
// typical volumes of 1 and 2.2. A Gram determinant of k vectors of norm r is of order r^{2k}:
// in float32 it overflows (3.4e38) when r^{2k} does, e.g. k = 5 at r = 1e4; unit vectors are far from it.
//
// # Numerics: clamps, eps, and where we deviate
//
// Each constant is declared with its source. From the official code: MERUEps (1e-8: norm clamps,
// ±(1−1e-8) for asin/acos, the denominators of HalfAperture and ExteriorAngle), ExpMapMaxSinhArg
// (asinh 2¹⁵), MinRadius (K = 0.1), AcoshGradFloor (1e-9, onmt's acosh), CoshSinhMaxArg (85, onmt),
// ExpMapMaxNorm (10, onmt EXP_MAX_NORM), MinkowskiNormFloor (1e-9, onmt _norm), CentroidFloor (1e-8,
// onmt mid_point), PoincareBoundaryEps (1e-5, poincare-embeddings).
//
// GoMLX has no acosh, asinh, cosh, sinh, acos or asin, and no gradient for Expm1, Atan2 or Clamp; the
// exported Acosh, Asinh, Cosh, Sinh, Acos and Asin are composed from stable forms (log1p near the zeros,
// log(2x) for large arguments, Expm1 for sinh, atan2 for acos/asin) and carry their analytic derivative
// by a straight-through construction (value computed without gradient, slope attached), with the slope
// capped where it is infinite. So first derivatives are exact and finite; second derivatives through
// these functions are not available (nothing in the project needs them).
//
// Deviations, each guarding a place where the official code's gradient or value is infinite or wrong:
//
//   - VolumeGradFloor: GRAM takes √|det| with no eps, whose gradient is infinite at det = 0 (perfect
//     alignment). The value stays √|det| exactly; the square root's slope is evaluated at
//     max(|det|, 1e-12). Since ∂det vanishes at det = 0 too, the gradient there is 0.
//   - Acosh clamps its argument at 1, not MERU's 1 + 1e-8. The two agree in float32 (1 + 1e-8 rounds
//     to 1), the precision MERU and HLFormer run in; in float64 MERU's clamp puts a floor of
//     1.4e-4/√c under every distance. The infinite slope at 1 is capped by AcoshGradFloor instead.
//   - LogMap0 computes asinh(√c‖x‖)/(√c‖x‖)·x, equal to MERU's arcosh(√c·x₀)/(√c‖x‖)·x on the hyperboloid;
//     MERU's form with its acosh clamp returns vectors of norm ≈ 1.4e-4/√c for every ‖x‖ below that in
//     float64, and LogMap0∘ExpMap0 = id would fail there.
//   - EuclideanNorm (used for every ‖x‖) has gradient 0 at x = 0 (as torch's norm), not NaN.
//   - LogMap0Full guards onmt's unguarded √(y₀² − 1): the all-zero input and the origin map to 0.
//   - Cosh/Sinh/Acos/Asin clamps pass gradient 0 outside the clamp (torch.clamp's behaviour);
//     onmt's LeakyClamp passes 1e-8 of it.
//
// Float32 limits of the Lorentz formulas themselves (same as the official code): x·y − x₀y₀ cancels
// when ‖x‖‖y‖ ≫ 1/c, so at norms beyond ~1e3 float32 distances between nearby points are coarse (and
// ExteriorAngle's gradient, ≈ 1e-5 at hyperbolic radius 6 and 1e-7 at 8, is 2 % resp. 100 % off), and
// ExpMap0 saturates at √c‖u‖ = asinh(2¹⁵) ≈ 11.09. No value or gradient is NaN or Inf for norms 1e-6 … 1e4
// and c ∈ [0.1, 10] (fuzz_test.go checks this on adversarial inputs, in float64, float32 and bfloat16).
//
// # Low precision
//
// Float16 and bfloat16 are storage dtypes: every exported function converts such inputs to float32,
// computes there, and rounds its result to the input's dtype; the gradient is computed in float32 and
// rounded the same way (precision.go). MERU runs its Lorentz functions in float32 under autocast and
// GRAM casts the Gram tensor to float32 before det (docs/official-code.md §1.2, §3.4(a)). Computing in the small dtype
// instead breaks the formulas, not the geometry: in float16 MERUEps, AcoshGradFloor and the
// large-argument switch of Acosh round to 0 or +Inf, 1 − PoincareBoundaryEps rounds to 1, and (x−1)(x+1)
// in Acosh overflows from x = 256 — so Acosh returned NaN at 1 and +Inf beyond 255. float32 and float64
// graphs are untouched (bit for bit: the helpers return their argument).
//
// What remains is the dtype's own range and resolution. Measured (lowprecision_test.go, against float64
// at the rounded inputs): values and gradients of Acosh, Asinh, Sinh, Cosh, Acos, Asin, SafeSqrt and of
// the Lorentz and Poincaré distances are within one rounding of the result, ≤ 5e-4 relative in float16
// and ≤ 4e-3 in bfloat16 (Acosh and Asinh slopes in float16: ≤ 1.6e-3, subnormal below 6e-5). Acosh's
// slope at 1 is 1/√AcoshGradFloor rounded (31616 in both). Two per-dtype guards keep float16 results
// finite: CoshSinhMaxArgFloat16 (cosh, sinh ≤ 3e4) and Float16SqrtSlopeFloor. bfloat16 has float32's
// range, and every value and gradient is finite wherever float32's is. In float16 a result or gradient
// whose true magnitude exceeds 65504 still rounds to ±Inf — e.g. LorentzInner of points with
// ‖x‖‖y‖ > 65504, volumes of long vectors, ExpMap0 at c < 0.25 (its saturated output 2¹⁵/√c),
// PoincareToLorentz near the boundary, ExteriorAngle's gradient near the origin, a curvature gradient
// summed over a large batch; fuzz_test.go lists them. The distances themselves (≤ 90/√c) and the angles
// never overflow.
package geom

// Package parity checks that every model of geoalign computes the same numbers on GoMLX's pure-Go
// backend and on XLA's CPU plugin (issue 29, "Same model, same numbers"). It holds tests only.
//
// # What each test does
//
// Every test creates both backends itself (backend.NewNamed "go" and "xla:<repo>/build/pjrt/
// pjrt_c_api_cpu_plugin.so", whatever GOMLX_BACKEND says) and skips, saying "run make setup", when
// the plugin is missing. For GRAM, HyperGRAM (gram.HyperGRAMConfig: the hybrid volume with the
// learned α), GARE, HLFormer and the WordNet hierarchy (Lorentz, Lorentz with HLFormer's cone term,
// Poincaré, Euclidean), on a tiny model and batch:
//
//  1. one forward and backward pass on fixed inputs from the same initial weights: the loss and the
//     gradient of every trainable variable (the hierarchy: of the embedding rows);
//  2. three optimizer steps of the model's own recipe: the loss of each step and every trainable
//     weight after it. GRAM and the hierarchy run their trainers (gram.Trainer, hierarchy.Trainer;
//     one batch per epoch, so RunEpoch is one step), GARE its Model.NewStep (single-graph step),
//     HLFormer hlformer.NewStep with the BertAdam that hlformer.NewTrainer builds (single-graph
//     step; the chunked step's agreement with it is lib/models/hlformer's own test, which make
//     test-xla also runs on XLA). Every recipe's warm-up schedule gives learning rate 0 at the first
//     step: its weights do not move (both backends agree on that exactly), the next two steps do.
//
// Dtypes: HLFormer and the hierarchy are tested in float32 and float64. GRAM, HyperGRAM and GARE
// are float32-only (their trainers feed float32 features and create float32 variables).
//
// # What cannot be compared, and how the tests avoid it
//
// GoMLX draws random bits with the backend's RNGBitGenerator, which is PCG on the pure-Go backend
// (compute's gobackend) and Philox on XLA (go-xla's stablehlo.RNGBitGenerator): the same seed gives
// other numbers, by design. So:
//
//   - GRAM's and HLFormer's initial weights (GoMLX initializers) differ: the tests let the Go
//     backend initialise them and copy every variable into the XLA store (copyStore). GARE and the
//     hierarchy draw their initial weights on the host (math/rand/v2): both start equal without a
//     copy, which the tests check.
//   - Dropout (HLFormer, GARE's ψ) is off; GRAM's DAM term, whose hard negatives are sampled, is off;
//     HLFormer's triplet negatives use the hard-negative switch with a pool of 1 (the highest-scoring
//     negative, no draw), since the random negatives and the code's pool of 20 are drawn.
//   - The hierarchy's initial points are uniform in (−0.3, 0.3), not the papers' (−0.001, 0.001).
//     At 1e-3 the Lorentz distance of two nearly equal points is arcosh(1 + δ) with δ ≈ ‖x − y‖²
//     ~ 1e-6: −c⟨x, y⟩_L = 1 + δ loses log₁₀(1/δ) ≈ 6 digits to cancellation on any backend
//     (lib/geom computes float32 inputs in float64, so both dtypes meet float64's limit), and the
//     gradient, ∝ 1/√δ, amplifies it. Measured there with float64 (same test, InitRange 1e-3):
//     loss 4.7e-12 and gradients 3.4e-10 relative, the conditioning 1e6·ε ≈ 2e-10, not a
//     backend discrepancy; Poincaré, Euclidean and every float32 case stay within the tolerances.
//
// # Tolerances and why
//
// A loss is compared relatively, |a − b|/|a|. A gradient tensor is compared normwise,
// max|Δg|/max|g|: an element whose exact value is 0 (or cancels) carries only rounding noise, which
// is relative to the tensor's scale, not its own. Gradients that are exactly 0 in exact arithmetic
// exist here — an attention key bias (softmax is invariant to adding q·b to every logit), MAIM's and
// GARE's biases before a softmax over branches — and are pure rounding residue of larger terms
// (measured 1e-11 of the largest gradient element in float32): a tensor is compared on
// max(max|g|, GradFloor × the largest |g| of the model), GradFloor = 1e-3.
//
// Weights after the steps are compared per tensor on the scale of the largest move of one of its
// elements from the initial value (Go run): Adam's update m/(√v + ε) is about the learning rate for
// every element whatever its gradient's size, so the move, not the weight, is the scale of what the
// steps computed. A tensor whose elements barely moved (the exact-zero gradients above: Adam turns
// their noise into moves of random sign and size ≤ lr·|g|/ε) is compared on WeightFloor = 0.1 of the
// largest move of the model. On top, each step may round the stored weight differently: a slack of
// one unit in the last place (ε_dtype × max|w|) per step, as the stored weights are much larger than
// their moves (HLFormer's Lorentz time scale: 2.3 + a move of 6e-5, so one float32 ulp is 4e-3 of
// the move).
//
//   - float32 (ε = 1.2e-7): loss 1e-5, gradients 1e-4, weights 1e-2 of the move. The two backends
//     sum in different orders (XLA vectorises and fuses reductions, may contract a·b + c into FMAs)
//     and evaluate exp, log, tanh, erf with other polynomial approximations: each op differs by a
//     few ulp, a reduction of n terms by about √n·ε relative, and a loss is a chain of ~10–30 such
//     ops over ≤ 10³ terms: ≲ 10·30·ε ≈ 4e-5 in the worst case, measured ≤ 3.5e-7. The backward
//     pass runs the chain twice and divides by LayerNorm's and softmax's normalisers, so its
//     relative error is the loss's times the conditioning of those ops: 1e-4 (measured ≤ 1.9e-5,
//     HLFormer's Lorentz branch). Adam's update is then accurate to the gradient's element-wise
//     relative error, larger than the normwise one for small elements: 1e-2 of the move (measured
//     ≤ 1.4e-3 beyond the ulp slack).
//   - float64 (ε = 2.2e-16): the same arguments with float64's ε: loss 1e-12, gradients 1e-10,
//     weights 1e-8 of the move (measured below: ≤ 5.4e-16, ≤ 1.4e-14, ≤ 2.6e-12).
//
// # Measured (go test ./lib/parity/ -v; every test logs its maximum differences)
//
// Every test logs (t.Logf) the largest absolute difference and the largest relative one on the
// scales above, per pass and step. The largest relative differences of the run that added this
// package (loss: forward pass, then the worst of the 3 steps; weights: the worst step, beyond the
// ulp slack):
//
//	model / dtype                    loss      step loss  gradients  weights
//	GRAM float32                     2.5e-7    3.3e-7     1.3e-6     2.0e-5
//	HyperGRAM float32                3.4e-7    3.5e-7     2.8e-6     0 (|Δw| ≤ 4.5e-8)
//	GARE float32                     7.0e-8    7.0e-8     1.3e-6     5.8e-5
//	HLFormer float32                 8.5e-8    1.0e-7     1.9e-5     1.4e-3
//	HLFormer float64                 1.4e-16   1.8e-16    1.4e-14    2.6e-12
//	hierarchy float32 (4 variants)   0         1.6e-7     7.3e-7     9.9e-7
//	hierarchy float64 (4 variants)   4.3e-16   5.4e-16    8.7e-16    0 (|Δw| ≤ 2.2e-16)
//
// # A discrepancy found and fixed
//
// GoMLX's activation.Relu has no single derivative at 0: the pure-Go backend runs it as a fused op
// whose gradient at x = 0 is 0, XLA as the decomposed Max(x, 0), whose gradient takes the tie (1).
// HLFormer meets exact zeros: a padded frame (all-zero features) gives LayerNorm(0)·W + b = 0 before
// the first update, so HLFormer's float64 gradients of the frame input projection differed by 5e-8
// relative (found by bisecting the encoder: the Lorentz block's input projection at padded rows).
// lib/models/hlformer now uses torchRelu (Where(x > 0, x, 0): ReLU'(0) = 0 on both backends, as
// torch's threshold_backward), which changes nothing on the Go backend.
package parity

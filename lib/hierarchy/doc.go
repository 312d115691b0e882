// Package hierarchy learns embeddings of a transitive closure (an is-a hierarchy such as the
// WordNet noun or mammal closure of lib/data/wordnet) in hyperbolic space and evaluates them by
// reconstruction, reproducing
//
//   - Nickel & Kiela 2017, "Poincaré Embeddings for Learning Hierarchical Representations"
//     (NeurIPS): the Poincaré ball, Riemannian SGD with the (1 − ‖θ‖²)²/4 rescaling of the
//     Euclidean gradient and the projection back into the ball (§3 "Optimization");
//   - Nickel & Kiela 2018, "Learning Continuous Hierarchies in the Lorentz Model of Hyperbolic
//     Geometry" (ICML): the hyperboloid, Riemannian SGD with the Minkowski gradient
//     h = g_ℓ⁻¹∇f, its projection onto the tangent space and the exponential map (Algorithm 1);
//   - a Euclidean baseline with plain SGD;
//
// all with the papers' negative-sampling softmax loss and burn-in (2017 §4, the WordNet
// experiments), and their reconstruction metrics, mean rank and mean average precision over all
// edges. Equation numbers are not cited because the papers' published numbering could not be
// checked here; sections and the official code are.
//
// # Where the work happens
//
// The loss is a GoMLX graph over the batch's rows: the touched rows of the embedding table are
// fed in, the graph gathers the (child, parent, negatives) triples from them with Gather,
// computes distances with lib/geom (LorentzDistance, PoincareDistance) and returns the loss and its
// gradient with respect to the fed rows. Gather's gradient sums the contributions of a row that
// occurs several times in the batch, which is exactly PyTorch's coalesced sparse gradient in the
// official code.
//
// The Riemannian update itself runs host-side in float64 Go on those touched rows only
// (riemannian.go). Reasons: the Lorentz update of Algorithm 1 works in full (d+1) coordinates —
// time included — while lib/geom's API is space-only; float64 keeps ⟨x, x⟩_L = −1/c to 1e-12
// relative even at norms where float32 cannot (the point of this package); and touching
// B·(2+K) rows per step on the host costs microseconds, far less than moving the table in and out
// of a graph. The master copy of the table is therefore float64; the loss graph runs in
// Config.DType (float32 or float64).
//
// # Training (train.go)
//
// Trainer runs on lib/train's loop, the one every model of the project uses: the plan of an epoch
// is a permutation of the closure's edges drawn from the loop's data-order generator (seeded by
// Config.Seed), each step samples the negatives from the trainer's own generator (which also drew
// the initial points), computes the loss graph and applies the host-side update; a record per
// epoch (EpochStats), the NaN guard, and with Trainer.Open a run directory with a checkpoint every
// epoch (the table in the store variable EmbeddingVar, the sampler's state as the loop's host
// state) from which an interrupted run continues bit for bit. There is no validation split: the
// task is reconstruction of the training closure itself (2017 §4), so nothing is selected — the
// result is the last epoch's table.
//
// # The model contract (run.go)
//
// Run is the hierarchy as a lib/models.Run, the contract every model of the project trains through
// (NewRun; lib/runner.Train makes its run directory as `geoalign train` does, config.json holding
// Run.Identity): Train is the Trainer's loop above, and its evaluation is the model's own metric —
// Score, carried by models.Evaluation.Metrics: the reconstruction of the training closure, and for
// a held-out split (RunEval) the full closure's reconstruction and the held-out pairs inside their
// parent's entailment cone. Nothing outside this package calls NewTrainer (lib/hierarchy/wordnetbench
// and `geoalign wordnet` train through Run).
//
// # Entailment cones (entailment.go)
//
// For issue 19's test of HLFormer's partial-order-preservation loss (ICCV 2025, Eq. 18–21),
// Config.ConeWeight adds λ·L_pop over the batch's (child, parent) pairs to the Lorentz loss, the
// parent as the cone's apex (ConeLoss, ConeViolation: lib/geom's ExteriorAngle and HalfAperture);
// EvaluateEntailment measures the pairs inside their parent's cone, HoldOut splits a closure for
// transitive-closure completion (every direct link kept, a fraction of the implied pairs held out;
// Ganea et al. 2018 §5), and RandomMAP is the reconstruction MAP of a random ranking.
//
// # Official code
//
// Where the papers leave a detail open, the package follows facebookresearch/poincare-embeddings
// (commit b1364a1, files named in the comments): the negative sampler (rejecting true parents, at
// most 10·K tries, degree^0.75 sampling during burn-in), the step-size cap of the Lorentz
// exponential map, the norm cap of the Poincaré Riemannian gradient and the reconstruction
// metrics of hype/graph.py.
package hierarchy

// Package hlformer is HLFormer (Li et al., "Enhancing Partially Relevant Video Retrieval with Hyperbolic
// Learning", ICCV 2025) in GoMLX, following the official code
// (lijun2005/ICCV25-HLFormer) as docs/official-code.md §3 describes it; where the
// paper says something else, the paper's form is an option.
//
// # Model (model.go, block.go, euclidean.go, lorentz.go)
//
//   - Query branch (Eq. 7): LinearLayer (LN → dropout → linear → ReLU) → positional embedding → one
//     Euclidean attention block → attention pooling → q ∈ R^d (EncodeQuery).
//   - Glance (32 clips) and gaze (≤ 128 frames) branches (§3.2): LinearLayer → positional embedding →
//     HLFormerBlock (EncodeClips, EncodeFrames; padded frames zeroed).
//   - HLFormerBlock (§3.3, Fig. 2b): N_E EuclideanBlock and N_L LorentzBlock branches in parallel (widths
//     None/2/4/8 each by default), fused by MAIM (Eq. 17; branch softmax with temperature τ) or, for the
//     Table 2 ablations, mean pooling or concatenation + linear. Model.Trace receives each block's
//     BlockTrace (branch outputs, every branch's attention weights, MAIM's branch weights) for figures.
//   - EuclideanAttention (Eq. 10): logits QKᵀ/√d_h multiplied by the Gaussian mask GaussianMask (the code's
//     normalised-position mask, σ = max(width, 0.01)/9, row-max normalised; MaskPaper = Eq. 10's).
//   - Lorentz attention block (Eq. 11–16): LinearLayer(d → n) scaled by exp(α) (α ≤ 0), a zero time
//     coordinate prepended, geom.ExpMap0Full onto L^n (k = 1), HyboNet's LorentzLinear per head (sigmoid
//     time), logits (2 + 2⟨q, k⟩_L)/s + b times the Gaussian mask (LogitsPaper: −d²_L/√(n+1)), softmax,
//     geom.LorentzCentroid per head, geom.LogMap0Full, time dropped, divided by exp(α), LinearLayer(n → d),
//     in the residual/LayerNorm/FFN wrapper. LorentzTrace exposes the points for tests and figures.
//   - Scores (Eq. 8–9): S_c, S_f = max over time of cosine similarities (MaxOverTimeScores), S = 0.7 S_c +
//     0.3 S_f (Similarity).
//   - POP branch (§3.4): PooledVideo (frame and clip attention pooling averaged) and the second query
//     encoding, scaled by exp(α) and mapped by MERU's geom.ExpMap0 with a learned curvature clamped to
//     [0.1, 10] (Hyperbolic).
//   - MSSLEncoder: our MS-SL-like baseline (plain Transformer block, multi-scale sliding windows).
//
// Learnable scalars the code clamps in place before each forward pass (the α's, the curvature) are
// clamped the same way (clampedScalar): the optimizer steps from the clamped value.
//
// # Training and evaluation (loss.go, step.go, train.go, eval.go, data.go)
//
// Model.Loss wires lib/loss's MultiPositiveNCE, TripletRanking (hard negatives behind a graph switch),
// QueryDiversity and EntailmentCone with the Charades weights (CharadesLoss, docs/official-code.md §3.3). Trainer (and
// Train) runs lib/train's BertAdam (no bias correction, per-tensor clipping, warmup_linear 1 %) over PRVR
// batches of 128 videos with all their captions (Batching, NewTask) on lib/train's loop, which
// evaluates the validation split after every epoch with lib/retrieval (R@1/5/10/100, SumR, MdR, MnR;
// Evaluator), keeps the best epoch, stops early, checkpoints atomically and resumes exactly. Data come
// as lib/data/prvr splits (the official per-video processing).
//
// Its step (NewStep) is by default chunked: the video encoders run a block of DefaultVideoChunk videos
// at a time, forward once without gradients, then the loss and its gradient with respect to the encoded
// clips and frames (Model.LossOfEncoded), then each block forward again and back-propagated — the exact
// gradient of the batch objective with one block's activations alive instead of the batch's (a
// paper-sized step at 128 videos: 5.1 GB instead of ≈ 22 GB, for ≈ 15 % more time).
// TrainConfig.VideoChunk = SingleGraphStep selects the single graph, which every committed result
// used (Scale.Training keeps it).
//
// # Experiments
//
// The benchmarks, variants, scales, tables and figures built on this model live in
// lib/studies/hlformerstudy; this package holds the model, its loss wiring, training step and scoring
// only. POPDistances (the distances of clip, frame and query embeddings from the origin of the POP
// space, HLFormer Fig. 5) is here because it inspects a trained model.
//
// # Configurations
//
// PaperConfig is the official Charades-STA model (d = 384, n = 127, 4 heads); CPUConfig is the same
// architecture at d = 64, n = 31, the size we train on the 2-core CPU (see its doc and the notebook).
//
// # Deviations from the official code (each named where it is defined)
//
//   - GaussianMask evaluates the row-max ratio in the exponent (finite where the code's density underflows).
//   - LorentzLinear maps a head with ‖y_s‖² < LorentzSpaceNormFloor to the origin (the code: NaN) and
//     computes the space part as a unit direction times √(t² − 1) (bounded float32 gradients).
//   - geom.LogMap0Full guards the all-zero input (the code: NaN).
//   - Training batches round their query count down to a multiple of 32 (TrainConfig.QueryBucket), and
//     without TrainConfig.PartialBatch drop the last incomplete batch (the code trains it: drop_last=False),
//     so that the compiled step keeps a few fixed shapes (Batching).
package hlformer

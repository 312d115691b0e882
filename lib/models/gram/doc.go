// Package gram trains and evaluates GRAM (ICLR 2025) and HyperGRAM (CVPR 2026) models, and the
// pairwise-cosine baseline they replace, on multimodal feature sets (real tri-modal sets and
// synthetic benchmarks), as the official GRAM code does (docs/official-code.md §1–§2;
// HyperGRAM has no public code, so its unknowns follow the docs/official-code.md §2 recommendations).
//
// # Model (model.go)
//
// Every modality m has a small MLP encoder on its given features (Encode: EncoderLayers ×
// [Dense(Hidden) + GELU]) and GRAM's contra head, a bias-free linear map to ContraDim followed by L2
// normalisation (docs/official-code.md §1.1; the normalisation is Unit, applied inside the scores). Modality 0 is the
// anchor (text). The scalars are raw variables: τ (TemperaturePath, init 0.07, divides the volume,
// never clamped: docs/official-code.md §1.3) and, for HyperGRAM, α (AlphaPath, init 0.5, projected to [0, 1] after
// every optimizer step by ProjectAlpha: docs/official-code.md §2).
//
// VolumeFunc picks the volume from lib/geom: Euclidean (GRAM, geom.VolumeMatrix of the unit
// vectors), Hyperbolic (geom.HyperbolicVolumeMatrix of π(normalize(x)), or of π(raw x) with
// Config.RawLift) and Hybrid (HyperGRAM's V_α = (1−α)V_hyp + αV_euc, geom.HybridVolumeMatrix).
//
// TrainingLoss assembles the objective from lib/loss: the volume-contrastive loss with the code's
// one-sided gradients (VolumeContrastiveOneSided) or the paper's two-sided form (VolumeContrastive),
// label smoothing 0.1 (code) or 0 (paper), single directions for GRAM's Table 6 ablation
// (DiagonalCrossEntropy), the pairwise-cosine InfoNCE baseline (PairwiseCosineInfoNCE[OneSided],
// anchor = text), and DAM: hard negatives drawn in the graph ∝ softmax(−V/τ) + 1e-4
// (SampleDAMNegatives) and scored by a matching head (MatchingCrossEntropy, weight 0.1).
//
// The matching head replaces GRAM's BERT cross-encoder (text tokens attending to all vision and
// audio tokens, docs/official-code.md §1.4): only pooled features exist here, so it is an MLP over the concatenated
// encoder outputs and the anchor's elementwise products with each data modality, ending like the
// ITM head (Dense → GELU → LayerNorm(1e-12) → Dense(2)). Retrieval ranks by −volume only; the ITM
// re-ranking of the official evaluation is not reproduced.
//
// # Training (train.go)
//
// Trainer runs train.AdamW (the GRAM code's AdamW: β 0.9/0.98, weight decay 0.01 except biases,
// norms and α, warmup_linear 10 %) through a compiled train.Step, one shape per run (the last
// partial batch of an epoch is dropped), on lib/train's loop: batches follow a permutation drawn
// from the loop's seeded generator; every epoch is a record (EpochStats: the loss terms, τ, α after
// every step, the validation, an optional test-split curve); with Config.CheckpointDir every epoch
// is checkpointed atomically (weights, optimizer moments, step counters, the DAM sampler's random
// state, the loop's position and history) and a new Trainer on that directory resumes exactly,
// even after a kill.
//
// Model selection (a deviation: GRAM's code has no validation split and reports its last
// checkpoint): the Dataset's Val split, or Config.ValFraction (10 %) of the train split carved out
// by a fixed permutation (CarveValidation), is evaluated after every epoch with the model's own
// score; the epoch of the best T→V+A SumR (retrieval.ValMetric) is the model Train leaves in the store (and
// in best/ of the checkpoint directory), and Config.Patience stops training early. The test split
// is only evaluated — as the final result, or as a learning curve with Config.EvalEvery — never
// selected on.
//
// # Evaluation (eval.go, gap.go)
//
// The GRAM protocol (docs/official-code.md §1.6): one anchor per data tuple, a square score matrix, −volume as the
// score (no temperature), both directions, ranked by lib/retrieval (R@1/5/10, MdR with
// torch.median's lower median, MnR). Embeddings holds a split's contra-head outputs; ScoreMatrix
// scores them with any Score (−V of a geometry, mean pairwise cosine, a single cosine); Evaluate and
// EvaluateScores rank. With class-level relevance (e.g. FSDD spoken digits, where every "seven" tuple
// answers the word "seven") a hit is the best-scoring item of the query's class and the other items
// of that class are left out of its rank. MatchedVolumes gives the Euclidean and hyperbolic volumes
// of each sample's own tuple (HyperGRAM's volume statistics; GRAM's alignment score of Fig. 3) and
// MeasureModalityGap GRAM Table 7's intra-modality cosines and centroid distances.
package gram

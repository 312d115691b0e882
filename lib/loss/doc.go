// Package loss holds the training losses of GRAM (ICLR 2025), HyperGRAM (CVPR 2026), GARE (NeurIPS 2025)
// and HLFormer (ICCV 2025) as GoMLX graph functions over *graph.Node, for float32 and float64.
//
// Each loss computes what the paper's official code computes (docs/official-code.md, cited by
// section below); where the paper says something else, the paper's form is a sibling function or an option, named
// here. Results must say which one they used. Shapes are checked while the graph is built: a wrong input
// panics with the function and argument named.
//
// # Contrastive core (infonce.go)
//
//   - DiagonalCrossEntropy(logits, ε): mean_i CE(softmax(logits_i), i) with PyTorch's label smoothing
//     q = (1−ε)·onehot + ε/K (docs/official-code.md §1.3).
//   - DirectionalCrossEntropy(anchorToData, dataToAnchor, ε) = ½[CE_rows(first) + CE_rows(secondᵀ)]: the
//     building block of the one-sided-gradient variants. SymmetricCrossEntropy(L, ε) is it with L twice.
//   - InfoNCE(sim, τ, ε) = SymmetricCrossEntropy(sim/τ, ε); CosineSimilarityMatrix(a, b).
//   - PairwiseCosineInfoNCE(anchor, others, τ, ε): GRAM's pairwise-cosine baseline (GRAM Table 6 "TV, TA";
//     the code's `tv`/`ta` tasks): mean over modalities of InfoNCE(cos(text, m)). PairwiseCosineInfoNCEOneSided
//     has the code's stop-gradients (docs/official-code.md §1.3).
//
// # GRAM and HyperGRAM (gram.go)
//
//   - VolumeContrastive(vol, τ, ε) — GRAM Eq. 5–6 as in the code (docs/official-code.md §1.3): ½[CE(−V/τ) + CE(−Vᵀ/τ)], the
//     volume divided by GRAM's raw learnable τ (GRAMInitialTemperature 0.07), label smoothing
//     GRAMLabelSmoothing = 0.1. Paper form: ε = 0. HyperGRAM (docs/official-code.md §2) is the same loss on V_hyp or
//     V_α = (1−α)V_hyp + αV_euc (α learnable, projected to [0, 1] by the caller); whether HyperGRAM divides
//     by τ and smooths labels is not known (no public code): pass τ = 1 and ε = 0 for the summary's exp(−V_α).
//   - VolumeContrastiveOneSided(volumeFn, τ, ε, anchor, others...) — the code's gradient flow (docs/official-code.md §1.3):
//     ½[CE(−V(t, sg(v), sg(a))/τ) + CE(−V(sg(t), v, a)ᵀ/τ)]; same value as VolumeContrastive. volumeFn is
//     geom.VolumeMatrix, geom.HyperbolicVolumeMatrix or a hybrid closure. The paper's form (no
//     stop-gradients) is VolumeContrastive.
//   - DAMNegativeWeights(vol, τ) — DAM hard-negative weights softmax(−V/τ) + 1e-4 with the positive zeroed,
//     no gradient (docs/official-code.md §1.4; HyperGRAM's p_hard ∝ exp(−V_α)). SampleCategorical(rng, w) draws from them
//     inside the graph with the Gumbel-max trick (the code's torch.multinomial); SampleDAMNegatives
//     combines both. For negative texts per data tuple pass Vᵀ.
//   - MatchingCrossEntropy(logits [N, 2], matched) — the DAM matching loss, a 2-class softmax CE as in the
//     code (docs/official-code.md §1.4); GRAM Eq. 7's binary CE on p_dam is the same number. Weight DAMWeight = 0.1 (Eq. 8).
//
// # GARE (gare.go); Δ is [A texts, B videos, D]
//
//   - ScaledInfoNCE(sim, scale) — L_info, Eq. 9 (docs/official-code.md §4.3): ½[CE_rows(100·S) + CE_rows(100·Sᵀ)]
//     (GARELogitScale = 100, i.e. τ = 0.01), no label smoothing.
//   - IBRelax(Δ) — L_IB^relax, Eq. 15 as in the code (docs/official-code.md §4.3): per video, Gaussian over the text axis
//     with the unbiased std + 1e-6, KL to N(0, I) summed over the D dims, mean over videos; weight
//     GAREBetaCode = 1e-4. Options (IBRelaxWith): IBAnchorText (Appendix C.4, Table 9 "t") and
//     PerDimension (the mean-over-d convention of the paper's β = 0.07, GAREBetaPaper).
//   - NormVariance(Δ, λ) — L_ε, Eq. 10 as in the code (docs/official-code.md §4.3): −mean_i var_j ‖Δ_ij‖, replaced by 0 once
//     below −λ (hard cut-off, λ = GARENormLowerBound 0.5). Paper form: NormVarianceClamped = max(·, −λ).
//   - DirectionalDiversity(Δ, α) — L_dir, Eq. 11 as in the code (docs/official-code.md §4.3): mean_i log(mean_{j,k}
//     exp(−α(1 − ⟨z_ij, z_ik⟩)) + 1e-8), j = k included, α = GAREAlpha 2. Variants:
//     DirectionalDiversityOffDiagonal (j ≠ k, docs/official-code.md §4.6 item 5) and DirectionalOrthogonality (the
//     strict-orthogonality L_orth of Appendix C.2).
//   - GARETotal(sim, scale, Δ, cfg) — Eq. 28: L_info + β L_IB + λ_ε L_ε + λ_dir L_dir.
//     DefaultGAREConfig is the code (β 1e-4, λ_ε = λ_dir = 0.01, α = 2, λ = 0.5); PaperGAREConfig is
//     β = 0.07 per dimension, the clamped L_ε and L_dir over j ≠ k.
//
// # HLFormer (hlformer.go); a batch has V videos and Q queries, labels [Q] = video of each query
//
//   - MultiPositiveNCE(scores, labels) — L^nce as in the code (clip_nce, docs/official-code.md §3.3), on raw dot products
//     without temperature: mean_q(lse_v s − s_pos) + mean_v(lse_q s[:, v] − lse_{q ∈ captions(v)} s[q, v]).
//     The paper's Eq. 30 (ratios of S without exp) is not implemented: it is not what was trained.
//   - TripletRanking(rng, scores, labels, opts) — L^trip, Eq. 29 as in the code (get_clip_triplet_loss):
//     t2v positive = own video, v2t positive = mean over the video's captions; negatives random, or, with
//     opts.HardNegatives (the code turns it on at HLFormerHardNegativeStartEpoch = 20: the caller's switch),
//     t2v uniform among the HLFormerHardPoolSize = 20 hardest and v2t the single hardest.
//     SampleTripletNegatives draws the negatives in the graph; TripletRankingWithNegatives scores given ones.
//   - QueryDiversity(queries, labels, δ, α, λ) — L_div as in the code (docs/official-code.md §3.3): (1/Q) Σ_{i≠j, same video}
//     (1 + cos)^λ log(1 + e^{α(cos+δ)}). Paper form (Eq. 32: no focal factor, i = j included):
//     QueryDiversityPaper; QueryDiversityWith sets each switch.
//   - EntailmentCone(apex, x, c, K) — L_pop, Eq. 18–20 as in the code (docs/official-code.md §3.3–§3.4(a), MERU's loss with the
//     video as apex): mean relu(ExteriorAngle(apex, x) − HalfAperture(apex)), from lib/geom.
//
// # Numerical guards (deviations from the code, each named where it is defined)
//
//   - normalizeEpsilon 1e-12: F.normalize's floor (the code's own).
//   - squaredNormFloor 1e-30 under the square roots of L_IB's std and L_ε's norms: zero spread or Δ = 0
//     gives a zero gradient instead of the code's NaN (std) — values move by ≤ 1e-15.
//   - Triplet and NCE: a batch video without queries contributes 0 (the code: 0 for NCE, NaN for triplet).
//   - QueryDiversity floors 1 + cos at 0 before a fractional focal power.
package loss

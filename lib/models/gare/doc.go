// Package gare is GARE (Xiao et al., "Rebalancing Contrastive Alignment with Bottlenecked Semantic
// Increments in Text-Video Retrieval", NeurIPS 2025) on given
// frame-level features, as its official code computes it (docs/official-code.md §4,
// sections cited below). CLIP is not available here: the model starts from given text and frame features
// (CLIP's, or ours: GloVe words, label-derived frames) with learned projections when their width
// differs from D.
//
// # Model (model.go, encoder.go, similarity.go, psi.go)
//
//   - t_i = EncodeText(text) and h_jf = EncodeVideo(frames): the projections, then CLIP4Clip's
//     "seqTransf" temporal transformer (frame position embeddings, CLIP residual attention blocks,
//     padding keys masked with −1e6, residual) — 4 layers in the code (Config.TemporalLayers).
//   - v_ij = PooledVideo(PoolingWeights(t, h, mask, 3)): softmax over frames of the raw t_i·h_jf / 3,
//     mask after the softmax, no renormalisation (docs/official-code.md §4.1).
//   - Δ_ij = ψ(SemanticGap = η(v̄_j − t_i), C): PsiReference is the code's ψ literally (one head, the
//     same pre-LayerNorm on query and context, softmax over the frames, LN2, x + dropout(linear1 x),
//     LN3, mean_proj; every Linear N(0, 0.02), zero bias); Delta computes the same numbers in the
//     factored form below.
//   - S_ij = cos(t_i + Δ_ij, v_ij) with no epsilon (Forward); the baseline (UseDelta = false) is
//     cos(t_i, v_ij). Options: η sign (Table 7), query t_i instead of the gap (Table 5), word context
//     (Tables 4/7), Δ on the video side (Table 7).
//   - Objective: lib/loss's ScaledInfoNCE / GARETotal (the code's weights; the IB prior σ and the
//     normalised-Δ variants of Table 6 as rescaled inputs of the same IBRelax).
//
// # Cost: the factored ψ (psi.go, scores.go)
//
// The code runs ψ per pair: four D×D products for each of A·B pairs. Three facts make the per-pair
// work O(F·(D + F)) instead: LN1 of the gap is affine in the two centred vectors divided by one
// per-pair scalar (so q_ij comes from per-text and per-video projections); the attention weights
// sum to one, so out_proj and everything linear after it apply to each frame's value before the
// weighted sum; and each later LayerNorm of a weighted sum needs only a per-video F×F Gram matrix.
// Every per-pair vector is then Σ_f c_ijf X_jf + const for per-video bases X, and
//
//   - training (Forward) materialises Δ [A, B, D] from the bases (the losses need it), with one
//     D×D product per pair left when dropout acts on linear1's output;
//   - inference (Scorer) never forms Δ: S comes from dot products of t_i with the bases and F×F
//     Gram matrices, block by block (GARE Fig. 10) in memory independent of the number of videos.
//
// Both are tested against plain-loop float64 references of the literal ψ (1e-9), and in float32
// at D = 512 against the per-pair computation (ReferenceSimilarity).
//
// # Training and evaluation (train.go, step.go, scorer.go, eval.go)
//
// Model.Train (Model.NewTrainer, Trainer.Train) runs the code's recipe on lib/train's loop, the one
// every model of the project uses: BertAdam (β₂ 0.98, weight decay 0.2 except biases — the
// code's grouping decays the LayerNorm gains, Config.ExemptNormGains does not —, warmup_cosine 0.1, global and per-tensor clipping at 1.0), full batches of a fresh
// permutation per epoch drawn from the loop's data-order generator, ψ dropout 0.3; a record per
// epoch (or every TrainOptions.Every steps) with the validation retrieval.ValMetric, the best validation's
// model kept and restored at the end, early stopping after Config.Patience validations without
// improvement, the loop's NaN guard, and with TrainOptions.Dir atomic checkpoints and exact resume.
// Deviation from the code, which selects its checkpoint by test R@1 (docs/official-code.md §4.4): the validation
// split is Config.ValFraction (10 %) of the training pairs, carved out by data.CarveValidation, or
// TrainOptions.Val — never the test split.
//
// The default step is the single-graph step (forward, backward and update of the batch in one
// executable): the step of every committed result. TrainOptions.TextChunk > 0 selects the chunked
// step (step.go), which computes the same exact gradient a block of texts (and videos) at a time:
// the batch couples the rows only through S [A, B], L_IB's moments over texts and the per-text rows
// of L_ε and L_dir (loss.GAREParts), so a first pass computes those block by block without
// gradients, the head gives their gradient, and a second pass back-propagates the linearised head
// block by block. At the code's 128 × 128 × 512 with DefaultTextChunk texts per block it needs about
// a quarter of the single graph's memory (0.39 GB vs 1.69 GB peak RSS) for about 1.5× its time; its
// ψ dropout comes from another random stream, so its numbers are not the figures'.
//
// Scorer implements lib/retrieval's BlockScorer (streaming evaluation) and CandidateScorer
// (two-stage re-ranking) with inference executables (train.NewInferenceExec), so that validation
// keeps one across training; ScoreMeanCosine is the dual-tower first stage cos(t_i, v̄_j).
// Model.Evaluate gives R@1/5/10, MdR and MnR both ways. SaveWeights / LoadWeights keep a trained
// model as a checkpoint in lib/train's format.
//
// lib/studies/garestudy builds the paper's tables and figures on this model; cmd/gare-memory measures the
// memory of Δ-for-every-pair inference against the number of videos.
package gare

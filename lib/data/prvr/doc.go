// Package prvr assembles a partially relevant video retrieval (PRVR) split exactly as the MS-SL /
// HLFormer data provider does (docs/official-code.md §3.1; HLF:src/Datasets/data_provider.py), from
// the official on-disk layout:
//
//	caption file   <cap_id> <sentence> lines             (package captions)
//	video features BigFile + video2frames.txt             (package bigfile)
//	query features HDF5, one (n_tokens, D_q) dataset per cap_id (package h5)
//
// The per-video processing lives here once:
//
//   - clip features: the frame sequence averaged into ClipCount = 32 segments whose boundaries are
//     round(i·n/32) with round-half-to-even (torch.round), capped at n−1; an empty segment copies
//     the frame at its start (AverageToFixedLength). Because of the cap, the last frame of a video
//     never enters a clip average when n ≥ 32 — a quirk of the official code that is kept.
//   - frame features: uniformly down-sampled by the same segment averaging to at most MaxFrames =
//     128 rows, kept as is when shorter (UniformSample);
//   - both, and every query token, L2-normalised as x / (‖x‖ + NormEps) with NormEps = 1e-5
//     (l2_normalize_np_array); query tokens are then truncated to MaxQueryTokens = 30 (max_desc_l).
//
// A Split keeps variable-length frame and token sequences packed (CSR offsets) rather than padded,
// and records for every query the column of its ground-truth video (the video whose id is the
// caption id's prefix), in the video order of first appearance in the caption file — the order of
// the [queries × videos] score matrix of the official evaluation.
package prvr

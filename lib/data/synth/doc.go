// Package synth generates seeded synthetic benchmarks, each built to exhibit one claim of the
// papers under study, with every knob documented on its config field. All generators use
// math/rand/v2 PCG streams from an explicit seed (same seed, same data, on every machine) and
// return float32 slices ready for training.
//
//   - Hierarchy: a latent concept tree (depth, branching) embedded by a branching random walk,
//     so siblings are closer than cousins — the hierarchical structure hyperbolic models assume.
//   - GenerateTriModal (GRAM, HyperGRAM): text/image/audio samples of the tree's leaves, where
//     the text names an ancestor of the sample's leaf. Knobs: semantic richness (how generic the
//     texts may be: the explanation space |S(T)| = Branching^(Depth − text depth) of HyperGRAM
//     Proposition 1), modality gap, per-modality noise, and the rate of uninformative audio.
//     Probes HyperGRAM's claim that Euclidean Gram volumes collapse (their variance → 0) while
//     hyperbolic volumes keep a variance that tracks log|S(T)| (Prop. 1, Lemma 1), and GRAM's
//     claim that one volume over all modalities aligns better than pairwise cosine when one
//     modality is noisy or uninformative.
//   - GeneratePRVR (HLFormer): untrimmed videos as sequences of moments, each query describing
//     one moment; returns a prvr.Split processed exactly like the real tracks, plus the truth
//     (which moment, which frames). Probes partial relevance (a query matches a fraction of its
//     video) and HLFormer's text ≺ video hierarchy (a video entails each of its moments).
//   - GeneratePairs (GARE): paired text / frame sequences in which a controllable fraction of
//     pairs share their concept with another pair — false negatives under InfoNCE — with a
//     controllable modality gap. Probes GARE's claim that pair-specific increments Δ absorb the
//     gradient noise of false negatives and the tension created by the gap.
package synth

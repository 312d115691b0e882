// Package gare is GARE (Xiao et al., "Rebalancing Contrastive Alignment with Bottlenecked Semantic
// Increments in Text-Video Retrieval", NeurIPS 2025; ../shared/papers/gare.txt) on given
// frame-level features, as its official code computes it (../shared/spec/official-code.md §4).
package gare

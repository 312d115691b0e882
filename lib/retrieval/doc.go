// Package retrieval computes the retrieval metrics of every table in the GRAM,
// HyperGRAM, GARE and HLFormer papers, as their official evaluation code does
// (docs/official-code.md §1.6, §3.6, §4.5, §5), for score matrices far larger
// than memory allows to sort.
//
// # Conventions
//
// A score matrix has one row per query (caption) and one column per item (video);
// higher is better, so a distance or a volume is negated by the caller (GRAM sorts
// volumes ascending). Ranks are 1-based: rank 1 is a hit at R@1.
//
//   - R@K = 100 · #(rank ≤ K) / #queries, in percent as the papers print it. GRAM and GARE
//     use 0-based ranks with rank < K, which is the same number.
//   - MdR, MnR: median and mean of the 1-based ranks (the official "median + 1",
//     "mean + 1" of 0-based ranks). The median of an even count averages the two middle
//     ranks like np.median (GARE, MS-SL/HLFormer); MedianLower takes the lower one like
//     torch.median (GRAM).
//   - SumR is the sum of the recalls at the requested Ks: R1+R5+R10 with TextVideoKs,
//     R1+R5+R10+R100 with PRVRKs (HLFormer). Text–video papers that quote a two-way SumR
//     add the t2v and v2t values.
//
// # Protocols
//
// All three are Evaluate with a different ground truth:
//
//   - square, one caption per video (MSR-VTT 1k-A, GRAM's first-caption rule): gt = nil,
//     the diagonal; Options.VideoToText gives the other direction.
//   - PRVR (HLFormer, MS-SL): many captions per video, gt[q] = the video of caption q,
//     text→video only, Options.Ks = PRVRKs.
//   - video→text with several captions per video (GRAM's ITM path): gt[q] as for PRVR
//     and Options.VideoToText; each video takes the minimum rank over its captions.
//
// A fourth protocol ranks several positives of one query among its non-positives only
// (the other positives neither help nor hurt): PositiveRanks gives each positive's rank
// and the query's average precision, MultiPositiveAccumulator the mean rank and MAP over
// queries. It is the WordNet reconstruction protocol of the hyperbolic-embedding papers
// (lib/hierarchy uses it), with the same tie rules.
//
// # Ties
//
// Ranks are counted, not sorted: the rank of the ground truth g in a row is
// 1 + #(items scoring strictly more than g) + a tie term over the items scoring exactly
// as much (TieRule). With no ties — the normal case for float scores, reported as
// Metrics.Tied = 0 — every rule and every official script agree. With ties the official
// scripts disagree among themselves: GRAM and MS-SL/HLFormer take the GT's position in an
// unstable argsort (sort-implementation dependent); CLIP4Clip/GARE locate the GT value
// in the sorted row, which finds the first tied position but also adds one extra entry
// per tied item to the average. The default, TiePessimistic, counts every tied item
// before the GT, so ties can never inflate a recall (a model that collapses to constant
// scores gets R@K = 0, where "first position" would give 100%); TieOptimistic is
// CLIP4Clip's first match; TieByIndex is a stable argsort.
//
// # Scale
//
// Counting is O(items) per row with no allocation, parallel over rows (text→video) or
// columns (video→text) with GOMAXPROCS goroutines. Evaluate consumes any BlockScorer
// strip by strip (Options.QueryBlock rows at a time, by default at most
// DefaultStripBytes), keeps an optional top-K per query, and ranks video→text in a second
// pass that keeps only counters per column, so the full matrix is never materialised:
// a 20,000 × 20,000 .npy file is evaluated by `geoalign metrics` from the file, and
// 20,000 × 20,000 cosine scores straight from embeddings (package graphscore). TwoStage
// shortlists with a cheap scorer, rescores the shortlist with an expensive one
// (CandidateScorer), and reports how much of the expensive ranking's top-k the
// shortlist covers.
package retrieval

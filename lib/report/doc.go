// Package report turns computed results into the artefacts a reader sees: tables (Markdown,
// CSV, HTML, JSON) that always carry their provenance, mean ± std summaries over seeds, and
// gonum/plot figures saved as PNG and SVG.
//
// Figures are drawn the same way everywhere: Render puts a plot's legend below it, never over
// its title or data; Colors gives every method (GRAM, HyperGRAM, GARE, HLFormer, the baselines)
// and geometry (Euclidean, Lorentz, Poincaré) one colour in every figure; HeatMap draws a matrix
// with its colour bar.
//
// It is the single implementation behind notebooks (through kernel/nb), the
// `geoalign reproduce` and `geoalign figures` commands, and `make bench`.
//
// Honesty rules are enforced by the types rather than by convention:
//   - a Table cannot be rendered without Provenance saying which data it ran on
//     (real / label-derived / synthetic) and which seeds;
//   - numbers from a paper go only into columns marked Paper, whose header is suffixed
//     with " (paper)" and which must cite their source.
package report

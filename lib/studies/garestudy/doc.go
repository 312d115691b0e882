// Package garestudy reproduces GARE's tables and figures (NeurIPS 2025) with
// lib/models/gare on the data available here, for notebooks/12-gare.ipynb and
// `make figures` / `make reproduce-table1 PAPER=gare` (reproduce.go):
//
//   - data: Charades descriptions ↔ videos (real text, label-derived video features; CharadesData)
//     and the synthetic false-negative benchmark (SyntheticData, lib/data/synth GeneratePairs);
//   - Protocol: stage 1 trains the baseline's encoders once per seed (our stand-in for CLIP), stage 2
//     trains every variant from them with the official code's recipe; results are cached per
//     (configuration, data, seed) so rows shared by tables are trained once;
//   - Variants of Tables 1, 3, 4/7, 5, 6, 8, 9 with the paper's numbers for *paper* columns only;
//   - Suite sections: tables, figures (Fig. 2/4/7 gradients, Fig. 3 geometry, Fig. 8 dynamics,
//     the two-stage coverage curve) and the claims they declare: reproduce.Comparisons over the
//     seeds, with the zero-training floor of the split (ZeroTraining) and the metric's best and
//     random levels, and descriptive findings for single-seed figure shapes;
//   - claims: every section's claims and the untestable ones (Untestable) are decided by the one
//     claim rule in reproduce.RunSections, one Holm family for GARE, for claims.json and the notebook;
//   - Scales: SmallScale (CI notebook), CIScale (Table 1 in ≤ 2 minutes), FullScale (committed
//     figures, 5 seeds).
package garestudy

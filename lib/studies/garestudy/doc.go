// Package garestudy reproduces GARE's tables and figures (../shared/papers/gare.txt) with
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
//     the two-stage coverage curve) and a Verdict per claim, computed from the runs;
//   - Scales: SmallScale (CI notebook), CIScale (Table 1 in ≤ 2 minutes), FullScale (committed
//     figures).
package garestudy

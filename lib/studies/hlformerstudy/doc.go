// Package hlformerstudy reproduces HLFormer's tables and figures (ICCV 2025)
// with lib/models/hlformer on the data available here, for notebooks/13-hlformer.ipynb and
// `make figures` / `make reproduce-table1 PAPER=hlformer` (reproduce.go).
//
// Setup is a PRVR benchmark (LoadCharadesSTAText: the label-derived Charades-STA track with its
// zero-training floors; SyntheticSetup: lib/data/synth), Variant a model/objective change (Table 1's
// Euclidean-only and MS-SL-like models, Table 2's ablations), Scale a size (CIScale, AblationScale,
// FullScale). A Study runs variants over seeds (optionally checkpointing every run in a cache, so that
// long studies resume) and builds Table 1, Table 2, Fig. 3–6 with their findings; Suite lists them as
// the sections that `geoalign figures` saves and the notebook shows (suite.go).
package hlformerstudy

// Package gramstudy rebuilds the evidence of the GRAM (ICLR 2025) and HyperGRAM (CVPR 2026) papers on
// the data available here (the real tri-modal sets FSDD digits and Tux Paint, and the synthetic
// concept hierarchy of lib/data/synth), with lib/models/gram. Notebooks 10-gram and 11-hypergram and
// `make reproduce-table1 PAPER=gram|hypergram` call these functions; nothing here re-implements a
// formula (volumes: lib/geom, losses: lib/loss, ranks: lib/retrieval).
//
// Every study returns a lib/report table (mean ± std over Options' seeds, provenance, the paper's
// number in a column marked *paper* where one exists) and, where the paper makes a claim, a Verdict
// computed from paired per-seed differences: holds when the mean difference is positive and beyond
// two standard errors, does not hold otherwise (with "the opposite is measured" or "within seed
// noise").
//
//   - GRAM: Table1 (text → image+audio retrieval, GRAM vs pairwise cosine, and GRAM's cosine → volume
//     recipe), Modalities (Table 4), LossAblation (Table 6), ScoreVsRecall (Fig. 3, Pearson ρ of the
//     alignment score and R@1), ModalityGap (Table 7), VolumeIntuition (Fig. 1), LearningCurves (test R@1 by epoch),
//     ModalityCount (Table 4 with k = 2 … 5 on the multilingual stamps).
//   - HyperGRAM: Geometries (GRAM vs pure hyperbolic vs HyperGRAM), VolumeCollapse (matched-volume
//     statistics), AlphaTrajectory, SemanticRole (volume vs synthetic semantic richness),
//     TextLengthCorrelation, LowPrecision (Lorentz vs Poincaré in float16 / bfloat16).
//
// Options.Full switches every study from the CI-sized configuration (3 seeds, few epochs) to the
// full one (5 seeds, more epochs, larger synthetic sets). Every model is selected on a validation
// split carved from train (the epoch of the best validation SumR); Options.Epochs is the budget
// chosen on that split (the sweep: cmd/gramcurves). `make figures` writes every table of trained
// models with a learning-curve figure beside it (TrainingCurves: validation SumR and training loss
// per epoch, mean ± s.e. over seeds) and notes on how its runs ended (ConvergenceNotes,
// Options.ValidationNote).
package gramstudy

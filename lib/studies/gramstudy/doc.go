// Package gramstudy rebuilds the evidence of the GRAM (ICLR 2025) and HyperGRAM (CVPR 2026) papers on
// the data available here (the real tri-modal sets FSDD digits and Tux Paint, and the synthetic
// concept hierarchy of lib/data/synth), with lib/models/gram. Nothing here re-implements a formula
// (volumes: lib/geom, losses: lib/loss, ranks: lib/retrieval).
//
// Suite is the studies as `make figures` and notebooks 10-gram and 11-hypergram run them: its
// Sections("gram") and Sections("hypergram") are the sections of figures/gram/ and figures/hypergram/,
// and Suite.Section runs one by name for a notebook cell. Each section is a reproduce.Section: tables
// (mean ± std over Options' seeds, provenance, the paper's number in a column marked *paper* where
// one exists), figures, the comparisons the project's one claim rule decides (reproduce.Decide) and
// descriptive findings. The analyses the sections are made of:
//
//   - GRAM: Table1 (text → image+audio retrieval, GRAM vs pairwise cosine, and GRAM's cosine → volume
//     recipe), Modalities (Table 4), LossAblation (Table 6), ScoreVsRecall (Fig. 3, Pearson ρ of the
//     alignment score and R@1), ModalityGap (Table 7), VolumeIntuition (Fig. 1), LearningCurves (test
//     R@1 by epoch), ModalityCount (Table 4 with k = 2 … 5 on the multilingual stamps).
//   - HyperGRAM: Geometries (GRAM vs pure hyperbolic vs HyperGRAM), VolumeCollapse (matched-volume
//     statistics), AlphaTrajectory, SemanticRole (volume vs synthetic semantic richness),
//     TextLengthCorrelation, RawLift, LowPrecision (Lorentz vs Poincaré in float16 / bfloat16).
//
// Options.Full switches every study from the CI-sized configuration (3 seeds, few epochs) to the
// full one (5 seeds, more epochs, larger synthetic sets). Every model is selected on a validation
// split carved from train (the epoch of the best validation SumR); Options.Epochs is the budget
// chosen on that split (the sweep: lib/cmd/gramcurves). Every table of trained models has a
// learning-curve figure beside it (TrainingCurves: validation SumR and training loss per epoch,
// mean ± s.e. over seeds) and notes on how its runs ended (ConvergenceNotes, Options.ValidationNote).
package gramstudy

// Package train holds what the four papers' training shares: the Adam variants their official
// code uses, their learning-rate schedules, a compiled training step over a GoMLX model.Store,
// and the one training loop every model runs on.
//
//   - Adam with the switches the official code differs by (sections of docs/official-code.md):
//     BertAdam (HLFormer §3.5, GARE §4.4: no bias correction, decoupled weight decay skipped for
//     biases and LayerNorm, per-tensor gradient-norm clipping inside the step, optional global
//     clipping before it, per-variable learning-rate multipliers) and AdamW (GRAM §1.5: bias
//     correction, decoupled weight decay, no clipping).
//   - Schedules as functions of training progress x = step/totalSteps: WarmupLinear (HLFormer),
//     WarmupCosine (GARE), Constant.
//   - Step: one compiled executable per input shape that evaluates the model's loss, applies
//     the optimizer and returns the loss and any auxiliary outputs; blocks.go has the helpers of
//     steps split into several executables (a block of the batch at a time).
//   - NewInferenceExec / MarkInference / TrainingPass: executables compiled once and run as the
//     weights change (evaluation during training) — see MarkInference for why they are built as
//     training graphs.
//
// # The loop (loop.go, checkpoint.go)
//
// A model supplies a Task: its Store, a Plan (the batches of an epoch, drawn from the loop's
// seeded data-order generator), its Step (one compiled Step, or a chunked step of several
// executables — anything that trains on a batch and returns the loss and named terms), a Validate
// on a validation split that is never the test split, optionally Annotate (model-specific values
// per record) and Host (host-side random state). NewLoop(task, Config) and Loop.Run supply the rest:
//
//   - epochs (or a number of steps), a progress bar with ETA (lib/progress);
//   - a Record every Config.EvalEvery steps or at the end of every epoch: mean loss and terms,
//     validation metrics, seconds, Annotate's values — written to HistoryFile (JSON) and PlotFile
//     (GoMLX's plot points, so `gomlx_checkpoints -metrics -plot DIR` draws the learning curves);
//   - early stopping on Config.Metric (Patience validations without a strictly better value) and
//     the best model kept in BestDir, which the store holds when Run returns;
//   - a guard that stops at the first NaN or infinite value a step returns (NonFiniteError names
//     the step, the term and every value), before any checkpoint of that step;
//   - checkpoints in GoMLX's format (ml/model/checkpoint) at every record and every
//     Config.CheckpointEvery steps, written atomically (staged, synced, renamed; see
//     OpenCheckpoints), with the loop's own state inside (LoopStateParam: position, data-order
//     generator, running sums, best validation, patience, the records, the host state), so that a
//     Loop on the same directory after a kill -9 resumes from the last complete checkpoint and
//     ends bit for bit as an uninterrupted run (TestResumeAfterKill). HistoryFile is rewritten
//     from the checkpoint's records after every checkpoint: it can lag the checkpoint by one
//     record after a kill, never disagree with it once the run resumes.
//
// GoMLX's own ml/train.Loop is not used: it drives a *train.Trainer that compiles its own
// single-graph step (the chunked steps of GARE and HLFormer, and hierarchy's host-side Riemannian
// update, are not expressible as one), and it has no validation-driven early stopping, best model
// or resumable data order. Its checkpoint format and handler are used.
//
// Checkpoints, when written by GoMLX's own Handler.Save (which is not atomic) or damaged on disk,
// are verified on opening: an unreadable newest checkpoint is moved aside and the previous
// complete one is loaded (Result.Notes says so).
package train

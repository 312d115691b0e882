// Package train holds what the four papers' training loops share: the Adam variants their
// official code uses, their learning-rate schedules, and a compiled training step over a
// GoMLX model.Store.
//
//   - Adam with the switches the official code differs by (spec = ../shared/spec/official-code.md):
//     BertAdam (HLFormer §3.5, GARE §4.4: no bias correction, decoupled weight decay skipped for
//     biases and LayerNorm, per-tensor gradient-norm clipping inside the step, optional global
//     clipping before it, per-variable learning-rate multipliers) and AdamW (GRAM §1.5: bias
//     correction, decoupled weight decay, no clipping).
//   - Schedules as functions of training progress x = step/totalSteps: WarmupLinear (HLFormer),
//     WarmupCosine (GARE), Constant.
//   - Step: one compiled executable per input shape that evaluates the model's loss, applies
//     the optimizer and returns the loss and any auxiliary outputs.
//
// Checkpoints and resume use GoMLX's ml/model/checkpoint directly (see Checkpointer).
package train

// Package loss holds the training losses of GRAM, HyperGRAM, GARE and HLFormer as GoMLX graph
// functions (float32 and float64). Each follows the official code by default
// (../shared/spec/official-code.md); the paper's form is a documented option.
package loss

// Package studies is the experiments layer: one subpackage per paper (gramstudy for GRAM and
// HyperGRAM, garestudy, hlformerstudy) declares the runs, tables, figures and claims that reproduce
// the paper's evidence on top of the models in lib/models, which import none of it.
package studies

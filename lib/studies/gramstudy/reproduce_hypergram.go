package gramstudy

import (
	"github.com/geoalign/geoalign/lib/reproduce"
)

// HyperGRAM (CVPR 2026; no public code, summary only) on the tri-modal sets of the GRAM
// reproduction. Notebook: notebooks/11-hypergram.ipynb.
func init() {
	reproduce.Register(reproduce.Experiment{Paper: "hypergram", Figures: figures("hypergram", UntestableHyperGRAM()),
		Table1: table1(Options.Geometries)})
}

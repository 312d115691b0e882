// Package geom is the geometry core shared by the GRAM, HyperGRAM, HLFormer and GARE models:
// the Lorentz model of hyperbolic space, Gramian volumes (Euclidean, hyperbolic, hybrid) and
// entailment cones. Every function takes and returns *graph.Node and works in float32 and float64.
package geom

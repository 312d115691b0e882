// Package enum writes the integer enumerations of the model configurations (hlformer.Aggregation,
// gram.Geometry, gare.GapSign, …) in JSON by the names their String methods give
// (`"Aggregation": "MAIM"`), so that the configurations `geoalign train --print-config` prints and a
// run directory's config.json holds read as words, and reads them back from a name or, for run
// directories written before names, from the number.
//
// An enumeration takes part with two one-line methods that hand the helpers its last value (its
// values run from 0 to last, as iota declares them):
//
//	func (a Aggregation) MarshalJSON() ([]byte, error)  { return enum.MarshalJSON(a, ConcatLinear) }
//	func (a *Aggregation) UnmarshalJSON(b []byte) error { return enum.UnmarshalJSON(a, b, ConcatLinear) }
//
// Only JSON changes: gob, fmt's %d and arithmetic see the integer as before.
package enum

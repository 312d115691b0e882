// Package runcache names the directory of a training run by everything that determines its result,
// so that a cached run is reused only when it would be trained again identically:
//
//	key = sha256(canonical JSON of {paper, full configuration (scale included), data fingerprint,
//	             seed, hash of the source of the packages that define the model and its training,
//	             backend (GOMLX_BACKEND; an XLA plugin by its file's hash: Backend)})
//
// A run lives in <root>/<paper>/<key>/ with spec.json — the inputs of the key, readable — beside the
// checkpoints of lib/train's loop. Nothing is versioned by hand: editing a configuration field, the
// data, the seed, or any non-test Go file of the given packages, of the packages of this module they
// import (transitively), or go.mod (dependency versions) gives a new key.
//
// The source is hashed at run time from the checkout: the module root is GEOALIGN_ROOT or the
// nearest directory above the working directory whose go.mod declares this module (no `go` tool is
// needed). Without a checkout (an installed binary run elsewhere), the executable itself is hashed
// instead, and Source.Fallback says so.
//
// Besides runs, Memo keeps a smaller derived value (a processed data set, an analysis of cached
// runs, a notebook's value) as a gob file whose path keys its inputs; Root, InCheckout and
// ModuleRoot locate the run cache and the checkout.
package runcache

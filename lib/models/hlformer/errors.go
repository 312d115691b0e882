package hlformer

import "github.com/gomlx/gomlx/support/exceptions"

// panicf raises a graph-building error the GoMLX way (exceptions.Panicf), prefixed with the package.
func panicf(format string, args ...any) {
	exceptions.Panicf("hlformer."+format, args...)
}

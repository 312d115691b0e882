package loss

import (
	"strconv"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX graph-building style.
	"github.com/gomlx/gomlx/support/exceptions"
)

// Shape checks run while the graph is built, so a wrong input fails at once with the function and
// argument named, instead of deep inside a backend op. They panic, as GoMLX graph functions do.

func panicf(format string, args ...any) { exceptions.Panicf("loss."+format, args...) }

func itoa(i int) string { return strconv.Itoa(i) }

func assertRank(fn, name string, x *Node, rank int) {
	if x == nil {
		panicf("%s: %s is nil", fn, name)
	}
	if x.Rank() != rank {
		panicf("%s: %s must have rank %d, got shape %s", fn, name, rank, x.Shape())
	}
}

func assertFloat(fn, name string, x *Node) {
	if !x.DType().IsFloat() {
		panicf("%s: %s must be float32 or float64, got %s", fn, name, x.DType())
	}
}

func assertSquare(fn, name string, x *Node) {
	assertRank(fn, name, x, 2)
	assertFloat(fn, name, x)
	d := x.Shape().Dimensions
	if d[0] != d[1] {
		panicf("%s: %s must be square [B, B] (row i = anchor i, column j = data item j), got %s", fn, name, x.Shape())
	}
	if d[0] < 1 {
		panicf("%s: %s is empty: %s", fn, name, x.Shape())
	}
}

func assertScalar(fn, name string, x *Node) {
	if x == nil {
		panicf("%s: %s is nil", fn, name)
	}
	if !x.Shape().IsScalar() {
		panicf("%s: %s must be a scalar node, got shape %s", fn, name, x.Shape())
	}
}

func assertSameShape(fn, nameA string, a *Node, nameB string, b *Node) {
	if a == nil || b == nil {
		panicf("%s: %s or %s is nil", fn, nameA, nameB)
	}
	if !a.Shape().Equal(b.Shape()) {
		panicf("%s: %s %s and %s %s must have the same shape", fn, nameA, a.Shape(), nameB, b.Shape())
	}
}

func assertLabelSmoothing(fn string, eps float64) {
	if eps < 0 || eps >= 1 {
		panicf("%s: label smoothing must be in [0, 1), got %g", fn, eps)
	}
}

// assertLabels checks a [n] integer label vector that goes with a [n, ...] float input.
func assertLabels(fn string, labels *Node, n int) {
	assertRank(fn, "labels", labels, 1)
	if !labels.DType().IsInt() {
		panicf("%s: labels must be an integer dtype, got %s", fn, labels.DType())
	}
	if labels.Shape().Dimensions[0] != n {
		panicf("%s: labels has %d entries but the scores/queries have %d rows", fn, labels.Shape().Dimensions[0], n)
	}
}

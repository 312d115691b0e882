package hierarchy

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"github.com/geoalign/geoalign/lib/data/wordnet"
)

// treeClosure is the transitive closure of a complete tree with the given branching and depth
// (root "n"; the children of "n.1" are "n.1.1", "n.1.2", ...).
func treeClosure(t testing.TB, branching, depth int) *wordnet.Closure {
	t.Helper()
	var b strings.Builder
	var walk func(name string, ancestors []string, level int)
	walk = func(name string, ancestors []string, level int) {
		for _, a := range ancestors {
			fmt.Fprintf(&b, "%s\t%s\n", name, a)
		}
		if level == depth {
			return
		}
		for k := 1; k <= branching; k++ {
			walk(fmt.Sprintf("%s.%d", name, k), append(append([]string{}, ancestors...), name), level+1)
		}
	}
	walk("n", nil, 0)
	c, err := wordnet.ReadTSV(strings.NewReader(b.String()), "tree")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Independent float64 references, written from the textbook formulas (not from the package).

// refLorentzDistance is arcosh(−c⟨x, y⟩_L)/√c for space coordinates, time from √(1/c + ‖x‖²).
func refLorentzDistance(x, y []float64, c float64) float64 {
	var xx, yy, xy float64
	for i := range x {
		xx += x[i] * x[i]
		yy += y[i] * y[i]
		xy += x[i] * y[i]
	}
	inner := xy - math.Sqrt(1/c+xx)*math.Sqrt(1/c+yy)
	return math.Acosh(math.Max(-c*inner, 1)) / math.Sqrt(c)
}

// refPoincareDistance is arcosh(1 + 2c‖x − y‖²/((1 − c‖x‖²)(1 − c‖y‖²)))/√c.
func refPoincareDistance(x, y []float64, c float64) float64 {
	var xx, yy, dd float64
	for i := range x {
		xx += x[i] * x[i]
		yy += y[i] * y[i]
		dd += (x[i] - y[i]) * (x[i] - y[i])
	}
	return math.Acosh(1+2*c*dd/((1-c*xx)*(1-c*yy))) / math.Sqrt(c)
}

// numericGradient is the central finite-difference gradient of f at x (gonum's diff/fd, step 1e-6).
func numericGradient(f func([]float64) float64, x []float64) []float64 {
	return fd.Gradient(nil, f, x, &fd.Settings{Formula: fd.Central, Step: 1e-6})
}

package hierarchy

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/geoalign/geoalign/lib/geom"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// Embedding is a table of N points on one manifold, kept in float64.
//
// Layout of a row: Lorentz rows are full coordinates (x₀, x₁ … x_d), Stride = d+1; Poincaré and
// Euclidean rows are the d coordinates. Space(i) is the part the loss graph sees (x₁ … x_d for
// Lorentz), in the convention of lib/geom.
type Embedding struct {
	Manifold  Manifold
	Dim       int
	Curvature float64
	Names     []string
	Coords    []float64 // N·Stride values, row-major
}

// Stride is the number of stored coordinates per row.
func (e *Embedding) Stride() int {
	if e.Manifold == Lorentz {
		return e.Dim + 1
	}
	return e.Dim
}

// Len is the number of points.
func (e *Embedding) Len() int { return len(e.Names) }

// Row is the stored row i (aliases Coords).
func (e *Embedding) Row(i int) []float64 { s := e.Stride(); return e.Coords[i*s : (i+1)*s] }

// Space is the part of row i the graphs see (aliases Coords).
func (e *Embedding) Space(i int) []float64 {
	r := e.Row(i)
	if e.Manifold == Lorentz {
		return r[1:]
	}
	return r
}

// SpaceMatrix copies the graph-visible coordinates of all rows into a flat [N, Dim] slice.
func (e *Embedding) SpaceMatrix() []float64 {
	out := make([]float64, 0, e.Len()*e.Dim)
	for i := range e.Len() {
		out = append(out, e.Space(i)...)
	}
	return out
}

// newEmbedding draws every coordinate (space coordinates for Lorentz) uniformly in
// (−initRange, initRange), as both papers initialise, and puts Lorentz rows on the hyperboloid.
func newEmbedding(names []string, cfg Config, rng *rand.Rand) *Embedding {
	e := &Embedding{Manifold: cfg.Manifold, Dim: cfg.Dim, Curvature: cfg.Curvature, Names: names}
	e.Coords = make([]float64, len(names)*e.Stride())
	for i := range names {
		s := e.Space(i)
		for k := range s {
			s[k] = (2*rng.Float64() - 1) * cfg.InitRange
		}
		if e.Manifold == Lorentz {
			LorentzReproject(e.Row(i), e.Curvature)
		}
	}
	return e
}

// ManifoldDeviation is max_i |c⟨x_i, x_i⟩_L + 1| over the stored Lorentz rows (0 for other manifolds).
func (e *Embedding) ManifoldDeviation() float64 {
	if e.Manifold != Lorentz {
		return 0
	}
	worst := 0.0
	for i := range e.Len() {
		r := e.Row(i)
		worst = math.Max(worst, math.Abs(e.Curvature*minkowskiInner(r, r)+1))
	}
	return worst
}

// Ball returns the points as Poincaré-ball coordinates [N][Dim] (for pictures and norms):
// Lorentz rows through lib/geom.LorentzToPoincare, Poincaré rows as they are, Euclidean rows as
// they are (there is no ball; callers should not mix them up).
func (e *Embedding) Ball(backend compute.Backend) ([][]float64, error) {
	flat := e.SpaceMatrix()
	if e.Manifold == Lorentz {
		var err error
		flat, err = e.applyRowwise(backend, func(x, c *Node) *Node { return geom.LorentzToPoincare(x, c) })
		if err != nil {
			return nil, err
		}
	}
	return e.rowsOf(flat), nil
}

// OriginTangent returns log₀ of every point, [N][Dim]: the tangent vector at the origin whose
// direction is the point's direction and whose length is its hyperbolic distance from the origin
// (lib/geom.LogMap0; Poincaré rows go through geom.PoincareToLorentz first). Drawing these vectors
// is the geodesic polar picture of the embedding: angles as in the disk, radii not compressed.
func (e *Embedding) OriginTangent(backend compute.Backend) ([][]float64, error) {
	var f func(x, c *Node) *Node
	switch e.Manifold {
	case Lorentz:
		f = func(x, c *Node) *Node { return geom.LogMap0(x, c) }
	case Poincare:
		f = func(x, c *Node) *Node { return geom.LogMap0(geom.PoincareToLorentz(x, c), c) }
	default:
		return nil, fmt.Errorf("hierarchy: OriginTangent needs a hyperbolic embedding, got %s", e.Manifold)
	}
	flat, err := e.applyRowwise(backend, f)
	if err != nil {
		return nil, err
	}
	return e.rowsOf(flat), nil
}

// rowsOf splits a flat [N·Dim] matrix into its N rows of Dim values (views of flat).
func (e *Embedding) rowsOf(flat []float64) [][]float64 {
	out := make([][]float64, e.Len())
	for i := range out {
		out[i] = flat[i*e.Dim : (i+1)*e.Dim]
	}
	return out
}

// OriginDistances returns every point's hyperbolic distance from the origin (its hyperbolic norm,
// the length of OriginTangent): the "generality" coordinate of the norm-vs-depth picture.
func (e *Embedding) OriginDistances(backend compute.Backend) ([]float64, error) {
	tan, err := e.OriginTangent(backend)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(tan))
	for i, v := range tan {
		var s float64
		for _, x := range v {
			s += x * x
		}
		out[i] = math.Sqrt(s)
	}
	return out, nil
}

// applyRowwise runs f(space rows, c) in a float64 graph and returns the flat [N, Dim] result.
func (e *Embedding) applyRowwise(backend compute.Backend, f func(x, c *Node) *Node) ([]float64, error) {
	x := tensors.FromFlatDataAndDimensions(e.SpaceMatrix(), e.Len(), e.Dim)
	res, err := ExecOnce(backend, func(x *Node) *Node {
		return f(x, Scalar(x.Graph(), dtypes.Float64, e.Curvature))
	}, x)
	if err != nil {
		return nil, fmt.Errorf("hierarchy: %w", err)
	}
	return tensors.MustCopyFlatData[float64](res), nil
}

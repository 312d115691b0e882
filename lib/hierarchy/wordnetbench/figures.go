package wordnetbench

import (
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/geoalign/geoalign/lib/data/wordnet"
	"github.com/geoalign/geoalign/lib/hierarchy"
	"github.com/gomlx/compute"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// DefaultMammalLabels are the nodes labelled in the mammal disk: the root, a few orders and a
// few familiar species, spread over the hierarchy.
var DefaultMammalLabels = []string{
	"mammal.n.01", "placental.n.01", "carnivore.n.01", "primate.n.02", "rodent.n.01",
	"ungulate.n.01", "cetacean.n.01", "marsupial.n.01", "bat.n.01", "dog.n.01", "cat.n.01",
	"horse.n.01", "elephant.n.01", "homo.n.02", "pack_animal.n.01",
}

var (
	edgeColor  = color.RGBA{R: 170, G: 170, B: 170, A: 255}
	pointColor = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	labelColor = color.RGBA{R: 200, G: 40, B: 40, A: 255}
	ringColor  = color.RGBA{R: 210, G: 210, B: 230, A: 255}
)

// FigureSize is the side of the square disk figure.
const FigureSize = 7 * vg.Inch

// DiskFigure draws a 2-D hyperbolic embedding in the Poincaré disk: the direct is-a links
// (transitive reduction) as grey segments, every node as a dot, and the labelled nodes named.
// Lorentz points are mapped to the disk by lib/geom.LorentzToPoincare (through Embedding.Ball).
func DiskFigure(backend compute.Backend, e *hierarchy.Embedding, c *wordnet.Closure, labels []string) (*plot.Plot, error) {
	if e.Dim != 2 || e.Manifold == hierarchy.Euclidean {
		return nil, fmt.Errorf("wordnetbench: the disk picture needs a 2-D hyperbolic embedding, got %s d=%d", e.Manifold, e.Dim)
	}
	ball, err := e.Ball(backend)
	if err != nil {
		return nil, err
	}
	radius := 1 / math.Sqrt(e.Curvature)
	title := fmt.Sprintf("%d-node hierarchy in the Poincaré disk (%s model, d = 2)", e.Len(), e.Manifold)
	return drawHierarchy(ball, c, labels, []float64{radius}, true, radius, title)
}

// TangentFigure draws the same 2-D embedding in geodesic polar coordinates: each node at log₀ of
// its point (Embedding.OriginTangent), i.e. at its direction in the disk and at its hyperbolic
// distance from the origin, with rings every 2 units of distance. The disk squeezes everything
// beyond distance ~5 against its boundary; this view shows the levels of the hierarchy.
func TangentFigure(backend compute.Backend, e *hierarchy.Embedding, c *wordnet.Closure, labels []string) (*plot.Plot, error) {
	if e.Dim != 2 || e.Manifold == hierarchy.Euclidean {
		return nil, fmt.Errorf("wordnetbench: the tangent picture needs a 2-D hyperbolic embedding, got %s d=%d", e.Manifold, e.Dim)
	}
	tan, err := e.OriginTangent(backend)
	if err != nil {
		return nil, err
	}
	far := 0.0
	for _, v := range tan {
		far = math.Max(far, math.Hypot(v[0], v[1]))
	}
	var rings []float64
	for r := 2.0; r <= far; r += 2 {
		rings = append(rings, r)
	}
	title := fmt.Sprintf("%d-node hierarchy at log₀: radius = hyperbolic distance from the origin (%s, d = 2)", e.Len(), e.Manifold)
	return drawHierarchy(tan, c, labels, rings, false, far, title)
}

// drawHierarchy draws 2-D points with the direct is-a links, circles of the given radii (black
// for the disk's boundary, light otherwise) and the labelled nodes, in a square window of
// half-width 1.05·extent.
func drawHierarchy(pts2 [][]float64, c *wordnet.Closure, labels []string, circles []float64, boundary bool, extent float64, title string) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = -1.05*extent, 1.05*extent, -1.05*extent, 1.05*extent
	p.HideAxes()
	for _, radius := range circles {
		ring := make(plotter.XYs, 361)
		for i := range ring {
			a := 2 * math.Pi * float64(i) / 360
			ring[i] = plotter.XY{X: radius * math.Cos(a), Y: radius * math.Sin(a)}
		}
		l, err := plotter.NewLine(ring)
		if err != nil {
			return nil, err
		}
		l.Color = color.Black
		if !boundary {
			l.Color, l.Width = ringColor, vg.Points(0.5)
		}
		p.Add(l)
	}
	for _, edge := range c.Reduction() {
		a, b := pts2[edge.Child], pts2[edge.Parent]
		l, err := plotter.NewLine(plotter.XYs{{X: a[0], Y: a[1]}, {X: b[0], Y: b[1]}})
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = edgeColor, vg.Points(0.3)
		p.Add(l)
	}
	pts := make(plotter.XYs, len(pts2))
	for i, q := range pts2 {
		pts[i] = plotter.XY{X: q[0], Y: q[1]}
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: pointColor, Radius: vg.Points(1.2), Shape: draw.CircleGlyph{}}
	p.Add(sc)

	idx := c.Index()
	var lab plotter.XYLabels
	for _, name := range labels {
		i, ok := idx[name]
		if !ok {
			continue
		}
		lab.XYs = append(lab.XYs, plotter.XY{X: pts2[i][0], Y: pts2[i][1]})
		lab.Labels = append(lab.Labels, shortName(name))
	}
	if len(lab.XYs) > 0 {
		marks, err := plotter.NewScatter(lab.XYs)
		if err != nil {
			return nil, err
		}
		marks.GlyphStyle = draw.GlyphStyle{Color: labelColor, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
		p.Add(marks)
		l, err := plotter.NewLabels(lab)
		if err != nil {
			return nil, err
		}
		for i := range l.TextStyle {
			l.TextStyle[i].Color = labelColor
			l.TextStyle[i].Font.Size = vg.Points(8)
			l.TextStyle[i].XAlign = draw.XLeft
		}
		l.Offset = vg.Point{X: vg.Points(3), Y: vg.Points(2)}
		p.Add(l)
	}
	return p, nil
}

// shortName drops the ".n.NN" suffix of a synset name.
func shortName(s string) string {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '.' && i >= 2 && s[i-2:i] == ".n" {
			return s[:i-2]
		}
	}
	return s
}

// NormDepthFigure plots each node's hyperbolic norm — its distance from the origin,
// Embedding.OriginDistances — against its number of ancestors in the closure, with the mean per
// depth: general concepts sit near the origin, specific ones far out (Nickel & Kiela 2017 §4; the
// picture HLFormer's Fig. 5 relies on). The Poincaré-ball norm tanh(r/2) would show the same
// order but squeezed against 1 from r ≈ 5 on.
func NormDepthFigure(backend compute.Backend, e *hierarchy.Embedding, c *wordnet.Closure) (*plot.Plot, error) {
	if e.Manifold == hierarchy.Euclidean {
		return nil, fmt.Errorf("wordnetbench: norm vs depth is drawn for hyperbolic embeddings")
	}
	norms, err := e.OriginDistances(backend)
	if err != nil {
		return nil, err
	}
	anc := c.Ancestors()
	rng := rand.New(rand.NewPCG(5, 5)) // jitter only, fixed for reproducible figures
	pts := make(plotter.XYs, len(norms))
	byDepth := map[int][]float64{}
	for i, n := range norms {
		pts[i] = plotter.XY{X: float64(anc[i]) + 0.3*(rng.Float64()-0.5), Y: n}
		byDepth[anc[i]] = append(byDepth[anc[i]], n)
	}
	var depths []int
	for d := range byDepth {
		depths = append(depths, d)
	}
	sort.Ints(depths)
	mean := make(plotter.XYs, len(depths))
	for i, d := range depths {
		var s float64
		for _, v := range byDepth[d] {
			s += v
		}
		mean[i] = plotter.XY{X: float64(d), Y: s / float64(len(byDepth[d]))}
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Norm vs depth (%s model, d = %d)", e.Manifold, e.Dim)
	p.X.Label.Text = "ancestors in the closure (depth)"
	p.Y.Label.Text = "hyperbolic distance from the origin"
	p.Y.Min = 0
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: color.NRGBA{R: 31, G: 119, B: 180, A: 90}, Radius: vg.Points(1.5), Shape: draw.CircleGlyph{}}
	line, points, err := plotter.NewLinePoints(mean)
	if err != nil {
		return nil, err
	}
	line.Color, line.Width = labelColor, vg.Points(1.5)
	points.GlyphStyle = draw.GlyphStyle{Color: labelColor, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
	p.Add(sc, line, points)
	p.Legend.Add("node", sc)
	p.Legend.Add("mean per depth", line, points)
	return p, nil
}

package hierarchy

import (
	"math"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
)

// The distance to a fixed point p has a Riemannian gradient of unit length pointing away from p,
// so one exponential-map step of length η against it lands exactly η closer to p (for η below the
// distance and the step cap). The chart gradient comes from finite differences of the textbook
// distance, independently of the code under test.
func TestLorentzStepMovesAlongGeodesicTowardsTarget(t *testing.T) {
	const c = 2.0
	xs := []float64{1.2, -0.4, 0.7}
	p := []float64{-0.5, 0.9, -1.1}
	f := func(y []float64) float64 { return refLorentzDistance(y, p, c) }
	d0 := f(xs)
	for _, eta := range []float64{0.05, 0.3} {
		row := append([]float64{0}, xs...)
		LorentzReproject(row, c)
		dev := LorentzStep(row, numericGradient(f, xs), eta, c, make([]float64, len(row)))
		if got := f(row[1:]); math.Abs(got-(d0-eta)) > 1e-6 {
			t.Errorf("η=%g: distance to p went %.9f → %.9f, want %.9f", eta, d0, got, d0-eta)
		}
		if dev > 1e-13 {
			t.Errorf("η=%g: |c⟨x,x⟩_L + 1| = %g after the step", eta, dev)
		}
		// The time coordinate produced by the exponential map must be the hyperboloid's.
		var sq float64
		for _, v := range row[1:] {
			sq += v * v
		}
		if want := math.Sqrt(1/c + sq); math.Abs(row[0]-want) > 1e-12*want {
			t.Errorf("η=%g: x₀ = %.15g, want √(1/c+‖x‖²) = %.15g", eta, row[0], want)
		}
	}
	// A step longer than LorentzMaxStep/√c is cut to that length.
	row := append([]float64{0}, xs...)
	LorentzReproject(row, c)
	LorentzStep(row, numericGradient(f, xs), 50, c, make([]float64, len(row)))
	if got, want := f(row[1:]), d0-LorentzMaxStep/math.Sqrt(c); math.Abs(got-want) > 1e-6 {
		t.Errorf("capped step: distance %.9f, want %.9f", got, want)
	}
}

func TestPoincareStepDescendsDistanceAtUnitRate(t *testing.T) {
	const c = 0.5
	x := []float64{0.6, -0.3, 0.2}
	p := []float64{-0.4, 0.5, 0.1}
	f := func(y []float64) float64 { return refPoincareDistance(y, p, c) }
	const eta = 1e-4
	y := append([]float64{}, x...)
	PoincareStep(y, numericGradient(f, x), eta, c)
	if rate := (f(y) - f(x)) / eta; math.Abs(rate+1) > 1e-3 {
		t.Errorf("d(x, p) changes at rate %.6f per unit step, want −1 (unit Riemannian gradient)", rate)
	}
}

func TestPoincareStepProjectsIntoBall(t *testing.T) {
	const c = 4.0
	x := []float64{0.49, 0}
	PoincareStep(x, []float64{-1e9, 0}, 1, c) // a huge step outwards
	limit := (1 - PoincareProjectionEps) / math.Sqrt(c)
	if n := math.Hypot(x[0], x[1]); math.Abs(n-limit) > 1e-15 {
		t.Errorf("‖x‖ = %.17g after the step, want the projection radius %.17g", n, limit)
	}
}

// Acceptance 2 of the WordNet issue: Riemannian SGD keeps every point on the hyperboloid
// ⟨x, x⟩_L = −1/c for the whole run, with no reprojection to hide drift. Curvature −2 so that a
// missing c anywhere in the projection or the exponential map would show.
func TestLorentzOptimizerKeepsPointsOnHyperboloid(t *testing.T) {
	tree := treeClosure(t, 3, 3)
	cfg := PaperConfig(Lorentz, 2)
	cfg.Curvature = 2
	cfg.Epochs, cfg.BurnInEpochs = 40, 5
	cfg.Reproject = false
	tr := quietTrainer(t, tree, cfg)
	// Tolerance relative to the size of the terms of c⟨x,x⟩_L = −c x₀² + c‖x‖²: float64 rounding
	// of a few steps' worth of cosh/sinh arithmetic.
	const tol = 1e-12
	checkAll := func(epoch int) {
		for i := range tr.Emb.Len() {
			r := tr.Emb.Row(i)
			dev := math.Abs(cfg.Curvature*minkowskiInner(r, r) + 1)
			if scale := cfg.Curvature * r[0] * r[0]; dev > tol*scale {
				t.Fatalf("epoch %d, %s: |c⟨x,x⟩_L + 1| = %.3g > %.0g·c·x₀² (x₀ = %.4g)", epoch, tr.Emb.Names[i], dev, tol, r[0])
			}
		}
	}
	checkAll(0)
	maxTime := 0.0
	tr.OnEpoch = func(tr *Trainer, s EpochStats) error {
		checkAll(s.Epoch)
		for i := range tr.Emb.Len() {
			maxTime = math.Max(maxTime, tr.Emb.Row(i)[0])
		}
		return nil
	}
	if err := tr.Train(); err != nil {
		t.Fatal(err)
	}
	// The run must actually have gone somewhere hyperbolic for the check to mean anything.
	if maxTime < 3 {
		t.Errorf("largest x₀ after training is %.3g; the points never left the origin", maxTime)
	}
	// The same check catches an update that ignores the manifold: a Euclidean step on the space
	// part that keeps the old time coordinate.
	r := append([]float64{}, tr.Emb.Row(0)...)
	EuclideanStep(r[1:], []float64{0.3, -0.2}, 1)
	if dev := math.Abs(cfg.Curvature*minkowskiInner(r, r) + 1); dev <= tol*cfg.Curvature*r[0]*r[0] {
		t.Errorf("a non-Riemannian step kept |c⟨x,x⟩_L + 1| = %.3g within tolerance; the check is blind", dev)
	}
}

func TestOriginDistancesAreHyperbolicNorms(t *testing.T) {
	const c = 2.0
	for _, m := range []Manifold{Lorentz, Poincare} {
		e := &Embedding{Manifold: m, Dim: 2, Curvature: c, Names: []string{"a", "b"}}
		xs := [][]float64{{0.3, -0.4}, {1e-3, 2e-3}} // inside the ball of radius 1/√2 too
		for _, x := range xs {
			if m == Lorentz {
				row := append([]float64{0}, x...)
				LorentzReproject(row, c)
				e.Coords = append(e.Coords, row...)
			} else {
				e.Coords = append(e.Coords, x...)
			}
		}
		got, err := e.OriginDistances(backend.MustNew())
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range xs {
			var want float64
			if m == Lorentz {
				want = refLorentzDistance(x, []float64{0, 0}, c)
			} else {
				want = refPoincareDistance(x, []float64{0, 0}, c)
			}
			if math.Abs(got[i]-want) > 1e-9*math.Max(1, want) {
				t.Errorf("%s point %d: distance from origin %.12g, want %.12g", m, i, got[i], want)
			}
		}
	}
}

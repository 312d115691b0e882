package hierarchy

import (
	"math"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
)

func TestMeasureStabilityShowsTheExpectedRegimes(t *testing.T) {
	rows, err := MeasureStability(backend.MustNew(), []float64{1, 4, 6, 20}, 1)
	if err != nil {
		t.Fatal(err)
	}
	near, r4, r6, far := rows[0], rows[1], rows[2], rows[3]
	// Near the origin every model and dtype gets distance 1 to its rounding error.
	for _, k := range StabilityKeys {
		tol := 1e-12
		if k == "lorentz/float32" || k == "poincare/float32" {
			tol = 1e-5
		}
		if near.Radial[k] > tol || near.Tangential[k] > tol {
			t.Errorf("r=1 %s: errors %.2g / %.2g, want ≤ %g", k, near.Radial[k], near.Tangential[k], tol)
		}
	}
	// Beyond the boundary clamp of lib/geom (r ≈ 12.9) the Poincaré distance is wrong in float64 too.
	if far.Radial["poincare/float64"] < 0.5 {
		t.Errorf("r=20 Poincaré float64 radial error %.2g: the clamp should make it ≥ 0.5", far.Radial["poincare/float64"])
	}
	// ‖∂d/∂p‖ carries the conformal factor 2/(1 − ‖p‖²) ≈ e^r/2: ×e² from r=4 to r=6 (to 5%).
	if ratio := r6.GradNorm["poincare"] / r4.GradNorm["poincare"]; math.Abs(ratio/math.Exp(2)-1) > 0.05 {
		t.Errorf("Poincaré gradient grows ×%.3f from r=4 to r=6, want ≈ e² = %.3f", ratio, math.Exp(2))
	}
	// In space coordinates the Lorentz chart gradient shrinks like 1/‖x‖ ∝ e^−r.
	if ratio := r6.GradNorm["lorentz"] / r4.GradNorm["lorentz"]; math.Abs(ratio*math.Exp(2)-1) > 0.05 {
		t.Errorf("Lorentz gradient changes ×%.4f from r=4 to r=6, want ≈ e⁻² = %.4f", ratio, math.Exp(-2))
	}
}

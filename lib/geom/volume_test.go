package geom

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"

	. "github.com/gomlx/gomlx/core/graph"
)

func TestGramVolumeClosedForms(t *testing.T) {
	// k = 2 unit vectors at angle θ: volume |sin θ| (GRAM App. A).
	thetas := []float64{0, 1e-3, 0.3, math.Pi / 2, 2, math.Pi}
	data := make([]float64, 0, len(thetas)*2*3)
	for _, th := range thetas {
		data = append(data, 1, 0, 0, math.Cos(th), math.Sin(th), 0)
	}
	v := newArray(data, len(thetas), 2, 3)
	got := eval(t, func(in []*Node) *Node { return GramVolume(in[0]) }, v)
	for i, th := range thetas {
		assertClose(t, "k=2 volume = |sin θ|", got[i], math.Abs(math.Sin(th)), 1e-12)
	}

	// Orthonormal vectors give 1, for every k (including the Laplace path k ≥ 4); the lifted ones
	// give √(2k − 1) (√5 at k = 3), since their Lorentzian Gram is I − 2J.
	rng := rand.New(rand.NewPCG(9, 10))
	for k := 2; k <= 6; k++ {
		q := orthonormalRows(rng, k, 7)
		v := newArray(q, 1, k, 7)
		assertClose(t, "orthonormal volume", eval(t, func(in []*Node) *Node { return GramVolume(in[0]) }, v)[0], 1, 1e-12)
		assertClose(t, "lifted orthonormal volume",
			eval(t, func(in []*Node) *Node { return HyperbolicGramVolume(in[0]) }, v)[0], math.Sqrt(float64(2*k-1)), 1e-12)
	}
}

// orthonormalRows returns k orthonormal vectors in R^d (Gram–Schmidt on Gaussian vectors), flat.
func orthonormalRows(rng *rand.Rand, k, d int) []float64 {
	rows := make([][]float64, 0, k)
	for len(rows) < k {
		v := randomVectors(rng, 1, d, 1).data
		for _, r := range rows {
			p := floats.Dot(v, r)
			for j := range v {
				v[j] -= p * r[j]
			}
		}
		n := math.Sqrt(floats.Dot(v, v))
		for j := range v {
			v[j] /= n
		}
		rows = append(rows, v)
	}
	var out []float64
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

func TestGramVolumesMatchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for k := 2; k <= 6; k++ {
		n, d := 5, 8
		v := randomVectors(rng, n*k, d, 1)
		v.dims = []int{n, k, d}
		euc := eval(t, func(in []*Node) *Node { return GramVolume(in[0]) }, v)
		hyp := eval(t, func(in []*Node) *Node { return HyperbolicGramVolume(in[0]) }, v)
		hyb := eval(t, func(in []*Node) *Node { return HybridVolume(ConstAs(in[0], 0.3), in[0]) }, v)
		for b := 0; b < n; b++ {
			vs := make([][]float64, k)
			for p := range vs {
				vs[p] = v.data[(b*k+p)*d : (b*k+p+1)*d]
			}
			we, wh := gramVolumeRef(vs), hyperbolicVolumeRef(vs)
			assertRel(t, "GramVolume", euc[b], we, 1e-11)
			assertRel(t, "HyperbolicGramVolume", hyp[b], wh, 1e-11)
			assertRel(t, "HybridVolume", hyb[b], 0.7*wh+0.3*we, 1e-11)
		}
	}
}

func TestVolumeMatrixMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	b1, b2, d := 4, 5, 9
	for k := 2; k <= 6; k++ {
		anchor := randomVectors(rng, b1, d, 1)
		others := make([]array, k-1)
		for p := range others {
			others[p] = randomVectors(rng, b2, d, 1)
		}
		// Make one data sample collinear with one anchor and repeat a modality: det = 0 exactly.
		copy(others[0].row(2), anchor.row(1))
		if k >= 3 {
			copy(others[1].row(3), others[0].row(3))
		}
		inputs := append([]array{anchor}, others...)
		fns := map[string]func(in []*Node) *Node{
			"VolumeMatrix":           func(in []*Node) *Node { return VolumeMatrix(in[0], in[1:]...) },
			"HyperbolicVolumeMatrix": func(in []*Node) *Node { return HyperbolicVolumeMatrix(in[0], in[1:]...) },
			"HybridVolumeMatrix": func(in []*Node) *Node {
				return HybridVolumeMatrix(ConstAs(in[0], 0.25), in[0], in[1:]...)
			},
		}
		got := map[string][]float64{}
		for name, fn := range fns {
			got[name] = eval(t, fn, inputs...)
		}
		for i := 0; i < b1; i++ {
			for j := 0; j < b2; j++ {
				vs := [][]float64{anchor.row(i)}
				for p := range others {
					vs = append(vs, others[p].row(j))
				}
				we, wh := gramVolumeRef(vs), hyperbolicVolumeRef(vs)
				// Scale of the determinants' rounding: Π‖v_p‖² (Hadamard's bound), lifted: Π(1 + 2‖v_p‖²).
				scaleE, scaleH := 1.0, 1.0
				for _, x := range vs {
					scaleE *= floats.Dot(x, x)
					scaleH *= 1 + 2*floats.Dot(x, x)
				}
				checkVolume(t, "VolumeMatrix", got["VolumeMatrix"][i*b2+j], we, scaleE)
				checkVolume(t, "HyperbolicVolumeMatrix", got["HyperbolicVolumeMatrix"][i*b2+j], wh, scaleH)
				checkVolume(t, "HybridVolumeMatrix", got["HybridVolumeMatrix"][i*b2+j], 0.75*wh+0.25*we, scaleH)
			}
		}
	}
}

// checkVolume compares float64 volumes through their squares, the determinants: |got² − want²| may be
// the determinant's rounding error, 1e-14 of its scale (a zero volume comes out as √rounding).
func checkVolume(t *testing.T, what string, got, want, scale float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got*got-want*want) > 1e-14*scale {
		t.Errorf("%s: got %.12g, want %.12g (determinant scale %.3g)", what, got, want, scale)
	}
}

func TestVolumeGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for k := 2; k <= 5; k++ {
		d := k + 1 // k vectors in R^d, d ≥ k, so the volumes are not identically 0
		v := randomVectors(rng, 2*k, d, 1)
		v.dims = []int{2, k, d}
		checkGradients(t, "GramVolume", func(in []*Node) *Node { return GramVolume(in[0]) }, []array{v})
		checkGradients(t, "HyperbolicGramVolume", func(in []*Node) *Node { return HyperbolicGramVolume(in[0]) }, []array{v})
		checkGradients(t, "HybridVolume", func(in []*Node) *Node { return HybridVolume(in[1], in[0]) }, []array{v, scalarArray(0.4)})

		anchor := randomVectors(rng, 2, d, 1)
		inputs := []array{scalarArray(0.6), anchor}
		for p := 1; p < k; p++ {
			inputs = append(inputs, randomVectors(rng, 3, d, 1))
		}
		checkGradients(t, "VolumeMatrix", func(in []*Node) *Node { return VolumeMatrix(in[1], in[2:]...) }, inputs, 0)
		checkGradients(t, "HyperbolicVolumeMatrix", func(in []*Node) *Node { return HyperbolicVolumeMatrix(in[1], in[2:]...) }, inputs, 0)
		checkGradients(t, "HybridVolumeMatrix", func(in []*Node) *Node { return HybridVolumeMatrix(in[0], in[1], in[2:]...) }, inputs)
	}
}

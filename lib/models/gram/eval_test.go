package gram

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
)

// basisEmbeddings puts sample i of every modality on the direction e_{dir(i)} of R^dim (scaled by
// scale, so that heads are not unit vectors before normalisation), plus a per-modality offset
// eps·e_{dim−1−m}. The offset keeps the data modalities of a tuple apart: were video and audio
// parallel, every anchor would span a zero volume with them, matched or not.
func basisEmbeddings(n, dim int, dir func(i int) int, scale []float32, eps float32) *Embeddings {
	emb := &Embeddings{N: n, Dim: dim}
	for m := range scale {
		rows := make([][]float32, n)
		for i := range rows {
			r := make([]float32, dim)
			r[dir(i)] = scale[m]
			r[dim-1-m] += eps
			rows[i] = r
		}
		emb.Heads = append(emb.Heads, rows)
	}
	return emb
}

// TestPerfectEmbeddingIsPerfectRetrieval: when anchor, video and audio of sample i all point along
// e_i, the matched volume is ≈ 0 and every other tuple spans a large volume, so every score ranks
// the ground truth first in both directions.
func TestPerfectEmbeddingIsPerfectRetrieval(t *testing.T) {
	const n = 20
	emb := basisEmbeddings(n, 32, func(i int) int { return i }, []float32{1, 3, 0.5}, 0.3)
	scores := []Score{
		{Kind: VolumeScore, Geometry: Euclidean},
		{Kind: VolumeScore, Geometry: Hyperbolic},
		{Kind: VolumeScore, Geometry: Hyperbolic, RawLift: true},
		{Kind: VolumeScore, Geometry: Hybrid, Alpha: 0.5},
		{Kind: MeanCosineScore},
		{Kind: CosineScore, Modality: 2},
	}
	for _, s := range scores {
		ev, err := Evaluate(backend.MustNew(), emb, s)
		if err != nil {
			t.Fatal(err)
		}
		if ev.T2V.R(1) != 100 || ev.V2T.R(1) != 100 || ev.T2V.MdR != 1 || ev.T2V.MnR != 1 || ev.T2V.Queries != n {
			t.Errorf("%s: T2V %v, V2T %v; want 100%% R@1", s, ev.T2V, ev.V2T)
		}
	}
	// Reversing the order of the data tuples (a wrong pairing) must give R@1 = 0 (n even: no fixed point).
	wrong := basisEmbeddings(n, 32, func(i int) int { return i }, []float32{1, 3, 0.5}, 0.3)
	for m := 1; m < 3; m++ {
		for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
			wrong.Heads[m][i], wrong.Heads[m][j] = wrong.Heads[m][j], wrong.Heads[m][i]
		}
	}
	ev, err := Evaluate(backend.MustNew(), wrong, Score{Kind: VolumeScore, Geometry: Euclidean})
	if err != nil {
		t.Fatal(err)
	}
	if ev.T2V.R(1) != 0 || ev.V2T.R(1) != 0 {
		t.Errorf("mismatched tuples: T2V R@1 %v, V2T R@1 %v, want 0", ev.T2V.R(1), ev.V2T.R(1))
	}
}

// TestClassLevelRelevance: 12 samples of 3 classes, every sample of class c along e_c (4 near-copies
// per class): class-level R@1 is 100%. A hand-built score matrix checks the "first relevant item"
// rank in both directions.
func TestClassLevelRelevance(t *testing.T) {
	const n = 12
	emb := basisEmbeddings(n, 16, func(i int) int { return i % 3 }, []float32{1, 1, 1}, 0.3)
	emb.Labels = make([]int, n)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range emb.Labels {
		emb.Labels[i] = i % 3
		for m := range emb.Heads { // break ties inside a class without changing the class geometry
			emb.Heads[m][i][12-m] = float32(1e-3 * rng.Float64())
		}
	}
	emb.Relevant = SameLabel(emb.Labels)
	ev, err := Evaluate(backend.MustNew(), emb, Score{Kind: VolumeScore, Geometry: Euclidean})
	if err != nil {
		t.Fatal(err)
	}
	if ev.T2V.R(1) != 100 || ev.V2T.R(1) != 100 || !ev.ClassLevel {
		t.Errorf("class-level: T2V %v, V2T %v; want 100%%", ev.T2V, ev.V2T)
	}
	// Hand-built 4×4 scores, labels [a a b b]. Row 0: items 2 (b) 0.9, 1 (a) 0.8, 0 (a) 0.1 → first
	// relevant (item 1) at rank 2. Row 2: item 3 (b) best → rank 1.
	scores := []float32{
		0.1, 0.8, 0.9, 0.0,
		0.5, 0.4, 0.3, 0.2,
		0.7, 0.6, 0.1, 0.9,
		0.9, 0.1, 0.2, 0.3,
	}
	labels := []int{0, 0, 1, 1}
	got, err := EvaluateScores(scores, 4, SameLabel(labels))
	if err != nil {
		t.Fatal(err)
	}
	// T2V ranks: row 1 (a) best relevant 0.5, nothing above → 1; row 3 (b) best relevant 0.3, item 0
	// (a) 0.9 above → 2. Ranks 2, 1, 1, 2.
	if got.T2V.R(1) != 50 || got.T2V.MnR != 1.5 {
		t.Errorf("hand-built T2V: %v, want R@1 50 and MnR 1.5", got.T2V)
	}
	// V2T (columns): col0 [0.1 0.5 | 0.7 0.9] class a best 0.5, above it 0.7, 0.9 → rank 3;
	// col1 [0.8 0.4 | 0.6 0.1] best 0.8 → 1; col2 [0.9 0.3 | 0.1 0.2] class b best 0.2, above 0.9, 0.3 → 3;
	// col3 [0 0.2 | 0.9 0.3] class b best 0.9 → 1. Ranks 3,1,3,1.
	if got.V2T.R(1) != 50 || got.V2T.MnR != 2 {
		t.Errorf("hand-built V2T: %v, want R@1 50 and MnR 2", got.V2T)
	}
}

// TestMatchedVolumesClosedForms: orthogonal unit vectors span V_euc = 1 and, lifted, V_hyp = √5
// (G_L = I − 2J for k = 3, docs/official-code.md §2); three equal vectors span V_euc = 0 and V_hyp = 0.
func TestMatchedVolumesClosedForms(t *testing.T) {
	emb := &Embeddings{N: 2, Dim: 4}
	for m := 0; m < 3; m++ {
		ortho := make([]float32, 4)
		ortho[m] = 2 // not unit: the volumes normalise first
		same := []float32{0, 0, 0, 5}
		emb.Heads = append(emb.Heads, [][]float32{ortho, same})
	}
	euc, hyp, err := MatchedVolumes(backend.MustNew(), emb, false)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(euc[0]-1) > 1e-6 || math.Abs(hyp[0]-math.Sqrt(5)) > 1e-5 || euc[1] > 1e-3 || hyp[1] > 1e-3 {
		t.Fatalf("V_euc %v, V_hyp %v; want [1 0] and [√5 0]", euc, hyp)
	}
	// Raw lift of orthogonal vectors of norm 2: ⟨π(x), π(y)⟩_L = −(1+4) = −5 off the diagonal,
	// G_L = [[-1 -5 -5] [-5 -1 -5] [-5 -5 -1]], det = −(1) ... computed independently below.
	_, hypRaw, err := MatchedVolumes(backend.MustNew(), emb, true)
	if err != nil {
		t.Fatal(err)
	}
	a, b := -1.0, -5.0
	det := a*(a*a-b*b) - b*(b*a-b*b) + b*(b*b-a*b)
	if math.Abs(hypRaw[0]-math.Sqrt(math.Abs(det))) > 1e-3 {
		t.Fatalf("raw-lift V_hyp %v, want √|det| = %v", hypRaw[0], math.Sqrt(math.Abs(det)))
	}
}

// TestModalityGapClosedForm: modality 0 = {e0, e1}, modality 1 = {e0, −e0}: intra-cosines 0 and −1,
// centroids (½, ½, 0) and 0, distance √½.
func TestModalityGapClosedForm(t *testing.T) {
	emb := &Embeddings{N: 2, Dim: 3, Heads: [][][]float32{
		{{3, 0, 0}, {0, 2, 0}},
		{{1, 0, 0}, {-4, 0, 0}},
	}}
	gap := MeasureModalityGap(emb)
	if math.Abs(gap.IntraCosine[0]) > 1e-12 || math.Abs(gap.IntraCosine[1]+1) > 1e-12 {
		t.Errorf("intra-cosine %v, want [0 −1]", gap.IntraCosine)
	}
	if math.Abs(gap.CentroidDistance[0][1]-math.Sqrt(0.5)) > 1e-12 || gap.CentroidDistance[1][0] != gap.CentroidDistance[0][1] || gap.CentroidDistance[0][0] != 0 {
		t.Errorf("centroid distances %v, want √½ off the diagonal", gap.CentroidDistance)
	}
}

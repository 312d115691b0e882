package gram

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
)

// latentFixture is a tiny tri-modal set: sample i has a latent z_i ~ N(0, I_8); modality m sees
// z_i W_m + noise (fixed random W_m, dims 12/10/9). Labels are i mod classes.
func latentFixture(seed uint64, nTrain, nTest, classes int, noise float64) *Dataset {
	return latentFixtureDims(seed, nTrain, nTest, classes, noise, []int{12, 10, 9})
}

// latentFixtureDims is latentFixture with one modality per entry of dims (k = len(dims)).
func latentFixtureDims(seed uint64, nTrain, nTest, classes int, noise float64, dims []int) *Dataset {
	rng := rand.New(rand.NewPCG(seed, 7))
	const latent = 8
	w := make([][]float64, len(dims))
	for m, d := range dims {
		w[m] = make([]float64, latent*d)
		for i := range w[m] {
			w[m][i] = rng.NormFloat64() / math.Sqrt(latent)
		}
	}
	makeSplit := func(n int) *Split {
		feats := make([][]float32, len(dims))
		labels := make([]int, n)
		for i := 0; i < n; i++ {
			labels[i] = i % classes
			z := make([]float64, latent)
			for j := range z {
				z[j] = rng.NormFloat64()
			}
			for m, d := range dims {
				for c := 0; c < d; c++ {
					x := noise * rng.NormFloat64()
					for j := 0; j < latent; j++ {
						x += z[j] * w[m][j*d+c]
					}
					feats[m] = append(feats[m], float32(x))
				}
			}
		}
		s, err := NewSplit(feats, dims, labels)
		if err != nil {
			panic(err)
		}
		return s
	}
	names := []string{"text", "video", "audio"}
	for m := len(names); m < len(dims); m++ {
		names = append(names, fmt.Sprintf("modality %d", m))
	}
	d := &Dataset{Name: "latent fixture", Kind: report.Synthetic, Modalities: names[:len(dims)],
		Train: makeSplit(nTrain), Test: makeSplit(nTest)}
	d.Standardize()
	return d
}

func tinyConfig() Config {
	c := DefaultConfig()
	c.Hidden, c.ContraDim, c.MatchHidden = 32, 16, 16
	c.BatchSize, c.Epochs, c.LearningRate = 16, 4, 3e-3
	c.Quiet = true
	return c
}

// newTrainer is NewTrainer on the default backend; a failure ends the test.
func newTrainer(t *testing.T, data *Dataset, cfg Config) *Trainer {
	t.Helper()
	tr, err := NewTrainer(backend.MustNew(), data, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// trained is a newTrainer that has run Train to the end.
func trained(t *testing.T, data *Dataset, cfg Config) *Trainer {
	t.Helper()
	tr := newTrainer(t, data, cfg)
	if err := tr.Train(); err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestTrainingLossShapesAndOutputs(t *testing.T) {
	data := latentFixture(1, 64, 32, 4, 0.1)
	for _, cfg := range []Config{tinyConfig(), func() Config { c := tinyConfig(); c.Geometry = Hybrid; return c }(),
		func() Config { c := tinyConfig(); c.Objective = PairwiseCosineObjective; return c }()} {
		store := model.NewStore()
		step, err := train.NewStep(backend.MustNew(), store, ProjectAlpha(train.AdamW(1e-3, 10)),
			func(scope *model.Scope, in []*graph.Node) []*graph.Node {
				outs := TrainingLoss(scope, cfg, in)
				if len(outs) != len(LossOutputs) {
					t.Errorf("%s: %d outputs, want %d", cfg.Name(), len(outs), len(LossOutputs))
				}
				for i, o := range outs {
					if !o.Shape().IsScalar() {
						t.Errorf("%s: output %s has shape %s", cfg.Name(), LossOutputs[i], o.Shape())
					}
				}
				return outs
			})
		if err != nil {
			t.Fatal(err)
		}
		outs, err := step.Run(batchTensors(data.Train, []int{0, 1, 2, 3, 4, 5, 6, 7})...)
		if err != nil {
			t.Fatal(err)
		}
		total, contrastive, dam := outs[0].Value().(float32), outs[1].Value().(float32), outs[2].Value().(float32)
		if math.Abs(float64(total-(contrastive+float32(cfg.DAMWeight)*dam))) > 1e-5 || dam <= 0 {
			t.Errorf("%s: total %v ≠ contrastive %v + %v·DAM %v", cfg.Name(), total, contrastive, cfg.DAMWeight, dam)
		}
		// Contra heads: [B, ContraDim] per modality, the encoder hidden [B, Hidden].
		for _, path := range []string{"/contra_head_0/dense/weights", "/contra_head_2/dense/weights"} {
			v := store.GetVariable(path)
			if v == nil || v.Shape().Dim(1) != cfg.ContraDim {
				t.Fatalf("%s: %s missing or wrong shape", cfg.Name(), path)
			}
		}
		if store.GetVariable("/contra_head_0/dense/biases") != nil {
			t.Errorf("GRAM's contra head must have no bias")
		}
	}
}

func TestEncodeAndEmbedShapes(t *testing.T) {
	data := latentFixture(2, 40, 24, 4, 0.1)
	cfg := tinyConfig()
	cfg.Epochs = 1
	tr := trained(t, data, cfg)
	emb, err := tr.Embed(data.Test)
	if err != nil {
		t.Fatal(err)
	}
	if emb.N != 24 || emb.NumModalities() != 3 || len(emb.Heads[1]) != 24 || len(emb.Heads[1][0]) != cfg.ContraDim {
		t.Fatalf("embeddings: N %d, modalities %d, rows %d, dim %d", emb.N, emb.NumModalities(), len(emb.Heads[1]), len(emb.Heads[1][0]))
	}
	scores, err := ScoreMatrix(backend.MustNew(), emb, tr.ModelScore())
	if err != nil {
		t.Fatal(err)
	}
	if len(scores) != 24*24 {
		t.Fatalf("score matrix has %d entries, want 576", len(scores))
	}
	for _, s := range scores {
		if s > 0 || math.IsNaN(float64(s)) { // −volume ∈ [−1, 0] for unit vectors
			t.Fatalf("score %v outside [−1, 0]", s)
		}
	}
}

// TestAlphaProjection drives α with a loss whose gradient pushes it hard up or down (Adam steps of
// size ≈ lr = 5): after every step α must be exactly on the boundary of [0, 1].
func TestAlphaProjection(t *testing.T) {
	for _, sign := range []float64{1, -1} {
		store := model.NewStore()
		cfg := tinyConfig()
		opt := train.AdamW(5, 100)
		opt.Schedule = train.Constant{}
		step, err := train.NewStep(backend.MustNew(), store, ProjectAlpha(opt), func(scope *model.Scope, in []*graph.Node) []*graph.Node {
			a := Alpha(scope.Store(), in[0].Graph(), cfg)
			return []*graph.Node{graph.Mul(graph.ReduceAllSum(in[0]), a)}
		})
		if err != nil {
			t.Fatal(err)
		}
		want := float32(0)
		if sign < 0 {
			want = 1
		}
		for i := 0; i < 3; i++ {
			if _, err := step.Run([]float32{float32(sign)}); err != nil {
				t.Fatal(err)
			}
			got := store.GetVariable(AlphaPath).MustValue().Value().(float32)
			if got != want {
				t.Fatalf("sign %v step %d: α = %v, want the bound %v", sign, i, got, want)
			}
		}
	}
	// And in real HyperGRAM training with a large learning rate α never leaves [0, 1].
	data := latentFixture(3, 64, 16, 4, 0.1)
	cfg := tinyConfig()
	cfg.Geometry, cfg.LearningRate, cfg.Epochs = Hybrid, 0.3, 2
	tr := trained(t, data, cfg)
	moved := false
	for _, s := range tr.History {
		for _, a := range s.AlphaSteps {
			if a < 0 || a > 1 {
				t.Fatalf("α = %v left [0, 1]", a)
			}
			moved = moved || a != HyperGRAMAlphaInit
		}
	}
	if !moved {
		t.Fatalf("α never moved from its initial value")
	}
}

// TestTrainingLearns trains GRAM on the latent fixture: the epoch loss must fall and the test
// T→V+A R@1 must end far above chance (1/N). It trains on the whole train split, without
// validation (ValFraction 0): selection is TestValidationNeverSeesTest's subject.
func TestTrainingLearns(t *testing.T) {
	data := latentFixture(4, 256, 64, 4, 0.05)
	for _, cfg := range []Config{tinyConfig(), func() Config { c := tinyConfig(); c.Geometry = HyperGRAMConfig().Geometry; return c }()} {
		cfg.Epochs, cfg.ValFraction = 10, 0
		tr := newTrainer(t, data, cfg)
		before, err := tr.Evaluate(data.Test)
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.Train(); err != nil {
			t.Fatal(err)
		}
		first, last := tr.History[0].Loss, tr.History[len(tr.History)-1].Loss
		if !(last < 0.8*first) {
			t.Errorf("%s: loss %v → %v did not fall by 20%%", cfg.Name(), first, last)
		}
		after, err := tr.Evaluate(data.Test)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: loss %.4f → %.4f, test R@1 %.1f → %.1f", cfg.Name(), first, last, before.T2V.R(1), after.T2V.R(1))
		if after.T2V.R(1) < 40 || after.T2V.R(1) <= before.T2V.R(1) {
			t.Errorf("%s: test R@1 %v → %v (chance %.1f)", cfg.Name(), before.T2V.R(1), after.T2V.R(1), 100.0/64)
		}
	}
}

// TestResumeContinuesStepCount trains 2 of 3 epochs with checkpoints, resumes in a new Trainer on the
// same directory, trains the 3rd epoch, and compares the history and every variable, bit for bit,
// with an uninterrupted run (HyperGRAM: α's trajectory; DAM: the store's random state).
func TestResumeContinuesStepCount(t *testing.T) {
	data := latentFixture(5, 60, 16, 4, 0.1)
	cfg := tinyConfig()
	cfg.Geometry, cfg.Epochs, cfg.EvalEvery = Hybrid, 3, 2
	cfg.CheckpointDir = t.TempDir()
	first := newTrainer(t, data, cfg)
	for e := 0; e < 2; e++ { // interrupted after 2 of 3 epochs
		if _, err := first.RunEpoch(); err != nil {
			t.Fatal(err)
		}
	}
	steps := int64(first.StepsPerEpoch())
	resumed := newTrainer(t, data, cfg)
	if resumed.Epoch() != 2 || resumed.GlobalStep() != 2*steps || len(resumed.History) != 2 {
		t.Fatalf("resumed at epoch %d step %d (%d epochs of history), want 2 and %d", resumed.Epoch(), resumed.GlobalStep(), len(resumed.History), 2*steps)
	}
	if err := resumed.Train(); err != nil {
		t.Fatal(err)
	}
	if resumed.GlobalStep() != 3*steps || resumed.History[2].Step != 3*steps {
		t.Fatalf("after the third epoch: step %d, want %d", resumed.GlobalStep(), 3*steps)
	}
	cfg.CheckpointDir = ""
	straight := trained(t, data, cfg)
	sameTraining(t, "uninterrupted vs resumed", straight, resumed)
	if len(straight.History[0].AlphaSteps) != int(steps) || straight.History[1].Eval == nil || straight.History[0].Validation == nil {
		t.Fatalf("history lacks α steps, the test curve or the validation: %+v", straight.History[1])
	}
}

// sameTraining fails unless two trainers have the same history (times aside) and variables.
func sameTraining(t *testing.T, what string, a, b *Trainer) {
	t.Helper()
	if len(a.History) != len(b.History) {
		t.Fatalf("%s: %d epochs vs %d", what, len(a.History), len(b.History))
	}
	for e := range a.History {
		x, y := a.History[e], b.History[e]
		x.Seconds, y.Seconds = 0, 0
		if !reflect.DeepEqual(x, y) {
			t.Fatalf("%s: epoch %d: %+v vs %+v", what, e+1, x, y)
		}
	}
	for v := range a.Store.IterVariables() {
		x, _ := v.Value()
		y, _ := b.Store.GetVariable(v.Path()).Value()
		if !reflect.DeepEqual(x.Value(), y.Value()) {
			t.Fatalf("%s: variable %s differs", what, v.Path())
		}
	}
}

// TestValidationNeverSeesTest: the validation split is carved from train (disjoint from what is
// trained on, together exactly the train split), and training — the model selected included —
// does not depend on the test split at all: two runs whose test splits differ end with the same
// weights and history.
func TestValidationNeverSeesTest(t *testing.T) {
	data := latentFixture(8, 80, 16, 4, 0.1)
	cfg := tinyConfig()
	cfg.Epochs, cfg.Patience = 4, 2
	a := newTrainer(t, data, cfg)
	if a.ValSplit == nil || a.ValSplit.N != 8 || a.TrainSplit.N != 72 {
		t.Fatalf("validation %v of %d, train %d", a.ValSplit != nil, 8, a.TrainSplit.N)
	}
	rows := map[float32]int{} // first feature of each row identifies it (continuous random values)
	for _, s := range []*Split{a.TrainSplit, a.ValSplit} {
		for i := range s.N {
			rows[s.Row(0, i)[0]]++
		}
	}
	for i := range data.Train.N {
		if rows[data.Train.Row(0, i)[0]] != 1 {
			t.Fatalf("train row %d appears %d times in train ∪ validation", i, rows[data.Train.Row(0, i)[0]])
		}
	}
	if err := a.Train(); err != nil {
		t.Fatal(err)
	}
	other := *data
	other.Test = latentFixture(9, 16, 16, 4, 0.1).Test
	b := trained(t, &other, cfg)
	if best, ok := a.Best(); !ok || best.Validation == nil {
		t.Fatal("no best validation epoch")
	}
	sameTraining(t, "with another test split", a, b)
}

// TestInitFromCopiesEncoders: a fresh GRAM model initialised from a trained pairwise model embeds
// exactly like it before its own first step.
func TestInitFromCopiesEncoders(t *testing.T) {
	data := latentFixture(6, 48, 16, 4, 0.1)
	cfg := tinyConfig()
	cfg.Objective, cfg.Epochs = PairwiseCosineObjective, 1
	src := trained(t, data, cfg)
	dst := newTrainer(t, data, tinyConfig())
	if err := dst.InitFrom(src); err != nil {
		t.Fatal(err)
	}
	a, _ := src.Embed(data.Test)
	b, err := dst.Embed(data.Test)
	if err != nil {
		t.Fatal(err)
	}
	for m := range a.Heads {
		for i := range a.Heads[m] {
			for j := range a.Heads[m][i] {
				if a.Heads[m][i][j] != b.Heads[m][i][j] {
					t.Fatalf("modality %d row %d col %d: %v vs %v", m, i, j, a.Heads[m][i][j], b.Heads[m][i][j])
				}
			}
		}
	}
	if err := dst.Train(); err != nil {
		t.Fatal(err)
	}
	if err := dst.InitFrom(src); err == nil {
		t.Fatal("InitFrom after training must fail")
	}
}

// TestAlphaLearningRateMultiplier: α's own learning-rate multiplier changes α's steps only. Adam
// moves a parameter by at most about lr · multiplier · schedule per step (|m̂/√v̂| ≤ 1 for a
// gradient of constant sign), so with multiplier 1 α stays within steps · lr of its start, and with
// 30 it travels further; every other variable trains exactly as with multiplier 1 until α differs.
func TestAlphaLearningRateMultiplier(t *testing.T) {
	data := latentFixture(3, 64, 16, 4, 0.1)
	travel := map[float64]float64{}
	var steps int
	for _, m := range []float64{1, 30} {
		cfg := tinyConfig()
		cfg.Geometry, cfg.Epochs, cfg.AlphaLRMultiplier = Hybrid, 2, m
		tr := trained(t, data, cfg)
		steps = 0
		for _, s := range tr.History {
			for _, a := range s.AlphaSteps {
				travel[m] = math.Max(travel[m], math.Abs(a-HyperGRAMAlphaInit))
				steps++
			}
		}
	}
	lr := tinyConfig().LearningRate
	t.Logf("α travel over %d steps: %g (×1), %g (×30)", steps, travel[1], travel[30])
	if travel[1] == 0 {
		t.Fatalf("α did not move with multiplier 1")
	}
	if bound := float64(steps) * lr * 1.01; travel[1] > bound {
		t.Errorf("multiplier 1: α travelled %g in %d steps, more than steps · lr = %g", travel[1], steps, bound)
	}
	if !(travel[30] > 5*travel[1]) {
		t.Errorf("multiplier 30: α travelled %g, multiplier 1: %g", travel[30], travel[1])
	}
}

// gramVolume64 is √|det G| of the L2-normalised rows vs, G the Gram matrix, by gonum's LU factorisation
// with partial pivoting (mat.Det) in float64: a reference independent of lib/geom's bordered determinants.
func gramVolume64(vs [][]float32) float64 {
	k := len(vs)
	units := make([][]float64, k)
	for p, v := range vs {
		n := 0.0
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		units[p] = make([]float64, len(v))
		for j, x := range v {
			units[p][j] = float64(x) / math.Sqrt(n)
		}
	}
	g := make([][]float64, k)
	for p := range g {
		g[p] = make([]float64, k)
		for q := range g[p] {
			for j := range units[p] {
				g[p][q] += units[p][j] * units[q][j]
			}
		}
	}
	return math.Sqrt(math.Abs(mat.Det(mat.NewDense(k, k, slices.Concat(g...)))))
}

// TestFourAndFiveModalities trains GRAM (volume loss + DAM) on the first k = 4 and k = 5 modalities
// of a five-modality latent fixture, selected with SelectModalities as the k-modality study does:
// the loss falls, the model embeds k modalities, its retrieval score is −√det of the k×k Gram matrix
// of (text_i, m1_j, …, m(k−1)_j) (checked against a float64 elimination), the matched volumes are
// that score's diagonal, and the text → (k−1 modalities) R@1 ends at ten times chance or more.
func TestFourAndFiveModalities(t *testing.T) {
	all := latentFixtureDims(8, 192, 48, 4, 0.05, []int{12, 10, 9, 11, 8})
	for _, k := range []int{4, 5} {
		mods := make([]int, k)
		for m := range mods {
			mods[m] = m
		}
		data, err := all.SelectModalities(mods)
		if err != nil {
			t.Fatal(err)
		}
		cfg := tinyConfig()
		cfg.Epochs = 12
		tr := trained(t, data, cfg)
		first, last := tr.History[0].Loss, tr.History[len(tr.History)-1].Loss
		if !(last < 0.8*first) {
			t.Errorf("k = %d: loss %v → %v did not fall by 20%%", k, first, last)
		}
		emb, err := tr.Embed(data.Test)
		if err != nil {
			t.Fatal(err)
		}
		if emb.NumModalities() != k {
			t.Fatalf("k = %d: %d embedded modalities", k, emb.NumModalities())
		}
		scores, err := ScoreMatrix(backend.MustNew(), emb, tr.ModelScore())
		if err != nil {
			t.Fatal(err)
		}
		n := emb.N
		for _, ij := range [][2]int{{0, 0}, {0, 1}, {5, 17}, {n - 1, 3}, {n - 1, n - 1}} {
			tuple := [][]float32{emb.Heads[0][ij[0]]}
			for m := 1; m < k; m++ {
				tuple = append(tuple, emb.Heads[m][ij[1]])
			}
			if got, want := -float64(scores[ij[0]*n+ij[1]]), gramVolume64(tuple); math.Abs(got-want) > 1e-4 {
				t.Errorf("k = %d: volume(text %d, tuple %d) = %v, float64 reference %v", k, ij[0], ij[1], got, want)
			}
		}
		euc, _, err := MatchedVolumes(backend.MustNew(), emb, false)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			if math.Abs(euc[i]+float64(scores[i*n+i])) > 1e-4 {
				t.Fatalf("k = %d: matched volume %d = %v, score diagonal %v", k, i, euc[i], -scores[i*n+i])
			}
		}
		ev, err := Evaluate(backend.MustNew(), emb, tr.ModelScore())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("k = %d: loss %.3f → %.3f, test T→data R@1 %.1f (chance %.1f)", k, first, last, ev.T2V.R(1), 100.0/float64(n))
		if ev.T2V.R(1) < 10*100.0/float64(n) { // ten times chance

			t.Errorf("k = %d: test R@1 %v (chance %.1f)", k, ev.T2V.R(1), 100.0/float64(n))
		}
	}
}

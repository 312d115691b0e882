package gare

import (
	"bytes"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/gomlx/ml/model"
)

// trainConfig is a GARE small enough to train in a test: 16-d, 4 frames, one temporal layer, ψ
// with dropout (so that the store's random state matters), batch 8.
func trainConfig() Config {
	cfg := smallModelConfig()
	cfg.Batch, cfg.Epochs = 8, 2
	cfg.LearningRate = 1e-3
	return cfg
}

// storeBytes is every variable of a store (weights, optimizer moments and counters, random state).
func storeBytes(s *model.Store) map[string][]byte {
	out := map[string][]byte{}
	for v := range s.IterVariables() {
		v.MustValue().ConstBytes(func(b []byte) { out[v.Path()] = slices.Clone(b) })
	}
	return out
}

func sameStore(t *testing.T, what string, a, b *model.Store) {
	t.Helper()
	va, vb := storeBytes(a), storeBytes(b)
	if len(va) != len(vb) {
		t.Fatalf("%s: %d variables vs %d", what, len(va), len(vb))
	}
	for p, x := range va {
		if !bytes.Equal(x, vb[p]) {
			t.Fatalf("%s: variable %s differs", what, p)
		}
	}
}

func withoutSeconds(rs []train.Record) []train.Record {
	out := slices.Clone(rs)
	for i := range out {
		out[i].Seconds, out[i].XLA = 0, nil // times, and what XLA compiled
	}
	return out
}

// TestValidationNeverSeesTest: without a validation split, Config.ValFraction of the training
// pairs is carved out (disjoint from the pairs trained on, together exactly the given pairs), and
// training never takes a test split at all; the model it ends with is the best validation's — the
// weights of the run directory's best checkpoint, whose validation SumR an independent evaluation
// of the final model on the validation split reproduces. An explicit TrainOptions.Val is used as
// given (nothing carved).
func TestValidationNeverSeesTest(t *testing.T) {
	cfg := trainConfig()
	cfg.Epochs = 3
	d := RandomDataset(90, cfg.TextInputDim, cfg.VideoInputDim, cfg.Frames, 1, 5)
	m := newModel(t, cfg, 1)
	dir := t.TempDir()
	tr := newTrainer(t, m, d, TrainOptions{Seed: 2, Quiet: true, Every: 4, Dir: dir})
	if tr.ValSplit == nil || tr.ValSplit.NumTexts != 9 || tr.TrainSplit.NumTexts != 81 {
		t.Fatalf("validation %v, train %d pairs", tr.ValSplit != nil, tr.TrainSplit.NumTexts)
	}
	pair := map[float32]int{} // the first text feature identifies a pair (continuous random values)
	for i := range d.NumTexts {
		pair[d.Text[i*d.TextDim]] = i
	}
	seen := make([]int, d.NumTexts)
	for _, s := range []*Dataset{tr.TrainSplit, tr.ValSplit} {
		for i := range s.NumTexts {
			j, ok := pair[s.Text[i*s.TextDim]]
			if !ok || s.Video[i*s.Frames*s.VideoDim] != d.Video[j*d.Frames*d.VideoDim] {
				t.Fatalf("%s: pair %d is not a pair of the training data", s.Name, i)
			}
			seen[j]++
		}
	}
	for i, n := range seen {
		if n != 1 {
			t.Fatalf("pair %d appears %d times in trained-on ∪ validation", i, n)
		}
	}
	res, err := tr.Train()
	if err != nil {
		t.Fatal(err)
	}
	if res.Best == nil || len(res.Records) != 8 { // 3 × 10 steps, a record every 4 and at the end
		t.Fatalf("%d records, best %v", len(res.Records), res.Best)
	}
	best, err := train.LoadStore(filepath.Join(dir, train.BestDir))
	if err != nil {
		t.Fatal(err)
	}
	for v := range m.Store.IterVariables() {
		if v.Trainable && !bytes.Equal(storeBytes(m.Store)[v.Path()], storeBytes(best)[v.Path()]) {
			t.Fatalf("the final model's %s is not the best checkpoint's", v.Path())
		}
	}
	rep, err := m.Evaluate(tr.ValSplit)
	if err != nil {
		t.Fatal(err)
	}
	if rep.T2V.SumR != res.Best.Val[retrieval.ValMetric] || rep.V2T.SumR != res.Best.Val["v2t_sumr"] {
		t.Fatalf("the final model's validation SumR %v / %v, the best record's %v", rep.T2V.SumR, rep.V2T.SumR, res.Best.Val)
	}
	t.Logf("best validation at step %d of %d: %v", res.Best.Step, res.Steps, res.Best.Val)

	given := RandomDataset(12, cfg.TextInputDim, cfg.VideoInputDim, cfg.Frames, 1, 6)
	m2 := newModel(t, cfg, 1)
	tr2 := newTrainer(t, m2, d, TrainOptions{Seed: 2, Quiet: true, Val: given})
	if tr2.TrainSplit != d || tr2.ValSplit != given {
		t.Fatal("an explicit validation split was not used as given")
	}
}

// TestResumeContinuesExactly: a run with a directory, stopped after 1 of 2 epochs (RunEpochs) and
// continued by a new model and Trainer on the same directory, ends bit for bit as an uninterrupted
// run — records, validation and every variable (weights, BertAdam's moments and step, the random
// state of ψ's dropout) — with the single-graph step (the default) and the chunked one.
func TestResumeContinuesExactly(t *testing.T) {
	cfg := trainConfig()
	d := RandomDataset(56, cfg.TextInputDim, cfg.VideoInputDim, cfg.Frames, 1, 7)
	for name, chunk := range map[string]int{"single graph": 0, "chunked": 4} {
		t.Run(name, func(t *testing.T) {
			opts := TrainOptions{Seed: 3, Quiet: true, TextChunk: chunk}
			whole := newModel(t, cfg, 1)
			wt := newTrainer(t, whole, d, opts)
			ref, err := wt.Train()
			if err != nil {
				t.Fatal(err)
			}

			opts.Dir = t.TempDir()
			first := newModel(t, cfg, 1)
			ft := newTrainer(t, first, d, opts)
			if _, err := ft.RunEpochs(1); err != nil {
				t.Fatal(err)
			}
			resumed := newModel(t, cfg, 1)
			rt := newTrainer(t, resumed, d, opts)
			res, err := rt.Train()
			if err != nil {
				t.Fatal(err)
			}
			if res.ResumedAt != 6 || len(rt.History) != 6 || rt.History[0].Step != 7 {
				t.Fatalf("resumed at step %d, then %d steps from %+v", res.ResumedAt, len(rt.History), rt.History[0])
			}
			if !reflect.DeepEqual(withoutSeconds(res.Records), withoutSeconds(ref.Records)) || res.Best.Step != ref.Best.Step {
				t.Fatalf("records:\n%+v\n%+v", res.Records, ref.Records)
			}
			sameStore(t, "resumed vs uninterrupted", resumed.Store, whole.Store)
		})
	}
}

// TestOnStepProbes: OnStep is called before the first step, every Every steps and after the last,
// and the loop's records follow the same steps.
func TestOnStepProbes(t *testing.T) {
	cfg := trainConfig()
	cfg.Epochs, cfg.ValFraction = 1, 0
	m := newModel(t, cfg, 1)
	var calls []int
	tr, err := m.NewTrainer(RandomDataset(40, cfg.TextInputDim, cfg.VideoInputDim, cfg.Frames, 1, 8), TrainOptions{
		Quiet: true, Every: 2, OnStep: func(step int) error { calls = append(calls, step); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	res, err := tr.Train()
	if err != nil {
		t.Fatal(err)
	}
	var recorded []int
	for _, r := range res.Records {
		recorded = append(recorded, r.Step)
	}
	if !slices.Equal(calls, []int{0, 2, 4, 5}) || !slices.Equal(recorded, []int{2, 4, 5}) || res.Best != nil {
		t.Fatalf("OnStep at %v, records at %v (want 0 2 4 5 and 2 4 5), best %v", calls, recorded, res.Best)
	}
}

// TestScorerRefreshSeesNewWeights: a scorer kept while the weights change (validation during
// training) scores, after Refresh, exactly as a scorer built on the new weights — not as it did
// before.
func TestScorerRefreshSeesNewWeights(t *testing.T) {
	cfg := trainConfig()
	m := newModel(t, cfg, 1)
	d := RandomDataset(10, cfg.TextInputDim, cfg.VideoInputDim, cfg.Frames, 1, 9)
	kept := newScorer(t, m, d, ScorerOptions{TextBlock: 4, VideoBlock: 4})
	before := scoreMatrix(t, kept)
	other := newModel(t, cfg, 2) // other weights, copied into m
	for v := range other.Store.IterVariables() {
		if w := m.Store.GetVariable(v.Path()); w != nil && v.Trainable {
			clone, err := v.MustValue().LocalClone()
			if err == nil {
				err = w.SetValue(clone)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := kept.Refresh(); err != nil {
		t.Fatal(err)
	}
	after := scoreMatrix(t, kept)
	fresh := newScorer(t, m, d, ScorerOptions{TextBlock: 4, VideoBlock: 4})
	want := scoreMatrix(t, fresh)
	if !slices.Equal(after.Data, want.Data) || slices.Equal(after.Data, before.Data) {
		t.Fatal("the refreshed scorer does not score with the new weights")
	}
}

// TestWeightsRoundTrip: SaveWeights then LoadWeights into a model of another seed gives the saved
// model's parameters exactly; saving again over the same path replaces it.
func TestWeightsRoundTrip(t *testing.T) {
	cfg := trainConfig()
	a := newModel(t, cfg, 1)
	b := newModel(t, cfg, 2)
	path := filepath.Join(t.TempDir(), "model.weights")
	for range 2 {
		if err := a.SaveWeights(path); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.LoadWeights(path); err != nil {
		t.Fatal(err)
	}
	sa, sb := storeBytes(a.Store), storeBytes(b.Store)
	for v := range a.Store.IterVariables() {
		if v.Trainable && !bytes.Equal(sa[v.Path()], sb[v.Path()]) {
			t.Fatalf("%s differs after the round trip", v.Path())
		}
	}
	if err := b.LoadWeights(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("loading a missing checkpoint succeeded")
	}
}

// The code's weight-decay grouping (main_retrieval.py: exempt when the name contains "bias",
// "LayerNorm.bias" or "LayerNorm.weight") on GARE's parameter names exempts the biases only; with
// ExemptNormGains the LayerNorm gains are exempt too.
func TestCodeNoDecay(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Dim, cfg.TextInputDim, cfg.VideoInputDim, cfg.TemporalLayers, cfg.TemporalHeads, cfg.Frames = 8, 4, 4, 1, 2, 3
	m := newModel(t, cfg, 1)
	for _, exempt := range []bool{false, true} {
		m.Config.ExemptNormGains = exempt
		opt := m.Optimizer(10)
		gains, biases, weights := 0, 0, 0
		for v := range m.Store.IterVariables() {
			p := v.Path()
			official := strings.Contains(p, "bias") // the code's names hold "bias" exactly where ours end in /bias
			switch {
			case strings.HasSuffix(p, "/gain"):
				gains++
				if opt.NoDecay(p) != exempt {
					t.Errorf("ExemptNormGains %t: gain %s exempt = %t", exempt, p, opt.NoDecay(p))
				}
			case official:
				biases++
				if !opt.NoDecay(p) {
					t.Errorf("bias %s is decayed", p)
				}
			case strings.HasSuffix(p, "/weights"):
				weights++
				if opt.NoDecay(p) {
					t.Errorf("weight %s is exempt", p)
				}
			}
		}
		if gains == 0 || biases == 0 || weights == 0 {
			t.Fatalf("found %d gains, %d biases, %d weights: the model's parameter names changed", gains, biases, weights)
		}
	}
}

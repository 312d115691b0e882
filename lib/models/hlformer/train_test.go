package hlformer

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/data/synth"
	"github.com/geoalign/geoalign/lib/retrieval"
	"github.com/geoalign/geoalign/lib/train"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// tinyWorld is a small synthetic PRVR world (lib/data/synth) cut into train and test videos.
func tinyWorld(t *testing.T, videos int) (trainSplit, testSplit *prvr.Split) {
	t.Helper()
	s, _, err := synth.GeneratePRVR(synth.PRVRConfig{Seed: 5, Depth: 2, Branching: 3, LatentDim: 6, LevelDecay: 0.6,
		Videos: videos, MomentsMin: 2, MomentsMax: 3, FramesMin: 3, FramesMax: 6, FrameDim: 6, QueryDim: 5,
		QueriesPerVideo: 2, QueryTokens: 3, FrameNoise: 0.1, TokenNoise: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, videos)
	for i := range idx {
		idx[i] = i
	}
	cut := videos * 3 / 4
	return s.SubsetVideos(idx[:cut], "train"), s.SubsetVideos(idx[cut:], "test")
}

func tinyTrainConfig() Config {
	c := tinyConfig()
	c.FrameLen = 16
	return c
}

func TestPlanEpochInvariants(t *testing.T) {
	tr, _ := tinyWorld(t, 40)
	plans := PlanEpoch(tr, 8, 4, rand.New(rand.NewPCG(1, 1)))
	if len(plans) != tr.NumVideos()/8 {
		t.Fatalf("%d batches for %d videos", len(plans), tr.NumVideos())
	}
	seen := map[int]bool{}
	for _, p := range plans {
		if len(p.Queries)%4 != 0 || len(p.Queries) < 8 {
			t.Fatalf("batch has %d queries: not a multiple of 4 ≥ 8", len(p.Queries))
		}
		perVideo := make([]int, len(p.Videos))
		for i, q := range p.Queries {
			if p.Videos[p.Labels[i]] != tr.QueryVideo[q] {
				t.Fatalf("query %d labelled with video %d, belongs to %d", q, p.Videos[p.Labels[i]], tr.QueryVideo[q])
			}
			if i > 0 && p.Labels[i] < p.Labels[i-1] {
				t.Fatal("labels are not in contiguous blocks")
			}
			perVideo[p.Labels[i]]++
		}
		for i, n := range perVideo {
			if n == 0 {
				t.Fatalf("video %d lost all its queries", p.Videos[i])
			}
		}
		for _, v := range p.Videos {
			if seen[v] {
				t.Fatalf("video %d in two batches", v)
			}
			seen[v] = true
		}
	}
}

func TestVideoInputsPadAndDownsample(t *testing.T) {
	tr, _ := tinyWorld(t, 8)
	c := tinyTrainConfig()
	c.FrameLen = 5 // shorter than every video: down-sampled with prvr.UniformSample
	_, frames, mask := VideoInputs(tr, []int{0, -1}, c, dtypes.Float64)
	f, n := tr.VideoFrames(0)
	want, _ := prvr.UniformSample(f, n, tr.Dim, 5)
	got := tensors.MustCopyFlatData[float64](frames)
	for i, w := range want {
		if math.Abs(got[i]-float64(w)) > 1e-7 {
			t.Fatalf("frame value %d: %g, want %g", i, got[i], w)
		}
	}
	m := tensors.MustCopyFlatData[float64](mask)
	for i, v := range m {
		if want := map[bool]float64{true: 1, false: 0}[i < 5]; v != want {
			t.Fatalf("mask[%d] = %g, want %g (padding video must be masked)", i, v, want)
		}
	}
}

// The total is the weighted sum of the terms (docs/official-code.md §3.3), and a zero weight removes a term.
func TestLossIsWeightedSumOfTerms(t *testing.T) {
	tr, _ := tinyWorld(t, 16)
	c := tinyTrainConfig()
	m := &Model{Config: c}
	lc := CharadesLoss()
	p := PlanEpoch(tr, 6, 0, rand.New(rand.NewPCG(2, 2)))[0]
	inputs := BatchInputs(tr, p, c, dtypes.Float64)
	args := []any{}
	for _, x := range inputs {
		args = append(args, x)
	}
	args = append(args, true)
	store := newTestStore(t, 3)
	out := runExec(t, store, func(scope *model.Scope, in []*graph.Node) []*graph.Node {
		b := Batch{Clips: in[0], Frames: in[1], FrameMask: in[2], Tokens: in[3], TokenMask: in[4], Labels: in[5]}
		return m.Loss(scope, b, in[6], lc).Outputs()
	}, args...)
	v := make([]float64, len(out))
	for i, o := range out {
		v[i] = o.Value().(float64)
	}
	want := lc.ClipNCE*v[1] + v[2] + lc.FrameNCE*v[3] + v[4] + lc.Diversity*v[5] + lc.POP*v[6]
	assertClose(t, "total", []float64{v[0]}, []float64{want}, 1e-12)
	for i, name := range LossTermNames {
		if i > 0 && i < 7 && (v[i] < 0 || math.IsNaN(v[i])) {
			t.Fatalf("term %s = %g", name, v[i])
		}
	}
	if v[7] != CurvatureInit {
		t.Fatalf("curvature output %g, want %g", v[7], CurvatureInit)
	}
}

// Acceptance 1: the Lorentz branch stays on the hyperboloid through training. A tiny HLFormer is trained
// (float32, the training dtype) for 30 BertAdam steps at a large learning rate, and after every 10 steps
// every point of every Lorentz block — the exp-mapped inputs on L^n and the per-head queries, keys,
// values and centroids on L^{m−1} — satisfies ⟨x, x⟩_L = −1 (k = 1).
func TestLorentzBranchStaysOnHyperboloidThroughTraining(t *testing.T) {
	tr, _ := tinyWorld(t, 24)
	c := tinyTrainConfig()
	m := &Model{Config: c}
	lc := CharadesLoss()
	store := newTestStore(t, 4)
	be := backend.MustNew()
	opt := train.BertAdam(3e-3, 30)
	step, err := train.NewStep(be, store, opt, func(scope *model.Scope, in []*graph.Node) []*graph.Node {
		b := Batch{Clips: in[0], Frames: in[1], FrameMask: in[2], Tokens: in[3], TokenMask: in[4], Labels: in[5]}
		return m.Loss(scope, b, in[6], lc).Outputs()
	})
	if err != nil {
		t.Fatal(err)
	}
	plans := PlanEpoch(tr, 6, 0, rand.New(rand.NewPCG(3, 3)))
	probe := BatchInputs(tr, plans[0], c, dtypes.Float32)
	var names []string
	traced := &Model{Config: c}
	check := func(after int) {
		names = names[:0]
		var points []*graph.Node
		traced.Trace = func(name string, bt BlockTrace) {
			for i, tr := range bt.Lorentz {
				names = append(names, fmt.Sprintf("%s/lorentz_%d", name, i))
				points = append(points, tr.Input, tr.Query, tr.Key, tr.Value, tr.Centroid)
			}
		}
		exec, err := model.NewExec(be, store, func(scope *model.Scope, clips, frames, mask *graph.Node) []*graph.Node {
			points = points[:0]
			traced.EncodeClips(scope, clips)
			traced.EncodeFrames(scope, frames, mask)
			return points
		})
		if err != nil {
			t.Fatal(err)
		}
		outs, err := exec.Exec(probe[0], probe[1], probe[2])
		if err != nil {
			t.Fatal(err)
		}
		if len(outs) != 5*2*len(c.LorentzWidths) {
			t.Fatalf("traced %d tensors from blocks %v", len(outs), names)
		}
		for i, o := range outs {
			assertOnHyperboloid(t, names[i/5]+" after "+itoa(after)+" steps", o, 1e-5)
		}
	}
	check(0)
	for s := 1; s <= 30; s++ {
		in := BatchInputs(tr, plans[s%len(plans)], c, dtypes.Float32)
		if _, err := step.Run(in[0], in[1], in[2], in[3], in[4], in[5], s > 15); err != nil {
			t.Fatal(err)
		}
		if s%10 == 0 {
			check(s)
		}
	}
	// The training moved the Lorentz attention's parameters.
	s := store.GetVariable("/clip/encoder/lorentz_0/attention/attention/logit_scale").MustValue().Value().(float32)
	if math.Abs(float64(s)-math.Sqrt(float64(c.LorentzDim+1))) < 1e-4 {
		t.Fatalf("logit scale %g did not move from its init", s)
	}
}

func itoa(i int) string { return string(rune('0'+i/10)) + string(rune('0'+i%10)) }

// The clamped scalars are clamped in place before the step: a curvature set above 10 and an α set above
// 0 come back (after one small step) next to their bounds, as with the code's `p.data = clamp(p.data)`.
func TestClampedScalarsAreProjected(t *testing.T) {
	tr, _ := tinyWorld(t, 16)
	c := tinyTrainConfig()
	m := &Model{Config: c}
	store := newTestStore(t, 5)
	opt := train.BertAdam(1e-6, 10)
	step, err := train.NewStep(backend.MustNew(), store, opt, func(scope *model.Scope, in []*graph.Node) []*graph.Node {
		b := Batch{Clips: in[0], Frames: in[1], FrameMask: in[2], Tokens: in[3], TokenMask: in[4], Labels: in[5]}
		return m.Loss(scope, b, in[6], CharadesLoss()).Outputs()
	})
	if err != nil {
		t.Fatal(err)
	}
	in := BatchInputs(tr, PlanEpoch(tr, 6, 0, rand.New(rand.NewPCG(4, 4)))[0], c, dtypes.Float32)
	run := func() {
		if _, err := step.Run(in[0], in[1], in[2], in[3], in[4], in[5], false); err != nil {
			t.Fatal(err)
		}
	}
	run() // creates the variables
	set := func(path string, v float32) {
		store.GetVariable(path).MustSetValue(tensors.FromValue(v))
	}
	set("/pop/curv", float32(math.Log(50)))
	set("/clip/encoder/lorentz_1/attention/scale_alpha", 1)
	run()
	get := func(path string) float64 {
		return float64(store.GetVariable(path).MustValue().Value().(float32))
	}
	if v := get("/pop/curv"); math.Abs(v-math.Log(CurvatureMax)) > 1e-4 {
		t.Fatalf("curv = %g after the step, want ≈ log 10 = %g", v, math.Log(CurvatureMax))
	}
	if v := get("/clip/encoder/lorentz_1/attention/scale_alpha"); math.Abs(v) > 1e-4 {
		t.Fatalf("scale_alpha = %g after the step, want ≈ 0", v)
	}
}

// trainTiny trains a fresh tiny HLFormer (single-graph step, the studies' step) for 3 epochs with hard
// negatives from the second, on lib/train's loop in dir: all at once (pause < 0), or pausing after pause
// epochs and resuming with a new Trainer on the same directory, as after an interruption.
func trainTiny(t *testing.T, tr, val *prvr.Split, dir string, pause int) (*Result, *model.Store) {
	t.Helper()
	tc := TrainConfig{Epochs: 3, BatchVideos: 8, QueryBucket: 4, LearningRate: 1e-3, HardNegativeStart: 1,
		Seed: 1, CheckpointDir: dir, VideoChunk: SingleGraphStep}
	newTrainer := func() *Trainer {
		m, err := New(tinyTrainConfig())
		if err != nil {
			t.Fatal(err)
		}
		tt, err := NewTrainer(backend.MustNew(), m, CharadesLoss(), tc, tr, val)
		if err != nil {
			t.Fatal(err)
		}
		return tt
	}
	if pause >= 0 {
		res, err := newTrainer().RunEpochs(pause)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.History) != pause || res.Stopped != "" {
			t.Fatalf("paused after %d epochs: %d records, stopped %q", pause, len(res.History), res.Stopped)
		}
	}
	tt := newTrainer()
	res, err := tt.Train()
	if err != nil {
		t.Fatal(err)
	}
	return res, tt.Store
}

// storeBytes are the raw values of every variable of a store, by path.
func storeBytes(s *model.Store) map[string][]byte {
	out := map[string][]byte{}
	for v := range s.IterVariables() {
		v.MustValue().ConstBytes(func(b []byte) { out[v.Path()] = slices.Clone(b) })
	}
	return out
}

// Training HLFormer on lib/train's loop, interrupted after the first epoch and resumed from its
// checkpoint by a new Trainer, ends bit for bit as an uninterrupted run: the same records (losses,
// validation metrics, best marks) and the same variables (weights, optimizer moments, random state).
// A finished run is not trained further.
func TestTrainResumeMatchesUninterrupted(t *testing.T) {
	backend.SkipOnXLA(t, "trains HLFormer three times (minutes of XLA compiling each) to check checkpointing, which is host code "+
		"checked here on the Go backend; resuming on XLA: lib/models/gare's TestResumeContinuesExactly and the CLI's TestResumeEqualsUninterrupted/gare")
	tr, val := tinyWorld(t, 40)
	whole, sw := trainTiny(t, tr, val, t.TempDir(), -1)
	dir := t.TempDir()
	resumed, sr := trainTiny(t, tr, val, dir, 1)
	strip := func(h []EpochStats) []EpochStats {
		out := slices.Clone(h)
		for i := range out {
			out[i].Duration = 0
		}
		return out
	}
	if len(whole.History) != 3 || whole.Steps != 3*(tr.NumVideos()/8) || whole.History[0].Hard || !whole.History[1].Hard {
		t.Fatalf("uninterrupted run: %d epochs, %d steps, hard %v %v", len(whole.History), whole.Steps, whole.History[0].Hard, whole.History[1].Hard)
	}
	if !reflect.DeepEqual(strip(whole.History), strip(resumed.History)) || whole.Steps != resumed.Steps || whole.BestEpoch != resumed.BestEpoch {
		t.Fatalf("histories differ:\n%+v\n%+v", strip(whole.History), strip(resumed.History))
	}
	if resumed.Loop.ResumedAt != tr.NumVideos()/8 {
		t.Fatalf("resumed at step %d, want %d (after epoch 1)", resumed.Loop.ResumedAt, tr.NumVideos()/8)
	}
	vw, vr := storeBytes(sw), storeBytes(sr)
	if len(vw) == 0 || len(vw) != len(vr) {
		t.Fatalf("%d variables vs %d", len(vw), len(vr))
	}
	for path, b := range vw {
		if !bytes.Equal(b, vr[path]) {
			t.Fatalf("variable %s differs between the uninterrupted and the resumed run", path)
		}
	}
	again, sa := trainTiny(t, tr, val, dir, -1)
	if again.Loop.ResumedAt != again.Steps || !reflect.DeepEqual(strip(again.History), strip(resumed.History)) {
		t.Fatalf("a finished run was trained further: resumed at %d of %d steps", again.Loop.ResumedAt, again.Steps)
	}
	for path, b := range storeBytes(sa) {
		if !bytes.Equal(b, vr[path]) {
			t.Fatalf("reopened finished run: variable %s is not the selected model's", path)
		}
	}
}

// Model selection reads the validation split only: every epoch is validated on its queries, the best
// epoch is the one with the highest validation SumR, and the model the run returns (the store, and
// train.BestDir of the run directory) is that epoch's — evaluated again on the validation split it
// gives the best epoch's metrics exactly.
func TestTrainSelectsOnValidation(t *testing.T) {
	backend.SkipOnXLA(t, "trains HLFormer to check which epoch is kept, host code checked here on the Go backend; HLFormer trains "+
		"and evaluates on XLA in the CLI's TestTrainEvalHLFormer")
	tr, val := tinyWorld(t, 40)
	dir := t.TempDir()
	res, store := trainTiny(t, tr, val, dir, -1)
	best := 0
	for i, h := range res.History {
		if h.Val.Queries != val.NumQueries() || len(h.Val.Recall) != len(retrieval.PRVRKs) {
			t.Fatalf("epoch %d validated on %d queries with cut-offs %v; the validation split has %d", i, h.Val.Queries, h.Val.Ks, val.NumQueries())
		}
		if h.Val.SumR > res.History[best].Val.SumR {
			best = i
		}
	}
	if res.BestEpoch != best || !res.History[best].Best || res.Best.SumR != res.History[best].Val.SumR {
		t.Fatalf("best epoch %d (SumR %g), want %d of %+v", res.BestEpoch, res.Best.SumR, best, res.History)
	}
	saved, err := train.LoadStore(filepath.Join(dir, train.BestDir))
	if err != nil {
		t.Fatal(err)
	}
	m := &Model{Config: tinyTrainConfig()}
	for name, s := range map[string]*model.Store{"returned store": store, "best/ checkpoint": saved} {
		e, err := NewEvaluator(backend.MustNew(), m, s, dtypes.Float32)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := e.EvaluateStream(val)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.T2V.Recall, res.Best.Recall) || got.T2V.SumR != res.Best.SumR || got.T2V.MnR != res.Best.MnR {
			t.Fatalf("%s: validation %v, the selected epoch had %v", name, got.T2V, res.Best)
		}
	}
}

// The Go backend embeds the variables of inference graphs as constants; the Evaluator's executables
// are reused across epochs, so they must see the weights of the latest step, exactly as a freshly built
// Evaluator does.
func TestEvaluatorSeesUpdatedWeights(t *testing.T) {
	tr, te := tinyWorld(t, 40)
	c := tinyTrainConfig()
	m := &Model{Config: c}
	store := newTestStore(t, 1)
	be := backend.MustNew()
	step, err := train.NewStep(be, store, train.BertAdam(1e-2, 100), func(scope *model.Scope, in []*graph.Node) []*graph.Node {
		b := Batch{Clips: in[0], Frames: in[1], FrameMask: in[2], Tokens: in[3], TokenMask: in[4], Labels: in[5]}
		return m.Loss(scope, b, in[6], CharadesLoss()).Outputs()
	})
	if err != nil {
		t.Fatal(err)
	}
	reused, err := NewEvaluator(be, m, store, dtypes.Float32)
	if err != nil {
		t.Fatal(err)
	}
	in := BatchInputs(tr, PlanEpoch(tr, 8, 4, rand.New(rand.NewPCG(1, 1)))[0], c, dtypes.Float32)
	var first []float32
	for i := 0; i < 2; i++ {
		if _, err := step.Run(in[0], in[1], in[2], in[3], in[4], in[5], false); err != nil {
			t.Fatal(err)
		}
		got, err := reused.Encode(te)
		if err != nil {
			t.Fatal(err)
		}
		fresh, _ := NewEvaluator(be, m, store, dtypes.Float32)
		want, err := fresh.Encode(te)
		if err != nil {
			t.Fatal(err)
		}
		for j := range want.QueryVecs {
			if got.QueryVecs[j] != want.QueryVecs[j] {
				t.Fatalf("step %d: reused evaluator query value %d = %g, fresh evaluator %g", i, j, got.QueryVecs[j], want.QueryVecs[j])
			}
		}
		if i == 0 {
			first = got.QueryVecs
		} else if first[0] == got.QueryVecs[0] && first[1] == got.QueryVecs[1] {
			t.Fatal("query embeddings did not change after a training step")
		}
	}
}

// With one branch switched off (Table 2's "w/o gaze" / "w/o glance"), evaluation still runs and every
// score is the remaining branch's max over time of ⟨q̂, x̂_t⟩, recomputed here in float64 from the
// embeddings (the weight of the remaining branch: Similarity leaves the missing one out).
func TestEvaluatorWithOneBranch(t *testing.T) {
	_, te := tinyWorld(t, 40)
	noGaze, noGlance := tinyTrainConfig(), tinyTrainConfig()
	noGaze.Gaze, noGlance.Glance = false, false
	for name, c := range map[string]Config{"w/o gaze": noGaze, "w/o glance": noGlance} {
		m := &Model{Config: c}
		e, err := NewEvaluator(backend.MustNew(), m, newTestStore(t, 1), dtypes.Float32)
		if err != nil {
			t.Fatal(err)
		}
		em, err := e.Encode(te)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		scores, err := e.Scores(em)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ctx := em.Clips
		if !c.Glance {
			ctx = em.Frames
		}
		d := em.Dim
		steps := len(ctx) / em.Videos / d
		for q := 0; q < em.Queries; q++ {
			for vid := 0; vid < em.Videos; vid++ {
				best := math.Inf(-1)
				for s := 0; s < steps; s++ {
					dot := 0.0
					for k := 0; k < d; k++ {
						dot += float64(em.QueryVecs[q*d+k]) * float64(ctx[(vid*steps+s)*d+k])
					}
					best = math.Max(best, dot)
				}
				if got := float64(scores[q*em.Videos+vid]); math.Abs(got-best) > 1e-5 {
					t.Fatalf("%s: score[%d, %d] = %g, float64 max over time %g", name, q, vid, got, best)
				}
			}
		}
	}
}

// The code's weight-decay grouping (src/Opts/builder.py: exempt when the name contains "bias",
// "LayerNorm.bias" or "LayerNorm.weight") on a trained model's variables: biases, LayerNorm offsets
// and the gains of LinearLayer's and the position embedding's LayerNorm (the code's self.LayerNorm)
// and the Lorentz attention's logit bias (the code's LorentzMultiHeadedAttention.bias) are exempt;
// the blocks' norm1/norm2 gains (the code's names), weights and embeddings are decayed.
func TestCodeNoDecay(t *testing.T) {
	backend.SkipOnXLA(t, "trains HLFormer to read its variables' names, which do not depend on the backend (checked here on the Go backend)")
	tr, val := tinyWorld(t, 40)
	_, store := trainTiny(t, tr, val, t.TempDir(), -1)
	seen := map[string]int{}
	for v := range store.IterVariables() {
		p := v.Path()
		if !v.Trainable || strings.Contains(p, "bertadam") {
			continue
		}
		var want bool
		switch {
		case strings.HasSuffix(p, "/logit_bias"):
			want, seen["logit bias"] = true, seen["logit bias"]+1
		case strings.HasSuffix(p, "/biases"), strings.HasSuffix(p, "/offset"):
			want, seen["bias"] = true, seen["bias"]+1
		case strings.HasSuffix(p, "/norm/layer_normalization/gain"):
			want, seen["LayerNorm gain"] = true, seen["LayerNorm gain"]+1
		case strings.HasSuffix(p, "/norm1/layer_normalization/gain"), strings.HasSuffix(p, "/norm2/layer_normalization/gain"):
			want, seen["block gain"] = false, seen["block gain"]+1
		case strings.HasSuffix(p, "/weights"), strings.HasSuffix(p, "/embeddings"):
			want, seen["weight"] = false, seen["weight"]+1
		default:
			if strings.Contains(p, "norm") {
				t.Logf("unclassified %s", p)
			}
			continue
		}
		if got := CodeNoDecay(p); got != want {
			t.Errorf("CodeNoDecay(%s) = %t, want %t", p, got, want)
		}
	}
	for _, k := range []string{"bias", "logit bias", "LayerNorm gain", "block gain", "weight"} {
		if seen[k] == 0 {
			t.Errorf("no %s among the variables %v: the model's names changed", k, seen)
		}
	}
}

// Batching with the partial batch kept (the code's DataLoader, drop_last=False) puts every video
// with queries in exactly one batch per epoch, the last one smaller; dropping it (PlanEpoch) gives
// the same full batches from the same generator state.
func TestBatchingPartial(t *testing.T) {
	tr, _ := tinyWorld(t, 40)
	keep := Batching{Videos: 12, QueryBucket: 4}.Plan(tr, rand.New(rand.NewPCG(5, 5)))
	drop := PlanEpoch(tr, 12, 4, rand.New(rand.NewPCG(5, 5)))
	full := tr.NumVideos() / 12
	if len(drop) != full || len(keep) != full+1 || len(keep[full].Videos) != tr.NumVideos()%12 {
		t.Fatalf("%d videos: %d batches kept (last %d videos), %d dropped", tr.NumVideos(), len(keep), len(keep[len(keep)-1].Videos), len(drop))
	}
	seen := map[int]int{}
	for i, p := range keep {
		if i < full && !slices.Equal(p.Videos, drop[i].Videos) {
			t.Errorf("batch %d: %v kept, %v dropped", i, p.Videos, drop[i].Videos)
		}
		for _, v := range p.Videos {
			seen[v]++
		}
	}
	for v := range tr.NumVideos() {
		if seen[v] != 1 {
			t.Errorf("video %d in %d batches", v, seen[v])
		}
	}
	// A split smaller than one batch is one batch; a last batch of one video (no negative) is not one.
	if p := (Batching{Videos: 64}).Plan(tr, rand.New(rand.NewPCG(1, 1))); len(p) != 1 || len(p[0].Videos) != tr.NumVideos() {
		t.Errorf("%d videos in batches of 64: %d batches", tr.NumVideos(), len(p))
	}
	if p := (Batching{Videos: tr.NumVideos() - 1}).Plan(tr, rand.New(rand.NewPCG(1, 1))); len(p) != 1 {
		t.Errorf("a last batch of one video was kept: %d batches", len(p))
	}
}

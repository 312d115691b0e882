package hlformer

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/data/synth"
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

// The total is the weighted sum of the terms (spec §3.3), and a zero weight removes a term.
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

// Train runs epochs, evaluates through lib/retrieval, checkpoints, and resumes where it stopped.
func TestTrainCheckpointAndResume(t *testing.T) {
	tr, te := tinyWorld(t, 40)
	c := tinyTrainConfig()
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var log bytes.Buffer
	tc := TrainConfig{Epochs: 3, BatchVideos: 8, QueryBucket: 4, LearningRate: 1e-3, HardNegativeStart: 1,
		Seed: 1, CheckpointDir: dir, Log: &log, EpochsPerCall: 2}
	res, err := Train(backend.MustNew(), m, CharadesLoss(), tc, tr, te)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.History) != 2 || res.Steps != 2*(tr.NumVideos()/8) || !res.History[1].Hard || res.History[0].Hard {
		t.Fatalf("history %+v, steps %d", res.History, res.Steps)
	}
	if res.Best.Queries != te.NumQueries() || len(res.Best.Recall) != 4 {
		t.Fatalf("best metrics %+v", res.Best)
	}
	// The next call resumes at epoch 2 and finishes the schedule.
	res2, err := Train(backend.MustNew(), m, CharadesLoss(), tc, tr, te)
	if err != nil {
		t.Fatal(err)
	}
	if len(res2.History) != 1 || res2.History[0].Epoch != 2 || res2.TotalSteps != 3*(tr.NumVideos()/8) {
		t.Fatalf("resumed history %+v, total steps %d", res2.History, res2.TotalSteps)
	}
	if !bytes.Contains(log.Bytes(), []byte("resuming at epoch 2")) {
		t.Fatalf("log:\n%s", log.String())
	}
	// A finished run is not trained further: its best model is restored and re-evaluated.
	res3, err := Train(backend.MustNew(), m, CharadesLoss(), tc, tr, te)
	if err != nil {
		t.Fatal(err)
	}
	if len(res3.History) != 0 || res3.Best.SumR != res2.Best.SumR || res3.BestEpoch != res2.BestEpoch {
		t.Fatalf("finished run: history %d epochs, best %v (epoch %d), want %v (epoch %d)", len(res3.History), res3.Best, res3.BestEpoch, res2.Best, res2.BestEpoch)
	}
	if res2.Store == nil || res2.Best.Queries != te.NumQueries() {
		t.Fatal("resumed run lost the best model")
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

package gram

import (
	"math"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data/synth"
	"github.com/geoalign/geoalign/lib/models"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// encoderWeights is every variable InitFrom copies (encoders and contra heads), flattened.
func encoderWeights(s *model.Store) map[string][]float32 {
	out := map[string][]float32{}
	for v := range s.IterVariables() {
		if strings.HasPrefix(v.Path(), "/encoder_") || strings.HasPrefix(v.Path(), "/contra_head_") {
			out[v.Path()] = tensors.MustCopyFlatData[float32](v.MustValue())
		}
	}
	return out
}

// maxDiff is the largest |a − b| over the variables of a (+Inf when b lacks one).
func maxDiff(a, b map[string][]float32) float64 {
	worst := 0.0
	for path, x := range a {
		y, ok := b[path]
		if !ok || len(y) != len(x) {
			return math.Inf(1)
		}
		for i := range x {
			worst = max(worst, math.Abs(float64(x[i]-y[i])))
		}
	}
	return worst
}

// WarmStart (models.WarmStarter) copies the encoders and contra heads bit for bit from the source
// run, and Train starts from them: with a learning rate of 1e-9 the trained encoders stay within
// 1e-5 of the source's, while a cold run with the same rate stays at its own initialisation, far
// from them.
func TestRunWarmStart(t *testing.T) {
	d, err := SyntheticTriModal(synth.TriModalConfig{Seed: 1, Depth: 2, Branching: 3, LatentDim: 8, LevelDecay: 0.6,
		Dims: [3]int{6, 7, 8}, N: 100, Noise: [3]float64{0.1, 0.1, 0.1}}, 20)
	if err != nil {
		t.Fatal(err)
	}
	if d.Train, d.Val, err = CarveValidation(d.Train, 0.1); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Epochs, cfg.BatchSize, cfg.Hidden, cfg.ContraDim, cfg.MatchHidden = 1, 16, 16, 8, 8
	newRun := func(seed int64, lr float64) *Run {
		c := cfg
		c.Seed, c.LearningRate = seed, lr
		r, err := NewRun(backend.MustNew(), c, d, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	src := newRun(1, cfg.LearningRate)
	if _, err := src.Train(models.Output{Quiet: true}); err != nil {
		t.Fatal(err)
	}
	from := encoderWeights(src.Store())
	if len(from) == 0 {
		t.Fatal("no encoder variables in the source")
	}
	warm, cold := newRun(2, 1e-9), newRun(2, 1e-9)
	if diff := maxDiff(from, encoderWeights(cold.Store())); !(diff > 1e-2) {
		t.Fatalf("seeds 1 and 2 start %g apart: the test cannot tell a copy", diff)
	}
	var ws models.WarmStarter = warm
	if err := ws.WarmStart(src); err != nil {
		t.Fatal(err)
	}
	if diff := maxDiff(from, encoderWeights(warm.Store())); diff != 0 {
		t.Errorf("after WarmStart the encoders are %g from the source's, want equal", diff)
	}
	for _, r := range []*Run{warm, cold} {
		if res, err := r.Train(models.Output{Quiet: true}); err != nil || len(res.Records) != 1 || res.Steps == 0 {
			t.Fatalf("Train: %v", err)
		}
	}
	if diff := maxDiff(from, encoderWeights(warm.Store())); !(diff < 1e-5) {
		t.Errorf("warm run trained at lr 1e-9 ends %g from the source's encoders, want < 1e-5 (Train did not start from them)", diff)
	}
	if diff := maxDiff(from, encoderWeights(cold.Store())); !(diff > 1e-2) {
		t.Errorf("cold run ends %g from the source's encoders", diff)
	}
	if err := warm.WarmStart(otherRun{}); err == nil || !strings.Contains(err.Error(), "want a gram run") {
		t.Errorf("WarmStart from another model's run: %v", err)
	}
}

// otherRun is a Run of another package.
type otherRun struct{ models.Run }

package garestudy_test

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/runner"
	"github.com/geoalign/geoalign/lib/studies/garestudy"
)

// Both stages of a protocol run are run directories of lib/runner in the cache: stage 2 names stage 1
// as its warm start's source, its history is the run's curve, and a second process (a new Protocol
// on the same cache) gets the same curves back from the directories.
func TestProtocolRunsAreRunDirectories(t *testing.T) {
	backend.SkipOnXLA(t, "the protocol's bookkeeping is backend-independent")
	sc := garestudy.Scale{Name: "tiny", Seeds: []int64{1}, Dim: 8, TemporalLayers: 1, TemporalHeads: 1, Batch: 16,
		PretrainEpochs: 2, Epochs: 2, PretrainLR: 1e-3, LR: 1e-3, ProjectionLR: 1e-6}
	d, _, err := garestudy.SyntheticData(160, 96, 0.3, 3)
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	fit := func() *garestudy.Fitted {
		p := sc.Protocol(sc.Config(d.TextDim, d.VideoDim))
		p.CacheDir = cache
		f, err := p.Fit(backend.MustNew(), p.Base, d, 1)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	first := fit()
	stage2, _ := filepath.Glob(filepath.Join(cache, "*", "*", "stage2"))
	pre, _ := filepath.Glob(filepath.Join(cache, "*", "*", "pretrained"))
	if len(stage2) != 1 || len(pre) != 1 {
		t.Fatalf("run directories: stage 2 %v, stage 1 %v; want one each", stage2, pre)
	}
	spec, err := runner.ReadSpec(stage2[0])
	if err != nil {
		t.Fatal(err)
	}
	if spec.Model != "gare" || spec.From == nil || spec.From.Dir != pre[0] {
		t.Errorf("stage 2's config.json: model %q, from %+v; want gare from %s", spec.Model, spec.From, pre[0])
	}
	h, err := runner.ReadHistory(stage2[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != sc.Epochs || len(first.Curve) != sc.Epochs || len(first.PretrainCurve) != sc.PretrainEpochs {
		t.Fatalf("history %d epochs, curve %d, stage-1 curve %d; want %d, %d, %d", len(h), len(first.Curve), len(first.PretrainCurve),
			sc.Epochs, sc.Epochs, sc.PretrainEpochs)
	}
	for i := range h {
		if h[i].Loss != first.Curve[i].Loss {
			t.Errorf("epoch %d: history loss %v, curve %v", i+1, h[i].Loss, first.Curve[i].Loss)
		}
	}
	again := fit()
	for i := range first.Curve {
		a, b := first.Curve[i], again.Curve[i]
		if a.Loss != b.Loss || !reflect.DeepEqual(a.Val, b.Val) || a.Best != b.Best {
			t.Errorf("epoch %d from the cache: %+v, trained: %+v", i+1, b, a)
		}
	}
}

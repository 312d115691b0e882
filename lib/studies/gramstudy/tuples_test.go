package gramstudy

import (
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/models/gram"
)

// The cosine floor of a set whose modalities share a width is the retrieval of the raw features by
// the mean cosine of the anchor and each data modality; here recomputed by hand on four 2-d tuples.
func TestFloorsCosineByHand(t *testing.T) {
	text := []float32{1, 0, 0, 1, 1, 1, -1, 0}
	image := []float32{1, 0.2, 1, 1, 0, 1, -1, -0.5}
	audio := []float32{0.9, 0, 0.3, 1, 1, 0.8, 1, 0} // tuple 3's audio points away from its text
	te, err := gram.NewSplit([][]float32{text, image, audio}, []int{2, 2, 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := &gram.Dataset{Name: "toy", Modalities: []string{"text", "image", "audio"}, Train: te, Test: te}
	floors, note, err := Options{}.Floors(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(floors) != 2 || !strings.Contains(note, "every modality is 2-d") {
		t.Fatalf("floors %v, note %q", floors, note)
	}
	cos := func(a, b []float32) float64 {
		dot, na, nb := 0.0, 0.0, 0.0
		for i := range a {
			dot, na, nb = dot+float64(a[i]*b[i]), na+float64(a[i]*a[i]), nb+float64(b[i]*b[i])
		}
		return dot / math.Sqrt(na*nb)
	}
	row := func(f []float32, i int) []float32 { return f[2*i : 2*i+2] }
	hits := 0 // T→V+A R@1: the text's own tuple scores highest among the four
	for q := range 4 {
		best, arg := math.Inf(-1), -1
		for j := range 4 {
			s := (cos(row(text, q), row(image, j)) + cos(row(text, q), row(audio, j))) / 2
			if s > best {
				best, arg = s, j
			}
		}
		if arg == q {
			hits++
		}
	}
	want := 100 * float64(hits) / 4
	if got := floors[1].Of(T2VR1); math.Abs(got-want) > 1e-9 {
		t.Errorf("cosine floor T→V+A R@1 = %g, by hand %g", got, want)
	}
	if got := floors[0].Of(T2VR1); got != 25 { // random ranking of 4 tuples: 1/4
		t.Errorf("random floor R@1 = %g, want 25", got)
	}
	t.Logf("cosine floor R@1 %g (%d of 4 texts answered by their own tuple)", want, hits)
}

// A variant keeps its defining fields on any base, takes every other field from it, and the notes
// name each field of --config that a variant overrides.
func TestVariantsOnBase(t *testing.T) {
	file := t.TempDir() + "/config.json"
	if err := os.WriteFile(file, []byte(`{"Model": {"Geometry": "hyperbolic", "LearningRate": 0.5, "Hidden": 8}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	base, notes, err := tupleConfig(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		v    Variant
		geom gram.Geometry
		obj  gram.Objective
	}{{GRAM, gram.Euclidean, gram.VolumeObjective}, {Pairwise, gram.Euclidean, gram.PairwiseCosineObjective},
		{HyperGRAM, gram.Hybrid, gram.VolumeObjective}, {PureHyperbolic, gram.Hyperbolic, gram.VolumeObjective}} {
		got := c.v.on(&base).Config
		if got.Geometry != c.geom || got.Objective != c.obj || got.LearningRate != 0.5 || got.Hidden != 8 {
			t.Errorf("%s on the base: %+v", c.v.Label, got)
		}
	}
	w := GRAMFromCosine.on(&base)
	if w.WarmStart.Objective != gram.PairwiseCosineObjective || w.WarmStart.Hidden != 8 || w.Config.Geometry != gram.Euclidean {
		t.Errorf("GRAM's recipe on the base: %+v, warm %+v", w.Config, *w.WarmStart)
	}
	if FixedAlphaHyperGRAM.on(&base).Config.FixedAlpha != true || HyperGRAM.on(&base).Config.FixedAlpha {
		t.Errorf("α fixed / learned lost on the base")
	}
	all := strings.Join(notes, "\n")
	for _, v := range []Variant{GRAM, HyperGRAM} {
		if !strings.Contains(all, "the variant "+strconv.Quote(v.Label)+" overrides Model.Geometry") {
			t.Errorf("notes do not name %s's override of Model.Geometry:\n%s", v.Label, all)
		}
	}
	// The first note names what the file replaces of the scale's values (LearningRate among them);
	// the variants' notes name only their overrides.
	if !strings.Contains(notes[0], "Model.LearningRate = 0.5") {
		t.Errorf("the base note does not name the file's learning rate: %s", notes[0])
	}
	overrides := strings.Join(notes[1:], "\n")
	if strings.Contains(overrides, strconv.Quote(PureHyperbolic.Label)+" overrides") || strings.Contains(overrides, "LearningRate") {
		t.Errorf("notes name an override that is none:\n%s", all)
	}
}

package gram

import (
	"testing"

	"github.com/geoalign/geoalign/lib/data/synth"
)

func TestSameRows(t *testing.T) {
	ids := SameRows([]float32{1, 2, 3, 4, 1, 2, 0, 0}, 2)
	if len(ids) != 4 || ids[0] != ids[2] || ids[0] == ids[1] || ids[3] == ids[1] || ids[3] == ids[0] {
		t.Fatalf("ids %v, want rows 0 and 2 equal, others distinct", ids)
	}
}

// TestSyntheticRelevance: a tuple answers a text exactly when its leaf lies under the text's node,
// checked against the generator's own record after the train/test split.
func TestSyntheticRelevance(t *testing.T) {
	cfg := synth.TriModalConfig{Seed: 3, Depth: 3, Branching: 3, LatentDim: 8, LevelDecay: 0.6,
		Dims: [3]int{6, 7, 8}, N: 200, RichnessLevels: 2, Noise: [3]float64{0.1, 0.1, 0.1}}
	d, err := SyntheticTriModal(cfg, 50)
	if err != nil {
		t.Fatal(err)
	}
	tm, err := synth.GenerateTriModal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d.Train.N != 150 || d.Test.N != 50 || d.Test.Dims[2] != 8 {
		t.Fatalf("splits %d/%d dims %v", d.Train.N, d.Test.N, d.Test.Dims)
	}
	off := 150
	relevant := 0
	for a := 0; a < 50; a++ {
		if !d.Test.Relevant(a, a) {
			t.Fatalf("sample %d does not answer its own text", a)
		}
		for b := 0; b < 50; b++ {
			leaf, node := tm.Leaf[off+b], tm.TextNode[off+a]
			want := false
			for n := leaf; n >= 0; n = tm.Hierarchy.Parent[n] {
				want = want || n == node
			}
			if d.Test.Relevant(a, b) != want {
				t.Fatalf("relevance(%d, %d) = %v, want %v", a, b, !want, want)
			}
			if want {
				relevant++
			}
		}
		if got, want := d.Test.Attributes["log_explanation"][a], tm.LogExplanation[off+a]; got != want {
			t.Fatalf("log_explanation %v, want %v", got, want)
		}
	}
	if relevant <= 50 {
		t.Fatalf("only the diagonal is relevant (%d): richness must make texts generic", relevant)
	}
}

package gram

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/data/synth"
	"github.com/geoalign/geoalign/lib/npy"
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

// TestLoadTuxPaintLangs reads a hand-written tuxpaint-langs cache (3 train, 2 test stamps, speech in
// fr, es, ru): the requested languages become the speech modalities in the order asked, after text
// and image; stamps with identical text answer each other; features are standardised with the
// train statistics; a language the track lacks is an error naming its file.
func TestLoadTuxPaintLangs(t *testing.T) {
	cache := t.TempDir()
	dir := filepath.Join(cache, "tuxpaint-langs")
	os.MkdirAll(dir, 0o755)
	write := func(name string, rows, cols int, f func(i, j int) float32) {
		x := make([]float32, rows*cols)
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				x[i*cols+j] = f(i, j)
			}
		}
		if err := npy.WriteFile(filepath.Join(dir, name), []int{rows, cols}, x); err != nil {
			t.Fatal(err)
		}
	}
	for split, n := range map[string]int{"train": 3, "test": 2} {
		write("text_"+split+".npy", n, 2, func(i, j int) float32 { return float32(min(i, 1) + j) }) // rows 0 and 1 differ, 1 and 2 equal
		write("image_"+split+".npy", n, 3, func(i, j int) float32 { return float32(i * j) })
		for l, lang := range []string{"fr", "es", "ru"} {
			write("audio_"+lang+"_"+split+".npy", n, 4, func(i, j int) float32 { return float32(10*l + i) })
		}
		meta := "id\tcategory\tcaption\n"
		for i := 0; i < n; i++ {
			meta += fmt.Sprintf("s%d\tanimals/cats\tA cat number %d.\n", i, i)
		}
		os.WriteFile(filepath.Join(dir, "meta_"+split+".tsv"), []byte(meta), 0o644)
	}
	d, err := LoadTuxPaintLangs(cache, []string{"ru", "fr"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(d.Modalities, ",") != "text,image,speech (ru),speech (fr)" || d.Train.N != 3 || d.Test.N != 2 ||
		fmt.Sprint(d.Train.Dims) != "[2 3 4 4]" {
		t.Fatalf("modalities %v, N %d/%d, dims %v", d.Modalities, d.Train.N, d.Test.N, d.Train.Dims)
	}
	// Speech (ru) is 20 + i on train rows 0, 1, 2: mean 21, std √(2/3); test row 1 (21) → 0.
	if got := d.Test.Row(2, 1)[0]; math.Abs(float64(got)) > 1e-6 {
		t.Fatalf("standardised ru speech of test row 1 = %v, want 0", got)
	}
	if got, want := d.Train.Row(3, 0)[0], float32(-1/math.Sqrt(2.0/3)); math.Abs(float64(got-want)) > 1e-5 {
		t.Fatalf("standardised fr speech of train row 0 = %v, want %v", got, want)
	}
	if !d.Train.Relevant(1, 2) || d.Train.Relevant(0, 1) || d.Train.Attributes["text_length"][2] != 4 {
		t.Fatalf("relevance (1,2) %v (0,1) %v, text_length %v", d.Train.Relevant(1, 2), d.Train.Relevant(0, 1), d.Train.Attributes["text_length"])
	}
	if _, err := LoadTuxPaintLangs(cache, []string{"fr", "bg"}); err == nil || !strings.Contains(err.Error(), "audio_bg_train.npy") {
		t.Fatalf("missing language: %v", err)
	}
}

package tracks

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/h5"
	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/encoders/minilm"
	"github.com/geoalign/geoalign/lib/npy"
)

// closeTo reports whether a and b agree to 1e-5 per value: the same model on the same text, in a
// batch of other neighbours and padding (the encoder itself is checked against
// sentence-transformers in lib/encoders/minilm).
func closeTo(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i])-float64(b[i])) > 1e-5 {
			return false
		}
	}
	return true
}

// The MiniLM track on the tiny Charades fixture and two fake Tux Paint meta files: every query has
// its token states and every description its sentence embedding under its id, the PRVR layouts
// load them, the Tux Paint rows follow meta_<split>.tsv, a second build is fresh, and
// a deleted output (as when the charades track is rebuilt) is rebuilt.
func TestBuildMiniLMOnTinyFixture(t *testing.T) {
	var log bytes.Buffer
	env, _ := buildTinyCharades(t, &log)
	tux := map[string][]string{"train": {"A frog.", "Une grenouille verte, naïve."}, "test": {"A red apple on a table."}}
	for _, d := range []string{TuxPaintDir, TuxPaintLangsDir} {
		os.MkdirAll(filepath.Join(env.Cache, d), 0o755)
		for split, caps := range tux {
			meta := "id\tcategory\tcaption\n"
			for i, c := range caps {
				meta += "s" + string(rune('0'+i)) + "\tanimals\t" + c + "\n"
			}
			if err := os.WriteFile(filepath.Join(env.Cache, d, "meta_"+split+".tsv"), []byte(meta), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	man, err := BuildMiniLM(env, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	m, err := minilm.Load(minilm.DefaultDir())
	if err != nil {
		t.Fatal(err)
	}
	h := m.Dim()
	for _, c := range []struct {
		collection string
		tokens     bool
	}{{CharadesSTACollection, true}, {CharadesDescCollection, false}} {
		caps, err := readCollectionCaptions(CharadesLayout(env.Cache, c.collection))
		if err != nil {
			t.Fatal(err)
		}
		texts := make([]string, len(caps))
		for i, cp := range caps {
			texts[i] = cp.Text
		}
		want, err := m.Encode(texts, true)
		if err != nil {
			t.Fatal(err)
		}
		l := CharadesMiniLMLayout(env.Cache, c.collection)
		f, err := h5.Open(l.TextFeatureFile())
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Names()) != len(caps) {
			t.Errorf("%s: %d datasets, %d captions", c.collection, len(f.Names()), len(caps))
		}
		for i, cp := range caps {
			rows, w := 1, want.Sentences[i*h:(i+1)*h]
			if c.tokens {
				rows, w = len(want.IDs[i]), want.Tokens[i]
			}
			x, shape, err := f.ReadFloat32(cp.ID)
			if err != nil || len(shape) != 2 || shape[0] != rows || shape[1] != h || !closeTo(x, w) {
				t.Errorf("%s %s: %v %v differs from the encoder's [%d %d]", c.collection, cp.ID, shape, err, rows, h)
			}
		}
		f.Close()
		s, err := prvr.Load(l, "train")
		if err != nil {
			t.Fatal(err)
		}
		if s.QueryDim != h {
			t.Errorf("%s: query width %d, want %d", c.collection, s.QueryDim, h)
		}
	}
	for _, d := range []string{TuxPaintDir, TuxPaintLangsDir} {
		for split, caps := range tux {
			got, rows, cols, err := npy.ReadMatrix[float32](filepath.Join(env.Cache, d, MiniLMTuxText+"_"+split+".npy"))
			if err != nil || rows != len(caps) || cols != h {
				t.Fatalf("%s %s: %d×%d %v", d, split, rows, cols, err)
			}
			want, err := m.Encode(caps, false)
			if err != nil {
				t.Fatal(err)
			}
			if !closeTo(got, want.Sentences) {
				t.Errorf("%s %s: sentence embeddings differ from the encoder's", d, split)
			}
		}
	}

	// Fresh: nothing rebuilt. A missing output (the charades track was rebuilt): rebuilt, named.
	log.Reset()
	if again, err := BuildMiniLM(env, nil, ""); err != nil || len(again.Outputs) != len(man.Outputs) || strings.Contains(log.String(), "rebuilding") {
		t.Fatalf("second build: %v, log %q", err, log.String())
	}
	gone := CharadesMiniLMLayout(env.Cache, CharadesSTACollection).TextFeatureFile()
	os.Remove(gone)
	if _, err := BuildMiniLM(env, nil, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "rebuilding") || !strings.Contains(log.String(), gone) {
		t.Errorf("the log does not name the missing output:\n%s", log.String())
	}
	if _, err := os.Stat(gone); err != nil {
		t.Errorf("not rebuilt: %v", err)
	}

	// Missing inputs are errors naming them; a missing model says `make setup` and is bad input
	// (geoalign data build exits 2).
	if _, err := BuildMiniLM(Env{Cache: env.Cache, MiniLM: filepath.Join(t.TempDir(), "nomodel")}, nil, ""); !data.IsBadInput(err) ||
		!strings.Contains(err.Error(), "nomodel") || !strings.Contains(err.Error(), "make setup") {
		t.Errorf("missing model: %v", err)
	}
	os.Remove(CharadesLayout(env.Cache, CharadesDescCollection).CaptionFile("test"))
	if _, err := BuildMiniLM(env, nil, ""); err == nil || !strings.Contains(err.Error(), "charadesdesctest.caption.txt") {
		t.Errorf("missing caption file: %v", err)
	}
}

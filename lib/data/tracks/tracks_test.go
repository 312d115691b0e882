package tracks

import (
	"compress/gzip"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/data/charades"
	"github.com/geoalign/geoalign/lib/data/glove"
	"github.com/geoalign/geoalign/lib/data/prvr"
)

// tinyShared writes a miniature charades/ of the shared data directory: 3 videos, 157 classes.
func tinyShared(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "shared")
	c := filepath.Join(dir, "charades")
	os.MkdirAll(c, 0o755)
	var classes strings.Builder
	for i := 0; i < charades.NumClasses; i++ {
		name := "holding clothes"
		if i == 1 {
			name = "opening a door"
		}
		fmt.Fprintf(&classes, "c%03d\t%s\n", i, name)
	}
	hdr := "id,subject,scene,quality,relevance,verified,script,objects,descriptions,actions,length\n"
	files := map[string]string{
		"classes.tsv":            classes.String(),
		"charades_sta_train.txt": "AAAAA 0.0 3.0##a person opening a door.\nAAAAA 3.0 6.0##person holding clothes.\nBBBBB 0 2##holding clothes\n",
		"charades_sta_test.txt":  "CCCCC 1 2##someone opens the door\n",
		"Charades_v1_train.csv": hdr + "AAAAA,s,Hall,6,7,Yes,x,door,A person opens a door.,c001 0.0 3.0;c000 3.0 6.0,6.0\n" +
			"BBBBB,s,Hall,6,7,Yes,x,,Clothes.,c000 0 2,4.0\n",
		"Charades_v1_test.csv": hdr + "CCCCC,s,Hall,6,7,Yes,x,,A door is opened.,c001 1 2,3.0\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(c, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// buildTinyCharades builds the Charades track from the tinyShared fixture (GloVe of its six words)
// into a fresh cache that logs to log; it returns that Env and a build that runs BuildCharades on it
// again.
func buildTinyCharades(t *testing.T, log io.Writer) (Env, func() (*Manifest, error)) {
	t.Helper()
	g, subset := tinyGloVe(t, "opening", "door", "holding", "clothes", "person", "opens")
	env := Env{Shared: tinyShared(t), Cache: filepath.Join(t.TempDir(), "cache"), Log: log}
	build := func() (*Manifest, error) { return BuildCharades(env, g, subset) }
	if _, err := build(); err != nil {
		t.Fatal(err)
	}
	return env, build
}

// tinyGloVe gives every word a distinct one-hot-ish vector.
func tinyGloVe(t *testing.T, words ...string) (*glove.Vectors, string) {
	vecs := make([]float32, len(words)*glove.Dim)
	for i := range words {
		vecs[i*glove.Dim+i] = 1
	}
	g, err := glove.NewVectors(words, vecs)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "subset.txt")
	if err := g.WriteText(p); err != nil {
		t.Fatal(err)
	}
	return g, p
}

func TestBuildCharadesOnTinyFixtureIsLoadableAndIdempotent(t *testing.T) {
	shared := tinyShared(t)
	vocab := map[string]bool{}
	if err := CharadesVocabulary(Env{Shared: shared}, vocab); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"person", "opening", "door", "holding", "clothes"} {
		if !vocab[w] {
			t.Fatalf("vocabulary lacks %q", w)
		}
	}
	g, subset := tinyGloVe(t, "opening", "door", "holding", "clothes", "person", "opens")
	env := Env{Shared: shared, Cache: filepath.Join(t.TempDir(), "cache")}
	m, err := BuildCharades(env, g, subset)
	if err != nil {
		t.Fatal(err)
	}
	if m.Counts[0].Queries != 3 || m.Counts[0].Items != 2 || m.Counts[1].Queries != 1 {
		t.Fatalf("counts %+v", m.Counts)
	}
	s, err := prvr.Load(CharadesLayout(env.Cache, CharadesSTACollection), "train")
	if err != nil {
		t.Fatal(err)
	}
	if s.Dim != charades.NumClasses+glove.Dim || s.QueryDim != glove.Dim || s.NumVideos() != 2 || s.QueryVideo[2] != 1 {
		t.Fatalf("split dims %d/%d videos %d gt %v", s.Dim, s.QueryDim, s.NumVideos(), s.QueryVideo)
	}
	// Video AAAAA is 6 s at 2 fps = 12 frames; class c001 "opening a door" is active in the first
	// 6 frames, so clip 0 has the multi-hot bit of class 1 set and class 0 clear.
	clip0 := s.VideoClips(0)[:s.Dim]
	if clip0[1] <= 0 || clip0[0] != 0 {
		t.Fatalf("clip 0 multi-hot: c000 %v c001 %v", clip0[0], clip0[1])
	}
	desc, err := prvr.Load(CharadesLayout(env.Cache, CharadesDescCollection), "test")
	if err != nil || desc.NumQueries() != 1 || desc.VideoIDs[0] != "CCCCC" {
		t.Fatalf("descriptions collection: %v %+v", err, desc)
	}
	// A second build finds the manifest fresh and rewrites nothing.
	bin := filepath.Join(CharadesLayout(env.Cache, CharadesSTACollection).FeatureDir(), "feature.bin")
	before, _ := os.Stat(bin)
	if _, err := BuildCharades(env, g, subset); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(bin)
	if !after.ModTime().Equal(before.ModTime()) {
		t.Fatal("second build rewrote feature.bin")
	}
	// A missing staged file is an error naming it.
	os.Remove(filepath.Join(shared, "charades", "charades_sta_test.txt"))
	if _, err := BuildCharades(env, g, subset); err == nil || !strings.Contains(err.Error(), "charades_sta_test.txt") {
		t.Fatalf("missing input: %v", err)
	}
}

func TestZeroShotMaxOverClips(t *testing.T) {
	// Two videos, D = 1 (ignored) + 2 (block); one query along (1, 0).
	const d = 3
	s := &prvr.Split{Dim: d, QueryDim: 2, VideoIDs: []string{"a", "b"}, CapIDs: []string{"q"},
		Tokens: []float32{2, 0}, TokenOffsets: []int{0, 1}, QueryVideo: []int{1}}
	s.Clips = make([]float32, 2*prvr.ClipCount*d)
	// Video a: every clip along (0, 1) → cosine 0. Video b: one clip at 45°, the rest (0, 1).
	for v := 0; v < 2; v++ {
		for c := 0; c < prvr.ClipCount; c++ {
			s.Clips[(v*prvr.ClipCount+c)*d+2] = 1
		}
	}
	s.Clips[(1*prvr.ClipCount+7)*d+1] = 1
	scores, err := ZeroShotMaxOverClips(s, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(float64(scores[0])) > 1e-7 || math.Abs(float64(scores[1])-1/math.Sqrt2) > 1e-6 {
		t.Fatalf("scores %v, want [0 %v]", scores, 1/math.Sqrt2)
	}
	if _, err := ZeroShotMaxOverClips(s, 2, 2); err == nil {
		t.Fatal("block beyond D accepted")
	}
}

func TestReadSklearnDigitsFormatAndErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(content string) string {
		p := filepath.Join(dir, "digits.csv.gz")
		f, _ := os.Create(p)
		gz := gzip.NewWriter(f)
		gz.Write([]byte(content))
		gz.Close()
		f.Close()
		return p
	}
	row := strings.Repeat("16,", 63) + "8,3\n"
	px, labels, err := readSklearnDigits(write(row + row))
	if err != nil || len(labels) != 2 || labels[1] != 3 || len(px) != 128 || px[0] != 1 || px[63] != 0.5 {
		t.Fatalf("%v labels %v px %v %v", err, labels, px[0], px[63])
	}
	for content, want := range map[string]string{
		row + "1,2,3\n":                    "digits.csv.gz:2: 3 fields",
		strings.Repeat("17,", 64) + "1\n":  "field 1",
		strings.Repeat("1,", 64) + "12\n":  "label 12",
		"":                                 "no images",
		strings.Repeat("NaN,", 64) + "1\n": "field 1",
		strings.Repeat("0.5,", 64) + "1\n": "not an integer",
	} {
		if _, _, err := readSklearnDigits(write(content)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("content %.20q: %v, want %q", content, err, want)
		}
	}
}

func TestImageVectorCompositesOverWhite(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	// Left half opaque red, right half fully transparent.
	for y := 0; y < 64; y++ {
		for x := 0; x < 32; x++ {
			img.Set(x, y, color.NRGBA{255, 0, 0, 255})
		}
	}
	v := imageVector(img)
	left, right := v[0:3], v[3*(TuxImageSide-1):3*TuxImageSide]
	if left[0] != 1 || left[1] != 0 || right[0] != 1 || right[1] != 1 || right[2] != 1 {
		t.Fatalf("left %v right %v", left, right)
	}
}

func TestZeroShotContentWordsIgnoresStopWords(t *testing.T) {
	g, _ := tinyGloVe(t, "door", "clothes", "person", "the")
	names := make([]string, charades.NumClasses)
	for c := range names {
		names[c] = "person holding clothes"
	}
	names[1] = "the person opening a door"
	const d = charades.NumClasses + glove.Dim
	// Video 0: class 1 ("door") active in clip 3 only; video 1: class 0 ("clothes") everywhere.
	s := &prvr.Split{Dim: d, QueryDim: glove.Dim, VideoIDs: []string{"a", "b"}, CapIDs: []string{"a#enc#0", "b#enc#0"},
		Texts:      []string{"The person opens the door", "person with clothes"},
		QueryVideo: []int{0, 1}}
	s.Clips = make([]float32, 2*prvr.ClipCount*d)
	s.Clips[3*d+1] = 1
	for c := 0; c < prvr.ClipCount; c++ {
		s.Clips[(prvr.ClipCount+c)*d] = 1
	}
	scores, err := ZeroShotContentWords(s, names, g)
	if err != nil {
		t.Fatal(err)
	}
	// Stop words ("the", "person") removed, query 0 is "opens door" → only "door" in vocabulary:
	// cosine 1 with video 0's clip 3 and 0 with video 1 ("clothes"); query 1 the reverse.
	want := []float32{1, 0, 0, 1}
	for i := range want {
		if math.Abs(float64(scores[i]-want[i])) > 1e-6 {
			t.Fatalf("scores %v, want %v", scores, want)
		}
	}
}

package tracks

import (
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/data/audio"
	"github.com/geoalign/geoalign/lib/data/trimodal"
	"github.com/geoalign/geoalign/lib/npy"
)

// fakeStamp is one stamp of the fake tree: its id, caption ("" = empty caption file), whether it
// has an image, the languages it is spoken in, and its colour.
type fakeStamp struct {
	id, caption string
	image       bool
	langs       []string
	rgb         color.NRGBA
}

// fakeTone is the frequency (Hz) of stamp i's spoken caption in the l-th language of fakeLangs.
func fakeTone(i, l int) float64 { return 200 + 300*float64(i) + 100*float64(l) }

var fakeLangs = []string{"fr", "es", "ru"}

// fakeStamps: seven stamps with an image and a caption, one of them (dog) not spoken in ru; one
// stamp without an image and one with an empty caption, which no track keeps.
var fakeStamps = []fakeStamp{
	{"animals/cat", "A cat.", true, fakeLangs, color.NRGBA{200, 10, 10, 255}},
	{"animals/dog", "A dog.", true, []string{"fr", "es"}, color.NRGBA{10, 200, 10, 255}},
	{"food/apple", "An apple.", true, fakeLangs, color.NRGBA{10, 10, 200, 255}},
	{"food/pear", "A pear.", true, fakeLangs, color.NRGBA{100, 100, 0, 255}},
	{"objects/ghost", "A ghost.", false, fakeLangs, color.NRGBA{}},
	{"plants/nothing", "", true, fakeLangs, color.NRGBA{1, 2, 3, 255}},
	{"plants/tree", "A tree.", true, fakeLangs, color.NRGBA{0, 120, 30, 255}},
	{"vehicles/bus", "A bus.", true, fakeLangs, color.NRGBA{250, 200, 0, 255}},
	{"vehicles/car", "A car.", true, fakeLangs, color.NRGBA{0, 0, 0, 128}}, // half-transparent black over white
}

// writeToneWAV writes a 0.5 s, 16 kHz, 16-bit mono PCM WAV of a sine at f Hz.
func writeToneWAV(t *testing.T, path string, f float64) {
	const rate, n = 16000, 8000
	pcm := make([]int16, n)
	for i := range pcm {
		pcm[i] = int16(12000 * math.Sin(2*math.Pi*f*float64(i)/rate))
	}
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	w := func(v any) {
		if err := binary.Write(out, binary.LittleEndian, v); err != nil {
			t.Fatal(err)
		}
	}
	out.WriteString("RIFF")
	w(uint32(36 + 2*n))
	out.WriteString("WAVEfmt ")
	w(uint32(16))
	w(uint16(1)) // PCM
	w(uint16(1)) // mono
	w(uint32(rate))
	w(uint32(2 * rate))
	w(uint16(2))
	w(uint16(16))
	out.WriteString("data")
	w(uint32(2 * n))
	w(pcm)
}

// fakeStampTree writes fakeStamps under a temporary root: <id>.txt, a 64×64 <id>.png of one colour,
// and <id>_desc_<lang>.ogg, a tone encoded by oggenc.
func fakeStampTree(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "stamps")
	for i, s := range fakeStamps {
		base := filepath.Join(root, s.id)
		if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(base+".txt", []byte(s.caption+"\nsecond line ignored\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if s.image {
			img := image.NewNRGBA(image.Rect(0, 0, 2*TuxImageSide, 2*TuxImageSide))
			for y := 0; y < 2*TuxImageSide; y++ {
				for x := 0; x < 2*TuxImageSide; x++ {
					img.Set(x, y, s.rgb)
				}
			}
			f, err := os.Create(base + ".png")
			if err != nil {
				t.Fatal(err)
			}
			if err := png.Encode(f, img); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
		for _, lang := range s.langs {
			l := strings.Index(strings.Join(fakeLangs, ""), lang) / 2
			wav := base + "_" + lang + ".wav"
			writeToneWAV(t, wav, fakeTone(i, l))
			if out, err := exec.Command("oggenc", "-Q", "-o", tuxSpeechPath(base, lang), wav).CombinedOutput(); err != nil {
				t.Fatalf("oggenc: %v %s", err, out)
			}
			os.Remove(wav)
		}
	}
	return root
}

// peakBand is the mel band with the largest mean log energy over the segments of a pooled log-mel.
func peakBand(v []float32) int {
	best, bestE := 0, math.Inf(-1)
	for m := 0; m < audio.MelBands; m++ {
		e := 0.0
		for s := 0; s < audio.Segments; s++ {
			e += float64(v[s*audio.MelBands+m])
		}
		if e > bestE {
			best, bestE = m, e
		}
	}
	return best
}

// TestBuildTuxPaintTracksOnFakeStampTree builds the French-only and the multilingual (fr, es, ru)
// tracks from a fake stamp tree and checks which stamps each keeps, the split, the counts, the
// image vectors (a flat colour over white, closed form), the text vectors, that the multilingual
// track's French speech equals the French-only track's for the same stamp, that each language's
// file holds its own recording (the tone's mel band rises with its frequency), that loading
// through lib/data/trimodal gives the same rows, and that a second build rewrites nothing.
func TestBuildTuxPaintTracksOnFakeStampTree(t *testing.T) {
	for _, tool := range []string{"oggenc", "oggdec", "rsvg-convert"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (Debian vorbis-tools, librsvg2-bin)", tool)
		}
	}
	root := fakeStampTree(t)
	g, subset := tinyGloVe(t, "cat", "dog", "apple", "pear", "tree", "bus", "car")
	env := Env{Cache: filepath.Join(t.TempDir(), "cache")}

	fr, err := buildTux(env, tuxFrench(root), g, subset)
	if err != nil {
		t.Fatal(err)
	}
	multi, err := buildTux(env, tuxLanguages(root, fakeLangs), g, subset)
	if err != nil {
		t.Fatal(err)
	}
	// French-only: 7 stamps (dog included), test = sorted positions 0 and 5 (cat, bus).
	// Multilingual: dog has no ru, so 6 stamps, test = positions 0 and 5 (cat, car).
	wantCounts := map[string][2]int{
		"stamps with an image and a caption": {7, 0},
		"… with a spoken caption in fr":      {7, 0},
		"… with a spoken caption in es":      {7, 0},
		"… with a spoken caption in ru":      {6, 0},
		"… in every language (fr, es, ru)":   {6, 0},
		"stamps train / test":                {4, 2},
	}
	for _, c := range multi.Counts {
		if w, ok := wantCounts[c.Split]; ok {
			if c.Queries != w[0] || c.Items != w[1] {
				t.Errorf("multilingual count %q = %d/%d, want %d/%d", c.Split, c.Queries, c.Items, w[0], w[1])
			}
			delete(wantCounts, c.Split)
		}
	}
	if len(wantCounts) > 0 {
		t.Errorf("multilingual manifest lacks counts %v", wantCounts)
	}
	if fr.Counts[0].Queries != 5 || fr.Counts[0].Items != 2 || len(fr.Counts) != 3 {
		t.Errorf("French-only counts %+v, want 5 / 2 stamps and the three counts of builder tuxpaint/1", fr.Counts)
	}
	for _, c := range []struct {
		dir, split string
		ids        []string
	}{
		{TuxPaintDir, "test", []string{"animals/cat", "vehicles/bus"}},
		{TuxPaintLangsDir, "test", []string{"animals/cat", "vehicles/car"}},
		{TuxPaintLangsDir, "train", []string{"food/apple", "food/pear", "plants/tree", "vehicles/bus"}},
	} {
		raw, err := os.ReadFile(filepath.Join(env.Cache, c.dir, "meta_"+c.split+".tsv"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(raw)), "\n")[1:]
		var ids []string
		for _, l := range lines {
			ids = append(ids, strings.Split(l, "\t")[0])
		}
		if strings.Join(ids, " ") != strings.Join(c.ids, " ") {
			t.Errorf("%s %s stamps %v, want %v", c.dir, c.split, ids, c.ids)
		}
	}

	set, err := trimodal.LoadTuxPaintLangs(env.Cache, "test", fakeLangs)
	if err != nil {
		t.Fatal(err)
	}
	frSet, err := trimodal.LoadTuxPaint(env.Cache, "test")
	if err != nil {
		t.Fatal(err)
	}
	if set.N != 2 || len(set.Speech) != 3 || set.AudioDim != audio.PooledDim || set.ImageDim != TuxImageDim {
		t.Fatalf("loaded multilingual test split: N %d, %d languages, dims %d/%d", set.N, len(set.Speech), set.AudioDim, set.ImageDim)
	}
	// Row 1 of the multilingual test split is vehicles/car: half-transparent black over white is
	// grey 0.5 (alpha 128/255 → 1 − 128/255 of white) in every channel and pixel.
	grey := float32(1 - 128.0/255)
	for j, x := range set.Image[TuxImageDim : 2*TuxImageDim] {
		if math.Abs(float64(x-grey)) > 1e-6 {
			t.Fatalf("car image value %d = %v, want %v", j, x, grey)
		}
	}
	// Row 0 is the cat: opaque (200, 10, 10); its caption's only GloVe word is "cat" (index 0).
	if set.Image[0] != float32(200.0/255) || set.Image[1] != float32(10.0/255) || set.Text[0] != 1 || set.Text[1] != 0 {
		t.Fatalf("cat image %v text %v", set.Image[:3], set.Text[:2])
	}
	// The cat's French speech is the same recording, decoded the same way, in both tracks.
	for j := range set.Speech[0][:audio.PooledDim] {
		if set.Speech[0][j] != frSet.Audio[j] {
			t.Fatalf("cat's French speech differs between the tracks at %d: %v vs %v", j, set.Speech[0][j], frSet.Audio[j])
		}
	}
	// Each language's file holds that language's recording: the cat's tones are 200, 300, 400 Hz and
	// the car's (stamp 8 of the tree) 2600, 2700, 2800 Hz, so the peak mel band rises from the cat in
	// fr to the car in ru: strictly among the cat's languages (≈ 130 mel apart, bands ≈ 70 mel wide)
	// and from the cat to the car, weakly among the car's (≈ 30 mel apart).
	var bands []int
	for i := 0; i < 2; i++ {
		for l := range fakeLangs {
			bands = append(bands, peakBand(set.Speech[l][i*audio.PooledDim:(i+1)*audio.PooledDim]))
		}
	}
	t.Logf("peak bands %v", bands)
	for j := 1; j < len(bands); j++ {
		if bands[j] < bands[j-1] || (j <= 3 && bands[j] == bands[j-1]) {
			t.Fatalf("peak mel bands %v (cat fr, es, ru; car fr, es, ru) do not rise with the tone", bands)
		}
	}
	if _, rows, cols, err := npy.ReadMatrix[float32](filepath.Join(env.Cache, TuxPaintLangsDir, "audio_ru_train.npy")); err != nil || rows != 4 || cols != audio.PooledDim {
		t.Fatalf("audio_ru_train.npy: %d×%d, %v", rows, cols, err)
	}

	// A second build finds both manifests fresh and rewrites nothing.
	p := filepath.Join(env.Cache, TuxPaintLangsDir, "audio_es_train.npy")
	before, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := buildTux(env, tuxLanguages(root, fakeLangs), g, subset); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(p)
	if !after.ModTime().Equal(before.ModTime()) {
		t.Fatal("second build rewrote audio_es_train.npy")
	}
	// A language no stamp is spoken in is an error naming it.
	if _, err := buildTux(env, tuxLanguages(root, []string{"fr", "xx"}), g, subset); err == nil || !strings.Contains(err.Error(), "xx") {
		t.Fatalf("unrecorded language: %v", err)
	}
}

package tracks

import (
	"bufio"
	"fmt"
	"image"
	"image/png"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/data/audio"
	"github.com/geoalign/geoalign/lib/data/glove"
	"github.com/geoalign/geoalign/lib/npy"
)

// Tux Paint track sources and layout.
const (
	// TuxPaintStamps is where Debian's tuxpaint-stamps-default installs the stamps.
	TuxPaintStamps = "/usr/share/tuxpaint/stamps"
	TuxPaintDir    = "tuxpaint"
	tuxBuilder     = "tuxpaint/1"
	// TuxSpeechLanguage is the language of the spoken captions used: French has the most
	// recordings (928; English only 66), so the audio is French speech of the caption while the
	// text is the English caption — a cross-lingual but instance-level pairing.
	TuxSpeechLanguage = "fr"
	// TuxPaintLangsDir is the multilingual track: the stamps that have a spoken caption in every
	// language of TuxSpeechLanguages, one pooled log-mel file per language.
	TuxPaintLangsDir = "tuxpaint-langs"
	tuxLangsBuilder  = "tuxpaint-langs/1"
	// TuxImageSide: images are composited over white and area-averaged to 32×32 RGB.
	TuxImageSide = 32
	// tuxRasterSide is the size rsvg-convert renders SVG stamps at before the same averaging.
	tuxRasterSide = 128
	// tuxTestEvery: stamps sorted by path; stamp i is a test stamp when i % tuxTestEvery == 0.
	tuxTestEvery = 5
)

// TuxSpeechLanguages are the spoken-caption languages of the multilingual track, in the order the
// studies add them as modalities: French first (the French-only track's language), then every
// other language recorded for nearly every stamp (the manifest counts the stamps of each language
// and of their intersection; the next language, Belarusian, covers about three quarters of them).
var TuxSpeechLanguages = []string{"fr", "es", "ru", "ro", "ca", "bg"}

// TuxImageDim is the length of a Tux Paint image vector.
const TuxImageDim = TuxImageSide * TuxImageSide * 3

// stamp is one Tux Paint stamp: its id (path below the stamp tree without extension), image,
// English caption, category (directory) and one spoken caption per language of its track.
type stamp struct {
	id, image, caption, category string
	speech                       []string
}

// tuxSpeechPath is the spoken caption of the stamp whose files start with base, in lang.
func tuxSpeechPath(base, lang string) string { return base + "_desc_" + lang + ".ogg" }

// scanStamps finds every stamp under root with an image and a non-empty English caption (the first
// line of <name>.txt), sorted by id.
func scanStamps(root string) ([]stamp, error) {
	if _, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("%s: %w (install Debian package tuxpaint-stamps-default)", root, err)
	}
	var out []stamp
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".txt") {
			return err
		}
		base := strings.TrimSuffix(p, ".txt")
		img := ""
		for _, ext := range []string{".png", ".svg"} {
			if _, err := os.Stat(base + ext); err == nil {
				img = base + ext
				break
			}
		}
		if img == "" {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(f)
		caption := ""
		if sc.Scan() {
			caption = strings.TrimSpace(sc.Text())
		}
		f.Close()
		if caption == "" {
			return nil
		}
		rel := relTo(root, base)
		out = append(out, stamp{id: rel, image: img, caption: caption, category: filepath.Dir(rel)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(a, b int) bool { return out[a].id < out[b].id })
	return out, nil
}

// withSpeech keeps the stamps of ss that have a spoken caption in every language of langs, with
// the caption files in the order of langs.
func withSpeech(root string, ss []stamp, langs []string) []stamp {
	var out []stamp
	for _, s := range ss {
		s.speech = nil
		for _, l := range langs {
			p := tuxSpeechPath(filepath.Join(root, s.id), l)
			if _, err := os.Stat(p); err != nil {
				break
			}
			s.speech = append(s.speech, p)
		}
		if len(s.speech) == len(langs) {
			out = append(out, s)
		}
	}
	return out
}

// listStamps finds every stamp with an English caption, an image and a spoken caption in every
// language of langs, sorted by id.
func listStamps(root string, langs []string) ([]stamp, error) {
	all, err := scanStamps(root)
	if err != nil {
		return nil, err
	}
	out := withSpeech(root, all, langs)
	if len(out) == 0 {
		return nil, noStamps(root, langs)
	}
	return out, nil
}

func noStamps(root string, langs []string) error {
	return fmt.Errorf("no stamp under %s has an image, a caption and a spoken caption in %s", root, strings.Join(langs, ", "))
}

// TuxPaintVocabulary adds the tokens of the English captions of the French-only track.
func TuxPaintVocabulary(_ Env, vocab map[string]bool) error {
	return tuxVocabulary(TuxPaintStamps, []string{TuxSpeechLanguage}, vocab)
}

// TuxPaintLangsVocabulary adds the tokens of the English captions of the multilingual track (a
// subset of the French-only track's, since TuxSpeechLanguages includes French: it adds no word).
func TuxPaintLangsVocabulary(_ Env, vocab map[string]bool) error {
	return tuxVocabulary(TuxPaintStamps, TuxSpeechLanguages, vocab)
}

func tuxVocabulary(root string, langs []string, vocab map[string]bool) error {
	ss, err := listStamps(root, langs)
	if err != nil {
		return err
	}
	for _, s := range ss {
		for _, t := range glove.Tokenize(s.caption) {
			vocab[t] = true
		}
	}
	return nil
}

// imageVector composites img over white and area-averages it to TuxImageSide² RGB in [0, 1].
func imageVector(img image.Image) []float32 {
	b := img.Bounds()
	out := make([]float32, TuxImageDim)
	count := make([]float32, TuxImageSide*TuxImageSide)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		cy := (y - b.Min.Y) * TuxImageSide / b.Dy()
		for x := b.Min.X; x < b.Max.X; x++ {
			cx := (x - b.Min.X) * TuxImageSide / b.Dx()
			r, g, bl, a := img.At(x, y).RGBA() // alpha-premultiplied, 0…65535
			white := float32(65535-a) / 65535
			cell := cy*TuxImageSide + cx
			out[3*cell] += float32(r)/65535 + white
			out[3*cell+1] += float32(g)/65535 + white
			out[3*cell+2] += float32(bl)/65535 + white
			count[cell]++
		}
	}
	for c, n := range count {
		if n == 0 {
			n = 1
		}
		for k := 0; k < 3; k++ {
			out[3*c+k] /= n
		}
	}
	return out
}

func readStampImage(s stamp, tmp string) ([]float32, error) {
	path := s.image
	if strings.HasSuffix(path, ".svg") {
		path = filepath.Join(tmp, "raster.png")
		cmd := exec.Command("rsvg-convert", "-w", fmt.Sprint(tuxRasterSide), "-h", fmt.Sprint(tuxRasterSide), "-a", "-o", path, s.image)
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("rsvg-convert %s: %v %s (install Debian package librsvg2-bin)", s.image, err, out)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.image, err)
	}
	return imageVector(img), nil
}

// readStampSpeech decodes one spoken caption (oggdec, into tmp) and returns its pooled log-mel.
func readStampSpeech(path, tmp string) ([]float32, error) {
	wavPath := filepath.Join(tmp, "speech.wav")
	if out, err := exec.Command("oggdec", "-Q", "-o", wavPath, path).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("oggdec %s: %v %s (install Debian package vorbis-tools)", path, err, out)
	}
	x, rate, err := audio.ReadWAV(wavPath)
	if err != nil {
		return nil, err
	}
	v, err := audio.Pooled(x, rate)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// tuxTrack is a Tux Paint track: which stamps (those with a spoken caption in every language of
// langs), where its files go and what its manifest says.
type tuxTrack struct {
	root, name, dir, builder string
	langs                    []string
	// audioFile is the base name of a language's feature files, "<audioFile(lang)>_<split>.npy".
	audioFile  func(lang string) string
	provenance string
	// languageCounts adds, to the manifest's counts, the stamps with an image and a caption, those
	// with each language and their intersection (the multilingual track).
	languageCounts bool
}

// tuxFrench is the French-only track (its files and manifest unchanged since builder tuxpaint/1).
func tuxFrench(root string) tuxTrack {
	return tuxTrack{root: root, name: "tuxpaint", dir: TuxPaintDir, builder: tuxBuilder, langs: []string{TuxSpeechLanguage},
		audioFile: func(string) string { return "audio" },
		provenance: "Tux Paint stamps (Debian tuxpaint-stamps-default 2022.06.04-1, GPL-2): image, English caption " +
			"(GloVe mean), human-recorded French spoken caption (" + TuxSpeechLanguage + ", oggdec → pooled log-mel)"}
}

// tuxLanguages is the multilingual track over langs.
func tuxLanguages(root string, langs []string) tuxTrack {
	return tuxTrack{root: root, name: "tuxpaint-langs", dir: TuxPaintLangsDir, builder: tuxLangsBuilder, langs: langs,
		audioFile: func(l string) string { return "audio_" + l }, languageCounts: true,
		provenance: "Tux Paint stamps (Debian tuxpaint-stamps-default 2022.06.04-1, GPL-2) that have a human-recorded spoken " +
			"caption in every language of " + strings.Join(langs, ", ") + ": image, English caption (GloVe mean), and per language " +
			"the spoken caption (oggdec → pooled log-mel, audio_<lang>_<split>.npy); every 5th of these stamps by path is test"}
}

// BuildTuxPaint builds the Tux Paint tri-modal track: per stamp a 32×32 RGB image, the mean GloVe
// vector of its English caption and the pooled log-mel of its French spoken caption.
func BuildTuxPaint(env Env, g *glove.Vectors, gloveSubset string) (*Manifest, error) {
	return buildTux(env, tuxFrench(TuxPaintStamps), g, gloveSubset)
}

// BuildTuxPaintLangs builds the multilingual Tux Paint track: the stamps with a spoken caption in
// every language of TuxSpeechLanguages, each with its image and caption as in the French-only track
// and one pooled log-mel per language (GRAM with k = 2…8 modalities on the same stamps).
func BuildTuxPaintLangs(env Env, g *glove.Vectors, gloveSubset string) (*Manifest, error) {
	return buildTux(env, tuxLanguages(TuxPaintStamps, TuxSpeechLanguages), g, gloveSubset)
}

// stampFeatures are one stamp's image vector and one pooled log-mel per language.
type stampFeatures struct {
	image  []float32
	speech [][]float32
}

// extractFeatures decodes every stamp's image and spoken captions, on GOMAXPROCS workers (each
// runs oggdec and rsvg-convert in its own directory under tmp); the result is in the order of ss,
// and the error, if any, is that of the first failing stamp in that order.
func extractFeatures(ss []stamp, tmp string) ([]stampFeatures, error) {
	out := make([]stampFeatures, len(ss))
	errs := make([]error, len(ss))
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(ss)); w++ {
		dir := filepath.Join(tmp, fmt.Sprint(w))
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(ss) && !failed.Load(); i = int(next.Add(1) - 1) {
				f := &out[i]
				if f.image, errs[i] = readStampImage(ss[i], dir); errs[i] == nil {
					for _, p := range ss[i].speech {
						var v []float32
						if v, errs[i] = readStampSpeech(p, dir); errs[i] != nil {
							break
						}
						f.speech = append(f.speech, v)
					}
				}
				if errs[i] != nil {
					failed.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// buildTux builds a Tux Paint track into <cache>/<tr.dir>: per split image_, text_ and one
// <audioFile(lang)>_ .npy per language, and meta_<split>.tsv (id, category, caption).
func buildTux(env Env, tr tuxTrack, g *glove.Vectors, gloveSubset string) (*Manifest, error) {
	all, err := scanStamps(tr.root)
	if err != nil {
		return nil, err
	}
	ss := withSpeech(tr.root, all, tr.langs)
	if len(ss) == 0 {
		return nil, noStamps(tr.root, tr.langs)
	}
	paths := []string{gloveSubset}
	for _, s := range ss {
		paths = append(paths, s.image, filepath.Join(tr.root, s.id+".txt"))
		paths = append(paths, s.speech...)
	}
	inputs, err := env.hashInputs(paths, "Debian tuxpaint-stamps-default")
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(env.Cache, tr.dir)
	if m, ok := env.fresh(dir, tr.builder, inputs); ok {
		return m, nil
	}
	for _, tool := range []string{"oggdec", "rsvg-convert"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("%s not found (install Debian packages vorbis-tools and librsvg2-bin)", tool)
		}
	}
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "tuxpaint")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	env.logf("%s: decoding %d stamps (images, %s speech)", tr.name, len(ss), strings.Join(tr.langs, ", "))
	feats, err := extractFeatures(ss, tmp)
	if err != nil {
		return nil, err
	}
	var img, txt [2][]float32
	aud := [2][][]float32{make([][]float32, len(tr.langs)), make([][]float32, len(tr.langs))}
	var meta [2][]string
	noTok, svg := 0, 0
	for i, s := range ss {
		tv, n := g.MeanVector(s.caption)
		if n == 0 {
			noTok++
		}
		if strings.HasSuffix(s.image, ".svg") {
			svg++
		}
		k := 0
		if i%tuxTestEvery == 0 {
			k = 1
		}
		img[k] = append(img[k], feats[i].image...)
		for l, v := range feats[i].speech {
			aud[k][l] = append(aud[k][l], v...)
		}
		txt[k] = append(txt[k], tv...)
		meta[k] = append(meta[k], s.id+"\t"+s.category+"\t"+oneLine(s.caption))
	}
	var outputs []string
	for k, split := range []string{"train", "test"} {
		n := len(meta[k])
		type array struct {
			name string
			dim  int
			data []float32
		}
		arrays := []array{{"image", TuxImageDim, img[k]}}
		for l, lang := range tr.langs {
			arrays = append(arrays, array{tr.audioFile(lang), audio.PooledDim, aud[k][l]})
		}
		arrays = append(arrays, array{"text", glove.Dim, txt[k]})
		for _, a := range arrays {
			p := filepath.Join(dir, a.name+"_"+split+".npy")
			if err := npy.WriteFile(p, []int{n, a.dim}, a.data); err != nil {
				return nil, err
			}
			outputs = append(outputs, relTo(env.Cache, p))
		}
		p := filepath.Join(dir, "meta_"+split+".tsv")
		if err := atomicfile.WriteFile(p, []byte("id\tcategory\tcaption\n"+strings.Join(meta[k], "\n")+"\n"), 0o644); err != nil {
			return nil, err
		}
		outputs = append(outputs, relTo(env.Cache, p))
	}
	var counts []Count
	if tr.languageCounts {
		counts = append(counts, Count{Split: "stamps with an image and a caption", Queries: len(all), ItemKind: "stamps"})
		for _, l := range tr.langs {
			counts = append(counts, Count{Split: "… with a spoken caption in " + l, Queries: len(withSpeech(tr.root, all, []string{l})), ItemKind: "stamps"})
		}
		counts = append(counts, Count{Split: "… in every language (" + strings.Join(tr.langs, ", ") + ")", Queries: len(ss), ItemKind: "stamps"})
	}
	counts = append(counts,
		Count{Split: "stamps train / test", Queries: len(meta[0]), Items: len(meta[1]), ItemKind: "stamps (test)"},
		Count{Split: "SVG stamps rasterised", Queries: svg, ItemKind: "(rsvg-convert)"},
		Count{Split: "captions without a GloVe token", Queries: noTok, ItemKind: "(zero text vector)"},
	)
	return finish(dir, env.Cache, Manifest{Track: tr.name, Kind: "real", Builder: tr.builder, Inputs: inputs, Counts: counts,
		Provenance: tr.provenance}, outputs)
}

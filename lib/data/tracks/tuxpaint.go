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
	"sort"
	"strings"

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
	// TuxImageSide: images are composited over white and area-averaged to 32×32 RGB.
	TuxImageSide = 32
	// tuxRasterSide is the size rsvg-convert renders SVG stamps at before the same averaging.
	tuxRasterSide = 128
	// tuxTestEvery: stamps sorted by path; stamp i is a test stamp when i % tuxTestEvery == 0.
	tuxTestEvery = 5
)

// TuxImageDim is the length of a Tux Paint image vector.
const TuxImageDim = TuxImageSide * TuxImageSide * 3

type stamp struct {
	id, dir, image, speech, caption, category string
}

// listStamps finds every stamp with an English caption, an image and a spoken caption.
func listStamps(root string) ([]stamp, error) {
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
		speech := base + "_desc_" + TuxSpeechLanguage + ".ogg"
		if _, err := os.Stat(speech); err != nil || img == "" {
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
		out = append(out, stamp{id: rel, dir: filepath.Dir(p), image: img, speech: speech, caption: caption,
			category: filepath.Dir(rel)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no stamp under %s has an image, a caption and a %s spoken caption", root, TuxSpeechLanguage)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].id < out[b].id })
	return out, nil
}

// TuxPaintVocabulary adds the tokens of the English captions.
func TuxPaintVocabulary(_ Env, vocab map[string]bool) error {
	ss, err := listStamps(TuxPaintStamps)
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

func readStampSpeech(s stamp, tmp string) ([]float32, error) {
	wavPath := filepath.Join(tmp, "speech.wav")
	if out, err := exec.Command("oggdec", "-Q", "-o", wavPath, s.speech).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("oggdec %s: %v %s (install Debian package vorbis-tools)", s.speech, err, out)
	}
	x, rate, err := audio.ReadWAV(wavPath)
	if err != nil {
		return nil, err
	}
	return audio.Pooled(x, rate)
}

// BuildTuxPaint builds the Tux Paint tri-modal track: per stamp a 32×32 RGB image, the mean GloVe
// vector of its English caption and the pooled log-mel of its French spoken caption.
func BuildTuxPaint(env Env, g *glove.Vectors, gloveSubset string) (*Manifest, error) {
	ss, err := listStamps(TuxPaintStamps)
	if err != nil {
		return nil, err
	}
	paths := []string{gloveSubset}
	for _, s := range ss {
		paths = append(paths, s.image, s.speech, filepath.Join(TuxPaintStamps, s.id+".txt"))
	}
	inputs, err := env.hashInputs(paths, "Debian tuxpaint-stamps-default")
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(env.Cache, TuxPaintDir)
	if m, ok := env.fresh(dir, tuxBuilder, inputs); ok {
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
	env.logf("tuxpaint: decoding %d stamps (images, %s speech)", len(ss), TuxSpeechLanguage)
	var img, aud, txt [2][]float32
	var meta [2][]string
	noTok, svg := 0, 0
	for i, s := range ss {
		iv, err := readStampImage(s, tmp)
		if err != nil {
			return nil, err
		}
		av, err := readStampSpeech(s, tmp)
		if err != nil {
			return nil, err
		}
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
		img[k] = append(img[k], iv...)
		aud[k] = append(aud[k], av...)
		txt[k] = append(txt[k], tv...)
		meta[k] = append(meta[k], s.id+"\t"+s.category+"\t"+oneLine(s.caption))
	}
	var outputs []string
	for k, split := range []string{"train", "test"} {
		n := len(meta[k])
		for _, a := range []struct {
			name string
			dim  int
			data []float32
		}{{"image", TuxImageDim, img[k]}, {"audio", audio.PooledDim, aud[k]}, {"text", glove.Dim, txt[k]}} {
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
	counts := []Count{
		{Split: "stamps train / test", Queries: len(meta[0]), Items: len(meta[1]), ItemKind: "stamps (test)"},
		{Split: "SVG stamps rasterised", Queries: svg, ItemKind: "(rsvg-convert)"},
		{Split: "captions without a GloVe token", Queries: noTok, ItemKind: "(zero text vector)"},
	}
	return finish(dir, env.Cache, Manifest{Track: "tuxpaint", Kind: "real", Builder: tuxBuilder, Inputs: inputs, Counts: counts,
		Provenance: "Tux Paint stamps (Debian tuxpaint-stamps-default 2022.06.04-1, GPL-2): image, English caption " +
			"(GloVe mean), human-recorded French spoken caption (" + TuxSpeechLanguage + ", oggdec → pooled log-mel)"}, outputs)
}

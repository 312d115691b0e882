package tracks

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/geoalign/geoalign/lib/data/audio"
	"github.com/geoalign/geoalign/lib/data/glove"
	"github.com/geoalign/geoalign/lib/npy"
)

// Digit-track sources and layout.
const (
	// SklearnDigitsCSV is the UCI handwritten-digits test set (1,797 8×8 images, pixels 0–16)
	// shipped by Debian's python3-sklearn.
	SklearnDigitsCSV = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"
	DigitsDir        = "digits"
	digitsBuilder    = "digits/1"
	// fsddTestMaxIndex: FSDD's official split puts recordings with index 0–4 in the test set.
	fsddTestMaxIndex = 4
	// digitsTestEvery: sklearn digits has no official split; image i is a test image when
	// i % digitsTestEvery == 0 (360 test, 1,437 train), a deterministic stratum of the file.
	digitsTestEvery = 5
	// digitPixelMax is the largest pixel value of the 8×8 digits (images are scaled by 1/16).
	digitPixelMax = 16
)

// DigitWords are the number words whose GloVe vectors form the text modality, index = digit.
var DigitWords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}

// DigitsVocabulary adds the number words.
func DigitsVocabulary(_ Env, vocab map[string]bool) error {
	for _, w := range DigitWords {
		vocab[w] = true
	}
	return nil
}

type fsddFile struct {
	path         string
	digit, index int
	speaker      string
}

// fsddSources is the staged folder of FSDD's recordings (datasets/sources.json).
const fsddSources = "fsdd/recordings/"

// listFSDD lists the FSDD recordings: those of env.Sources when set, else the .wav files staged
// in <Shared>/fsdd/recordings.
func listFSDD(env Env) ([]fsddFile, error) {
	dir := env.input(fsddSources)
	var names []string
	if env.Sources != nil {
		for rel := range env.Sources {
			if name, ok := strings.CutPrefix(rel, fsddSources); ok && strings.HasSuffix(name, ".wav") {
				names = append(names, name)
			}
		}
	} else {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("FSDD recordings: %w (staged in ../shared/data/fsdd)", err)
		}
		for _, e := range ents {
			names = append(names, e.Name())
		}
	}
	var out []fsddFile
	for _, name := range names {
		if !strings.HasSuffix(name, ".wav") {
			continue
		}
		path := env.input(fsddSources + name)
		parts := strings.Split(strings.TrimSuffix(name, ".wav"), "_")
		if len(parts) != 3 {
			return nil, fmt.Errorf("%s: want {digit}_{speaker}_{index}.wav", path)
		}
		d, err1 := strconv.Atoi(parts[0])
		i, err2 := strconv.Atoi(parts[2])
		if err1 != nil || err2 != nil || d < 0 || d > 9 {
			return nil, fmt.Errorf("%s: want {digit}_{speaker}_{index}.wav", path)
		}
		out = append(out, fsddFile{path, d, i, parts[1]})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no .wav files in %s", dir)
	}
	sort.Slice(out, func(a, b int) bool { return filepath.Base(out[a].path) < filepath.Base(out[b].path) })
	return out, nil
}

// readSklearnDigits reads digits.csv.gz: rows of 64 pixels then the label.
func readSklearnDigits(path string) (pixels []float32, labels []int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%w (install Debian package python3-sklearn)", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	sc := bufio.NewScanner(gz)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Split(strings.TrimSpace(sc.Text()), ",")
		if len(fields) != 65 {
			return nil, nil, fmt.Errorf("%s:%d: %d fields, want 64 pixels and a label", path, line, len(fields))
		}
		for j, s := range fields {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || v < 0 || v > digitPixelMax || v != math.Trunc(v) {
				return nil, nil, fmt.Errorf("%s:%d: field %d (%q) is not an integer in [0, 16]", path, line, j+1, s)
			}
			if j < 64 {
				pixels = append(pixels, float32(v/digitPixelMax))
			} else if v > 9 {
				return nil, nil, fmt.Errorf("%s:%d: label %v is not a digit", path, line, v)
			} else {
				labels = append(labels, int64(v))
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(labels) == 0 {
		return nil, nil, fmt.Errorf("%s: no images", path)
	}
	return pixels, labels, nil
}

// BuildDigits builds the class-level tri-modal digits track: FSDD spoken digits (pooled log-mel),
// sklearn handwritten digits (64 pixels in [0, 1]) and the GloVe vectors of the number words.
func BuildDigits(env Env, g *glove.Vectors, gloveSubset string) (*Manifest, error) {
	files, err := listFSDD(env)
	if err != nil {
		return nil, err
	}
	paths := []string{SklearnDigitsCSV, gloveSubset}
	for _, f := range files {
		paths = append(paths, f.path)
	}
	inputs, err := env.hashInputs(paths, "Debian python3-sklearn and the staged ../shared/data/fsdd")
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(env.Cache, DigitsDir)
	if m, ok := env.fresh(dir, digitsBuilder, inputs); ok {
		return m, nil
	}
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var outputs []string
	save := func(name string, shape []int, data any) error {
		p := filepath.Join(dir, name)
		var err error
		switch d := data.(type) {
		case []float32:
			err = npy.WriteFile(p, shape, d)
		case []int64:
			err = npy.WriteFile(p, shape, d)
		}
		outputs = append(outputs, relTo(env.Cache, p))
		return err
	}

	env.logf("digits: log-mel of %d FSDD recordings", len(files))
	var audioX [2][]float32
	var audioY [2][]int64
	for _, f := range files {
		x, rate, err := audio.ReadWAV(f.path)
		if err != nil {
			return nil, err
		}
		v, err := audio.Pooled(x, rate)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.path, err)
		}
		s := 0
		if f.index <= fsddTestMaxIndex {
			s = 1
		}
		audioX[s] = append(audioX[s], v...)
		audioY[s] = append(audioY[s], int64(f.digit))
	}
	pixels, labels, err := readSklearnDigits(SklearnDigitsCSV)
	if err != nil {
		return nil, err
	}
	var imgX [2][]float32
	var imgY [2][]int64
	for i, y := range labels {
		s := 0
		if i%digitsTestEvery == 0 {
			s = 1
		}
		imgX[s] = append(imgX[s], pixels[i*64:(i+1)*64]...)
		imgY[s] = append(imgY[s], y)
	}
	var words []float32
	for _, w := range DigitWords {
		v, ok := g.Lookup(w)
		if !ok {
			return nil, fmt.Errorf("GloVe subset lacks %q", w)
		}
		words = append(words, v...)
	}
	for s, split := range []string{"train", "test"} {
		na, ni := len(audioY[s]), len(imgY[s])
		if na == 0 || ni == 0 {
			return nil, fmt.Errorf("empty %s split (%d recordings, %d images)", split, na, ni)
		}
		for _, e := range []error{
			save("audio_"+split+".npy", []int{na, audio.PooledDim}, audioX[s]),
			save("audio_"+split+"_labels.npy", []int{na}, audioY[s]),
			save("image_"+split+".npy", []int{ni, 64}, imgX[s]),
			save("image_"+split+"_labels.npy", []int{ni}, imgY[s]),
		} {
			if e != nil {
				return nil, e
			}
		}
	}
	if err := save("words.npy", []int{len(DigitWords), glove.Dim}, words); err != nil {
		return nil, err
	}
	counts := []Count{
		{Split: "fsdd train / test", Queries: len(audioY[0]), Items: len(audioY[1]), ItemKind: "recordings (test)", Expected: "2700/300"},
		{Split: "sklearn digits train / test", Queries: len(imgY[0]), Items: len(imgY[1]), ItemKind: "images (test)", Expected: "1437/360"},
		{Split: "number words", Queries: len(DigitWords), Items: glove.Dim, ItemKind: "dims"},
	}
	return finish(dir, env.Cache, Manifest{Track: "digits", Kind: "real", Builder: digitsBuilder, Inputs: inputs, Counts: counts,
		Provenance: "FSDD (Jakobovski/free-spoken-digit-dataset @ 26eb9aaf76e81b692f806f9140c2d2777410d7a1, CC BY-SA 4.0; " +
			"official split: index 0-4 test), sklearn digits (UCI, CC BY 4.0, Debian python3-sklearn digits.csv.gz; " +
			"test = every 5th image), number words = GloVe 6B-100d. Class-level pairing only."}, outputs)
}

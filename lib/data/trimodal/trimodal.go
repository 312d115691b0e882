package trimodal

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/geoalign/geoalign/lib/npy"
)

// Set is N aligned triplets: row i of Text, Image and Audio belong together.
type Set struct {
	Name                        string
	N                           int
	Text, Image, Audio          []float32 // N×TextDim, N×ImageDim, N×AudioDim
	TextDim, ImageDim, AudioDim int
	Labels                      []int    // class of each triplet (digit, or category index)
	LabelNames                  []string // name of each label value
	IDs                         []string // stamp id or recording index
	// Speech (LoadTuxPaintLangs only) is the pooled log-mel of the spoken caption in each language
	// of Languages, N×AudioDim each; Audio is Speech[0].
	Speech    [][]float32
	Languages []string
}

func readMatrix(path string) ([]float32, int, int, error) {
	d, r, c, err := npy.ReadMatrix[float32](path)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("trimodal: %w (run `make data`)", err)
	}
	return d, r, c, nil
}

// LoadTuxPaint loads split ("train" or "test") of <cache>/tuxpaint.
func LoadTuxPaint(cache, split string) (*Set, error) {
	return loadTux(filepath.Join(cache, "tuxpaint"), split, []string{"audio"})
}

// LoadTuxPaintLangs loads split ("train" or "test") of <cache>/tuxpaint-langs, the stamps with a
// spoken caption in every language of the track, with the speech of each of langs (e.g. "fr",
// "es": files audio_<lang>_<split>.npy) in Speech, in that order.
func LoadTuxPaintLangs(cache, split string, langs []string) (*Set, error) {
	if len(langs) == 0 {
		return nil, fmt.Errorf("trimodal: LoadTuxPaintLangs needs at least one language")
	}
	files := make([]string, len(langs))
	for i, l := range langs {
		files[i] = "audio_" + l
	}
	s, err := loadTux(filepath.Join(cache, "tuxpaint-langs"), split, files)
	if err != nil {
		return nil, err
	}
	s.Languages = slices.Clone(langs)
	return s, nil
}

// loadTux reads split of a Tux Paint track directory: text_, image_ and the audio files named
// (<name>_<split>.npy), and meta_<split>.tsv (header, then id, category, caption).
func loadTux(dir, split string, audioFiles []string) (*Set, error) {
	s := &Set{Name: filepath.Base(dir) + " " + split}
	read := func(name string, dim *int) ([]float32, error) {
		p := filepath.Join(dir, name+"_"+split+".npy")
		x, r, c, err := readMatrix(p)
		if err != nil {
			return nil, err
		}
		if *dim != 0 && c != *dim {
			return nil, fmt.Errorf("trimodal: %s has %d columns, the other audio files %d", p, c, *dim)
		}
		if s.N != 0 && r != s.N || r == 0 {
			return nil, fmt.Errorf("trimodal: %s has %d rows, text_%s.npy %d (want equal and > 0)", p, r, split, s.N)
		}
		*dim, s.N = c, r
		return x, nil
	}
	var err error
	if s.Text, err = read("text", &s.TextDim); err != nil {
		return nil, err
	}
	if s.Image, err = read("image", &s.ImageDim); err != nil {
		return nil, err
	}
	for _, name := range audioFiles {
		x, err := read(name, &s.AudioDim)
		if err != nil {
			return nil, err
		}
		s.Speech = append(s.Speech, x)
	}
	s.Audio = s.Speech[0]
	if len(audioFiles) == 1 {
		s.Speech = nil
	}
	metaPath := filepath.Join(dir, "meta_"+split+".tsv")
	f, err := os.Open(metaPath)
	if err != nil {
		return nil, fmt.Errorf("trimodal: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	cats := map[string]int{}
	var top []string
	for line := 1; sc.Scan(); line++ {
		if line == 1 {
			continue // header
		}
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) != 3 {
			return nil, fmt.Errorf("trimodal: %s:%d: want id, category, caption", metaPath, line)
		}
		s.IDs = append(s.IDs, fields[0])
		top = append(top, strings.SplitN(fields[1], string(filepath.Separator), 2)[0])
		cats[top[len(top)-1]] = 0
	}
	if len(s.IDs) != s.N {
		return nil, fmt.Errorf("trimodal: %s has %d stamps, the arrays %d", metaPath, len(s.IDs), s.N)
	}
	for c := range cats {
		s.LabelNames = append(s.LabelNames, c)
	}
	sort.Strings(s.LabelNames)
	for i, c := range s.LabelNames {
		cats[c] = i
	}
	for _, c := range top {
		s.Labels = append(s.Labels, cats[c])
	}
	return s, nil
}

// LoadDigits loads split of <cache>/digits as one triplet per recording; seed fixes which
// same-digit image each recording is paired with.
func LoadDigits(cache, split string, seed uint64) (*Set, error) {
	dir := filepath.Join(cache, "digits")
	audio, na, ad, err := readMatrix(filepath.Join(dir, "audio_"+split+".npy"))
	if err != nil {
		return nil, err
	}
	images, ni, id, err := readMatrix(filepath.Join(dir, "image_"+split+".npy"))
	if err != nil {
		return nil, err
	}
	words, nw, wd, err := readMatrix(filepath.Join(dir, "words.npy"))
	if err != nil {
		return nil, err
	}
	al, err := npy.ReadIndices(filepath.Join(dir, "audio_"+split+"_labels.npy"))
	if err != nil {
		return nil, err
	}
	il, err := npy.ReadIndices(filepath.Join(dir, "image_"+split+"_labels.npy"))
	if err != nil {
		return nil, err
	}
	if len(al) != na || len(il) != ni || nw != 10 {
		return nil, fmt.Errorf("trimodal: %s: label counts disagree with the arrays", dir)
	}
	byDigit := make([][]int, 10)
	for i, y := range il {
		if y < 0 || y > 9 {
			return nil, fmt.Errorf("trimodal: %s: image %d has label %d", dir, i, y)
		}
		byDigit[y] = append(byDigit[y], i)
	}
	rng := rand.New(rand.NewPCG(seed, 0x6469676974)) // stream "digit"
	s := &Set{Name: "digits " + split, N: na, TextDim: wd, ImageDim: id, AudioDim: ad, Audio: audio,
		LabelNames: []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}}
	for i, y := range al {
		if y < 0 || y > 9 || len(byDigit[y]) == 0 {
			return nil, fmt.Errorf("trimodal: %s: recording %d has label %d with no image", dir, i, y)
		}
		img := byDigit[y][rng.IntN(len(byDigit[y]))]
		s.Image = append(s.Image, images[img*id:(img+1)*id]...)
		s.Text = append(s.Text, words[y*wd:(y+1)*wd]...)
		s.Labels = append(s.Labels, y)
		s.IDs = append(s.IDs, fmt.Sprint(i))
	}
	return s, nil
}

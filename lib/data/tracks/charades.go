package tracks

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/data/bigfile"
	"github.com/geoalign/geoalign/lib/data/captions"
	"github.com/geoalign/geoalign/lib/data/charades"
	"github.com/geoalign/geoalign/lib/data/glove"
	"github.com/geoalign/geoalign/lib/data/h5"
	"github.com/geoalign/geoalign/lib/data/prvr"
)

// Names of the Charades track in the cache (official MS-SL layout under <cache>/charades).
const (
	CharadesDir            = "charades"                // <cache>/charades = the layout's data_root
	CharadesSTACollection  = "charades"                // Charades-STA PRVR
	CharadesDescCollection = "charadesdesc"            // Charades descriptions ↔ videos
	CharadesVisualFeature  = "label_multihot_glove100" // FeatureData/<name>
	charadesBuilder        = "charades-label/1"
)

// CharadesGloVeOffset is where the mean-GloVe block starts inside a label-derived feature.
const CharadesGloVeOffset = charades.NumClasses

// CharadesLayout returns the layout of collection (CharadesSTACollection or
// CharadesDescCollection) in the cache.
func CharadesLayout(cache, collection string) prvr.Layout {
	return prvr.Layout{Root: filepath.Join(cache, CharadesDir), Collection: collection,
		VisualFeature: CharadesVisualFeature, TextFeature: "glove100_" + collection + "_query_feat.hdf5"}
}

// charadesSources are the staged files the track reads.
type charadesSources struct {
	staTrain, staTest, v1Train, v1Test, classes string
}

func charadesFiles(env Env) charadesSources {
	return charadesSources{env.input("charades/charades_sta_train.txt"), env.input("charades/charades_sta_test.txt"),
		env.input("charades/Charades_v1_train.csv"), env.input("charades/Charades_v1_test.csv"), env.input("charades/classes.tsv")}
}

// charadesData is the parsed annotation set.
type charadesData struct {
	staTrain, staTest []charades.Moment
	v1Train, v1Test   []charades.Video
	classes           []string
}

func readCharades(env Env) (*charadesData, error) {
	f := charadesFiles(env)
	var d charadesData
	var err error
	if d.staTrain, err = charades.ReadSTA(f.staTrain); err != nil {
		return nil, err
	}
	if d.staTest, err = charades.ReadSTA(f.staTest); err != nil {
		return nil, err
	}
	if d.v1Train, err = charades.ReadVideos(f.v1Train); err != nil {
		return nil, err
	}
	if d.v1Test, err = charades.ReadVideos(f.v1Test); err != nil {
		return nil, err
	}
	if d.classes, err = charades.ReadClasses(f.classes); err != nil {
		return nil, err
	}
	return &d, nil
}

// oneLine collapses every whitespace run (CSV fields may hold newlines) to one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// CharadesVocabulary adds the tokens of every Charades text the track encodes to vocab.
func CharadesVocabulary(env Env, vocab map[string]bool) error {
	d, err := readCharades(env)
	if err != nil {
		return err
	}
	add := func(s string) {
		for _, t := range glove.Tokenize(s) {
			vocab[t] = true
		}
	}
	for _, m := range append(append([]charades.Moment(nil), d.staTrain...), d.staTest...) {
		add(m.Sentence)
	}
	for _, v := range append(append([]charades.Video(nil), d.v1Train...), d.v1Test...) {
		add(v.Descriptions)
	}
	for _, c := range d.classes {
		add(c)
	}
	return nil
}

// classVectors returns, per class, the unit-length mean GloVe vector of its name's tokens.
func classVectors(names []string, g *glove.Vectors) ([][]float32, error) {
	out := make([][]float32, len(names))
	for c, name := range names {
		mean, n := g.MeanVector(name)
		if n == 0 {
			return nil, fmt.Errorf("charades: class %d %q has no GloVe token", c, name)
		}
		var ss float64
		for _, x := range mean {
			ss += float64(x) * float64(x)
		}
		for j := range mean {
			mean[j] = float32(float64(mean[j]) / math.Sqrt(ss))
		}
		out[c] = mean
	}
	return out, nil
}

// BuildCharades builds the label-derived Charades features and the two collections that use them.
func BuildCharades(env Env, g *glove.Vectors, gloveSubset string) (*Manifest, error) {
	src := charadesFiles(env)
	inputs, err := env.hashInputs([]string{src.staTrain, src.staTest, src.v1Train, src.v1Test, src.classes, gloveSubset},
		"the staged ../shared/data/charades (see datasets/README.md)")
	if err != nil {
		return nil, err
	}
	root := filepath.Join(env.Cache, CharadesDir)
	if m, ok := env.fresh(root, charadesBuilder, inputs); ok {
		return m, nil
	}
	if err := os.RemoveAll(root); err != nil {
		return nil, err
	}
	d, err := readCharades(env)
	if err != nil {
		return nil, err
	}
	cv, err := classVectors(d.classes, g)
	if err != nil {
		return nil, err
	}
	sta := CharadesLayout(env.Cache, CharadesSTACollection)
	desc := CharadesLayout(env.Cache, CharadesDescCollection)
	var outputs []string
	out := func(p string) { outputs = append(outputs, relTo(env.Cache, p)) }

	// Video side: label-derived frames of every Charades v1 video.
	env.logf("charades: label-derived frame features at %g fps", charades.FrameRate)
	videos := append(append([]charades.Video(nil), d.v1Train...), d.v1Test...)
	dim := charades.LabelFrameDim(glove.Dim)
	var ids []string
	var rows []float32
	v2f := bigfile.Video2Frames{}
	known := map[string]bool{}
	for _, v := range videos {
		x, n, err := charades.LabelFrames(v, cv, charades.FrameRate)
		if err != nil {
			return nil, fmt.Errorf("charades: video %s: %w", v.ID, err)
		}
		frames := make([]string, n)
		for k := range frames {
			frames[k] = fmt.Sprintf("%s_%d", v.ID, k)
		}
		ids = append(ids, frames...)
		rows = append(rows, x...)
		v2f[v.ID] = frames
		known[v.ID] = true
	}
	featDir := sta.FeatureDir()
	if err := bigfile.Write(featDir, ids, dim, rows); err != nil {
		return nil, err
	}
	rows = nil
	if err := writeVideo2Frames(filepath.Join(featDir, bigfile.Video2FramesFileName), v2f); err != nil {
		return nil, err
	}
	for _, f := range []string{bigfile.ShapeFileName, bigfile.IDFileName, bigfile.FeatureFileName, bigfile.Video2FramesFileName} {
		out(filepath.Join(featDir, f))
	}
	// The descriptions collection shares the same features.
	if err := os.MkdirAll(filepath.Join(desc.Root, desc.Collection), 0o755); err != nil {
		return nil, err
	}
	if err := os.Symlink(filepath.Join("..", sta.Collection, "FeatureData"), filepath.Join(desc.Root, desc.Collection, "FeatureData")); err != nil {
		return nil, err
	}

	// Charades-STA PRVR collection.
	for _, m := range append(append([]charades.Moment(nil), d.staTrain...), d.staTest...) {
		if !known[m.VideoID] {
			return nil, fmt.Errorf("charades: Charades-STA video %s is not in the Charades v1 CSVs", m.VideoID)
		}
	}
	staTrain, staTest := charades.STACaptions(d.staTrain), charades.STACaptions(d.staTest)
	noTok, err := writeCollectionText(sta, g, map[string][]captions.Caption{"train": staTrain, "val": staTest, "test": staTest}, out)
	if err != nil {
		return nil, err
	}
	// Descriptions ↔ videos collection: one caption per video, official v1 split.
	descCaps := func(vs []charades.Video) []captions.Caption {
		var cs []captions.Caption
		for _, v := range vs {
			if t := oneLine(v.Descriptions); t != "" {
				cs = append(cs, captions.Caption{ID: captions.EncID(v.ID, 0), Text: t})
			}
		}
		return cs
	}
	descTrain, descTest := descCaps(d.v1Train), descCaps(d.v1Test)
	noTokDesc, err := writeCollectionText(desc, g, map[string][]captions.Caption{"train": descTrain, "val": descTest, "test": descTest}, out)
	if err != nil {
		return nil, err
	}

	counts := []Count{
		{Split: "charades-sta train", Queries: len(staTrain), Items: len(captions.VideoIDs(staTrain)), ItemKind: "videos", Expected: "12408/5338"},
		{Split: "charades-sta test", Queries: len(staTest), Items: len(captions.VideoIDs(staTest)), ItemKind: "videos", Expected: "3720/1334"},
		{Split: "charades-desc train", Queries: len(descTrain), Items: len(captions.VideoIDs(descTrain)), ItemKind: "videos", Expected: "7985/7985"},
		{Split: "charades-desc test", Queries: len(descTest), Items: len(captions.VideoIDs(descTest)), ItemKind: "videos", Expected: "1863/1863"},
		{Split: "label-derived frames", Queries: len(ids), Items: len(videos), ItemKind: fmt.Sprintf("videos (D=%d, %g fps)", dim, charades.FrameRate)},
		{Split: "queries without a GloVe token", Queries: noTok + noTokDesc, ItemKind: "(encoded as one zero token)"},
	}
	return finish(root, env.Cache, Manifest{
		Track: "charades", Kind: "label-derived", Builder: charadesBuilder, Inputs: inputs, Counts: counts,
		Provenance: "Charades-STA + Charades v1 annotations from microsoft/2D-TAN @ 2f7410f0de5e764ac7d84817f173732ef34e1545 " +
			"data/Charades-STA/ (staged in ../shared/data/charades; Charades: AI2 non-commercial research licence); " +
			"video features derived from the timed action labels (multi-hot over 157 classes ⊕ mean GloVe of the active class names); " +
			"query tokens GloVe 6B-100d",
	}, outputs)
}

// writeCollectionText writes the caption files of every split and the HDF5 token features of
// every caption; it returns how many captions had no in-vocabulary token.
func writeCollectionText(l prvr.Layout, g *glove.Vectors, splits map[string][]captions.Caption, out func(string)) (int, error) {
	if err := os.MkdirAll(filepath.Dir(l.CaptionFile("train")), 0o755); err != nil {
		return 0, err
	}
	w, err := h5.Create(l.TextFeatureFile())
	if err != nil {
		return 0, err
	}
	written := map[string]bool{}
	noTok := 0
	for _, split := range []string{"train", "val", "test"} {
		caps := splits[split]
		if err := atomicfile.Write(l.CaptionFile(split), func(f io.Writer) error { return captions.Write(f, caps) }); err != nil {
			w.Abort()
			return 0, err
		}
		out(l.CaptionFile(split))
		for _, c := range caps {
			if written[c.ID] {
				continue
			}
			written[c.ID] = true
			tok, kept := g.SentenceTokens(c.Text)
			if len(kept) == 0 {
				noTok++
				tok = make([]float32, glove.Dim)
			}
			if err := w.WriteFloat32(c.ID, []int{len(tok) / glove.Dim, glove.Dim}, tok); err != nil {
				w.Abort()
				return 0, err
			}
		}
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	out(l.TextFeatureFile())
	return noTok, nil
}

func writeVideo2Frames(path string, v bigfile.Video2Frames) error {
	return atomicfile.Write(path, func(w io.Writer) error { return bigfile.WriteVideo2Frames(w, v) })
}

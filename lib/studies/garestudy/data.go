package garestudy

import (
	"fmt"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/data/synth"
	"github.com/geoalign/geoalign/lib/data/tracks"
	"github.com/geoalign/geoalign/lib/encoders"
	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/geoalign/geoalign/lib/runcache"
)

// CharadesFrames and CharadesWords are the per-video frames (the code's 12) and per-caption
// words (30 = MS-SL's max_desc_l, the Charades track's tokenisation) of the Charades track.
const (
	CharadesFrames = 12
	CharadesWords  = 30
)

// CharadesData is "Charades descriptions ↔ videos" from the data cache (lib/data/tracks,
// `make data`): real free-text descriptions (GloVe 100-d tokens) and label-derived video features
// (multi-hot of the annotated actions ⊕ mean GloVe of their names, 257-d at 2 fps) averaged into
// 12 segments; the official Charades v1 train/test split, one description per video.
//
// workDir, when set, keeps the processed datasets (encoding/gob) so that later calls skip the
// BigFile/HDF5 reading (≈ 10 s for the whole split); the file's name carries the track files'
// fingerprint (prvr.Layout.Stamp), so a rebuilt, corrupted or other cache is read again.
func CharadesData(cache, workDir string, trainPairs, testPairs int) (train, test *gare.Dataset, err error) {
	return CharadesDataText(cache, workDir, trainPairs, testPairs, encoders.GloVe)
}

// CharadesDataText is CharadesData with the descriptions encoded by t: GloVe (CharadesData's tokens)
// or MiniLM (the minilm track: each description's all-MiniLM-L6-v2 sentence embedding as a single
// 384-d "word", so Text is that embedding). With MiniLM the datasets' names carry the encoder
// (", MiniLM all-MiniLM-L6-v2 text"): it enters the run keys (the dataset fingerprint) and every
// table's data; the saved datasets are named after it too.
func CharadesDataText(cache, workDir string, trainPairs, testPairs int, t encoders.Text) (train, test *gare.Dataset, err error) {
	if err := t.Validate(); err != nil {
		return nil, nil, fmt.Errorf("gare experiments: %w", err)
	}
	l := tracks.CharadesTextLayout(cache, tracks.CharadesDescCollection, t)
	stamp, err := l.Stamp("train", "test")
	if err != nil {
		return nil, nil, fmt.Errorf("gare experiments: the Charades track (%s text) is not built in %s (run `make data`): %w", t, cache, err)
	}
	words, name, file := CharadesWords, "Charades descriptions ↔ videos", "charades-desc"
	if t != encoders.GloVe {
		words, name, file = 1, name+", "+t.Describe(), file+"-"+t.String()
	}
	var saved string
	if workDir != "" {
		saved = filepath.Join(workDir, fmt.Sprintf("%s-%d-%d-%s.gob", file, trainPairs, testPairs, stamp))
	}
	load := func(split string, n int) (*gare.Dataset, error) {
		s, err := prvr.Load(l, split)
		if err != nil {
			return nil, err
		}
		d, err := gare.FromPRVRSplit(name+", "+split, "label-derived", s, CharadesFrames, words)
		if err != nil || n <= 0 || n >= d.NumTexts {
			return d, err
		}
		return d.Subset(fmt.Sprintf("%s (first %d pairs)", d.Name, n), seq(n)), nil
	}
	pair, err := runcache.Memo(saved, func() (pair [2]*gare.Dataset, err error) {
		if pair[0], err = load("train", trainPairs); err == nil {
			pair[1], err = load("test", testPairs)
		}
		return pair, err
	})
	return pair[0], pair[1], err
}

// SyntheticConfig is the synthetic false-negative benchmark (lib/data/synth GeneratePairs) at a
// false-negative rate: latent concepts seen through random text and frame projections, each
// modality shifted by a constant offset (Gap, the modality gap), noisy frames jittered in time.
func SyntheticConfig(pairs int, falseNegativeRate float64, seed uint64) synth.PairsConfig {
	return synth.PairsConfig{Seed: seed, N: pairs, LatentDim: 32, FalseNegativeRate: falseNegativeRate,
		TextDim: 64, FrameDim: 64, Frames: 12, Gap: 4, TextNoise: 0.5, FrameNoise: 0.5, FrameJitter: 0.5}
}

// SyntheticData generates the benchmark and splits it (gare.FromSyntheticPairs).
func SyntheticData(pairs, trainPairs int, falseNegativeRate float64, seed uint64) (train, test *gare.Dataset, err error) {
	p, err := synth.GeneratePairs(SyntheticConfig(pairs, falseNegativeRate, seed))
	if err != nil {
		return nil, nil, err
	}
	return gare.FromSyntheticPairs(p, trainPairs)
}

// DefaultWorkDir is the disk cache of datasets, runs and models of a scale:
// <runcache.Root>/gare-<scale> when the run-cache root is set (the root `make figures`, the other
// studies and kernel/nb.RunCache share; notebook 12 reads its runs through this function), else
// build/gare-<scale> under the repository root (git-ignored).
func DefaultWorkDir(scale string) string {
	return filepath.Join(runcache.Root(runcache.InCheckout("build")), "gare-"+scale)
}

package garestudy

import (
	"encoding/gob"
	"fmt"
	"os"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/data/charades"
	"github.com/geoalign/geoalign/lib/data/glove"
	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/data/synth"
	"github.com/geoalign/geoalign/lib/data/tracks"
	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/geoalign/geoalign/lib/retrieval"
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
// BigFile/HDF5 reading (≈ 10 s for the whole split).
func CharadesData(cache, workDir string, trainPairs, testPairs int) (train, test *gare.Dataset, err error) {
	var saved string
	if workDir != "" {
		saved = filepath.Join(workDir, fmt.Sprintf("charades-desc-%d-%d.gob", trainPairs, testPairs))
		if f, err := os.Open(saved); err == nil {
			var pair [2]*gare.Dataset
			err := gob.NewDecoder(f).Decode(&pair)
			f.Close()
			if err == nil {
				return pair[0], pair[1], nil
			}
		}
	}
	defer func() {
		if err == nil && saved != "" {
			err = saveGob(saved, [2]*gare.Dataset{train, test})
		}
	}()
	l := tracks.CharadesLayout(cache, tracks.CharadesDescCollection)
	if _, err := os.Stat(l.CaptionFile("train")); err != nil {
		return nil, nil, fmt.Errorf("gare experiments: the Charades track is not built in %s (run `make data`): %w", cache, err)
	}
	load := func(split string, n int) (*gare.Dataset, error) {
		s, err := prvr.Load(l, split)
		if err != nil {
			return nil, err
		}
		d, err := gare.FromPRVRSplit("Charades descriptions ↔ videos, "+split, "label-derived", s, CharadesFrames, CharadesWords)
		if err != nil {
			return nil, err
		}
		if n > 0 && n < d.NumTexts {
			idx := make([]int, n)
			for i := range idx {
				idx[i] = i
			}
			d = d.Subset(fmt.Sprintf("%s (first %d pairs)", d.Name, n), idx)
		}
		return d, nil
	}
	if train, err = load("train", trainPairs); err != nil {
		return nil, nil, err
	}
	if test, err = load("test", testPairs); err != nil {
		return nil, nil, err
	}
	return train, test, nil
}

// CharadesFloor is the zero-training floor of the Charades descriptions ↔ videos test split (the data of
// CharadesData, all test pairs), evaluated as gare.Model.Evaluate evaluates a model (text→video and
// video→text, TextVideoKs, ties pessimistic): the score of a description for a video is the best
// cosine, over the video's 32 clips, between the unit mean GloVe vector of the description's content
// words and the clip's mix of its annotated actions' name vectors (tracks.ZeroShotContentWords, the
// stronger of the Charades floors; no parameter is learned). shared holds charades/classes.tsv.
func CharadesFloor(cache, shared string) (retrieval.Report, error) {
	s, err := prvr.Load(tracks.CharadesLayout(cache, tracks.CharadesDescCollection), "test")
	if err != nil {
		return retrieval.Report{}, fmt.Errorf("gare floor (run `make data`): %w", err)
	}
	g, err := glove.ReadText(filepath.Join(cache, "glove", "glove100_subset.txt"))
	if err != nil {
		return retrieval.Report{}, err
	}
	classes, err := charades.ReadClasses(filepath.Join(shared, "charades", "classes.tsv"))
	if err != nil {
		return retrieval.Report{}, err
	}
	scores, err := tracks.ZeroShotContentWords(s, classes, g)
	if err != nil {
		return retrieval.Report{}, err
	}
	mat, err := retrieval.NewMatrix(s.NumQueries(), s.NumVideos(), scores)
	if err != nil {
		return retrieval.Report{}, err
	}
	res, err := retrieval.Evaluate[float32](mat, s.QueryVideo, retrieval.Options{VideoToText: true})
	if err != nil {
		return retrieval.Report{}, err
	}
	return res.Report, nil
}

// repoRoot is the directory of the nearest go.mod above the working directory (GoNB runs cells
// in notebooks/), or "." when there is none.
func repoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return "."
		}
	}
}

// DefaultCache is $GEOALIGN_CACHE or datasets/cache under the repository root.
func DefaultCache() string {
	if c := os.Getenv("GEOALIGN_CACHE"); c != "" {
		return c
	}
	return filepath.Join(repoRoot(), "datasets", "cache")
}

// SyntheticConfig is the synthetic false-negative benchmark (lib/data/synth GeneratePairs) at a
// false-negative rate: 64-d latent concepts seen through a random text projection and a random
// frame projection, each modality shifted by a constant offset of norm 4 (the modality gap),
// noise 0.5 on both sides and 0.5 latent jitter across a video's 12 frames.
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

func saveGob(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := gob.NewEncoder(f).Encode(v); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// DefaultWorkDir is build/gare-<scale> under the repository root: the disk cache of datasets,
// runs and models (git-ignored).
func DefaultWorkDir(scale string) string {
	return filepath.Join(repoRoot(), "build", "gare-"+scale)
}

package main

import (
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/charades"
	"github.com/geoalign/geoalign/lib/data/glove"
	"github.com/geoalign/geoalign/lib/data/tracks"
	"github.com/geoalign/geoalign/lib/retrieval"
)

// runDataBaseline computes the zero-training Charades-STA PRVR baseline (GloVe queries, max over
// clips of the label-derived clips' GloVe block) and evaluates it with lib/retrieval.
func runDataBaseline(args []string, stdout, stderr io.Writer) int {
	fs, cache, shared := dataFlags("data baseline")
	split := fs.String("split", "test", "split to evaluate")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	die := func(err error) int { return fail(stderr, "data baseline", err) }
	s, loadTime, err := loadSTA(*cache, *split)
	if err != nil {
		return die(err)
	}
	g, err := glove.ReadText(tracks.GloVeSubset(*cache))
	if err != nil {
		return die(data.BadInput(err))
	}
	classes, err := charades.ReadClasses(filepath.Join(*shared, "charades", "classes.tsv"))
	if err != nil {
		return die(data.BadInput(err))
	}
	fmt.Fprintf(stdout, "charades-sta %s (label-derived video features), zero-training GloVe, max over clips, %d queries × %d videos (load %.2f s)\n",
		*split, s.NumQueries(), s.NumVideos(), loadTime.Seconds())
	variants := []struct {
		name  string
		score func() ([]float32, error)
	}{
		{"all tokens (query tokens vs clip GloVe block)", func() ([]float32, error) {
			return tracks.ZeroShotMaxOverClips(s, tracks.CharadesGloVeOffset, glove.Dim)
		}},
		{"content words (stop words dropped on both sides)", func() ([]float32, error) {
			return tracks.ZeroShotContentWords(s, classes, g)
		}},
	}
	for _, v := range variants {
		start := time.Now()
		scores, err := v.score()
		if err != nil {
			return die(err)
		}
		m, err := retrieval.NewMatrix(s.NumQueries(), s.NumVideos(), scores)
		if err != nil {
			return die(err)
		}
		res, err := retrieval.Evaluate[float32](m, s.QueryVideo, retrieval.Options{Ks: retrieval.PRVRKs})
		if err != nil {
			return die(err)
		}
		fmt.Fprintf(stdout, "%-50s t2v: %v  [%.1f s]\n", v.name, res.T2V, time.Since(start).Seconds())
	}
	return exitOK
}

package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/geoalign/geoalign/lib/data/glove"
	"github.com/geoalign/geoalign/lib/data/tracks"
	"github.com/geoalign/geoalign/lib/retrieval"
)

// runDataBaseline computes the zero-training Charades-STA PRVR baseline (GloVe queries, max over
// clips of the label-derived clips' GloVe block) and evaluates it with lib/retrieval.
func runDataBaseline(args []string) int {
	fs := flag.NewFlagSet("data baseline", flag.ContinueOnError)
	cache, _ := dataDirs(fs)
	split := fs.String("split", "test", "split to evaluate")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	s, loadTime, err := loadSTA(*cache, *split)
	if err != nil {
		fmt.Fprintln(os.Stderr, "geoalign data baseline:", err)
		return 1
	}
	start := time.Now()
	scores, err := tracks.ZeroShotMaxOverClips(s, tracks.CharadesGloVeOffset, glove.Dim)
	if err != nil {
		fmt.Fprintln(os.Stderr, "geoalign data baseline:", err)
		return 1
	}
	m, err := retrieval.NewMatrix(s.NumQueries(), s.NumVideos(), scores)
	if err != nil {
		fmt.Fprintln(os.Stderr, "geoalign data baseline:", err)
		return 1
	}
	res, err := retrieval.Evaluate[float32](m, s.QueryVideo, retrieval.Options{Ks: retrieval.PRVRKs})
	if err != nil {
		fmt.Fprintln(os.Stderr, "geoalign data baseline:", err)
		return 1
	}
	fmt.Printf("charades-sta %s (label-derived video features), zero-training GloVe max-over-clips, %d queries × %d videos\n",
		*split, s.NumQueries(), s.NumVideos())
	fmt.Println("t2v:", res.T2V)
	fmt.Printf("load %.2f s, scoring %.2f s\n", loadTime.Seconds(), time.Since(start).Seconds())
	return 0
}

// Command gare-memory measures how GARE's Δ-for-every-pair inference scales with the number of
// videos (issue 7, acceptance 2): it scores `-texts` random texts against `-videos` random videos
// with the official configuration on given 512-d features (ψ on frame features after the temporal
// transformer, as the official evaluation loop receives them) through lib/retrieval's streaming
// Evaluate, the video features generated block by block on the fly (so no O(videos) feature
// store). Run it under /usr/bin/time -v and compare the maximum resident set size:
//
//	go build -o /tmp/gare-memory ./lib/models/gare/cmd/gare-memory
//	/usr/bin/time -v /tmp/gare-memory -videos 1000
//	/usr/bin/time -v /tmp/gare-memory -videos 10000
//
// The score strip Evaluate ranks is rows × videos floats; -rows fixes the rows per strip so that
// the strip has a fixed size budget (-strip-bytes) whatever the number of videos.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/geoalign/geoalign/lib/retrieval"
)

// generatedVideos yields N(0, 0.4²) frame features, each video drawn from its own seed.
type generatedVideos struct{ n, frames, dim int }

func (g generatedVideos) NumVideos() int { return g.n }

func (g generatedVideos) ReadVideos(i0, i1 int, frames, mask []float32) error {
	w := g.frames * g.dim
	for v := i0; v < i1; v++ {
		rng := rand.New(rand.NewPCG(uint64(v), 0x766964656f))
		row := frames[(v-i0)*w : (v-i0+1)*w]
		for k := range row {
			row[k] = float32(0.4 * rng.NormFloat64())
		}
	}
	for k := range mask[:(i1-i0)*g.frames] {
		mask[k] = 1
	}
	return nil
}

func main() {
	texts := flag.Int("texts", 1000, "number of texts")
	videos := flag.Int("videos", 1000, "number of videos")
	stripBytes := flag.Int("strip-bytes", 4<<20, "bytes of the score strip ranked at a time (sets the rows per strip)")
	flag.Parse()
	cfg := gare.DefaultConfig()
	cfg.TemporalLayers = 0
	m, err := gare.New(backend.MustNew(), cfg, 1)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	td := gare.RandomDataset(*texts, cfg.TextInputDim, cfg.VideoInputDim, cfg.Frames, 0.4, 5)
	td.Video, td.FrameMask = nil, nil // only the text side is used
	sc, err := m.NewScorer(td, generatedVideos{*videos, cfg.Frames, cfg.VideoInputDim}, gare.ScorerOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	gt := make([]int, *texts)
	for i := range gt {
		gt[i] = i % *videos
	}
	rows := max(1, *stripBytes/(4**videos))
	start := time.Now()
	res, err := retrieval.Evaluate[float32](sc, gt, retrieval.Options{QueryBlock: rows, ItemBlock: gare.DefaultVideoBlock})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("texts %d × videos %d: %d rows per strip (%.1f MiB), %.1f s, t2v %s\n", *texts, *videos, rows,
		float64(rows**videos*4)/(1<<20), time.Since(start).Seconds(), res.T2V)
}

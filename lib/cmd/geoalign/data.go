package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/data/tracks"
)

func init() {
	register("data", "build the real data tracks into datasets/cache (build | load | baseline)", runData)
}

// dataDirs are the flags shared by the data subcommands.
func dataDirs(fs *flag.FlagSet) (cache, shared *string) {
	defShared := os.Getenv("GEOALIGN_SHARED")
	if defShared == "" {
		defShared = "../shared/data"
	}
	cache = fs.String("cache", "datasets/cache", "build cache (git-ignored)")
	shared = fs.String("shared", defShared, "staged real data (read-only); env GEOALIGN_SHARED")
	return cache, shared
}

func runData(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, `usage: geoalign data build [-only glove,charades,digits,tuxpaint,tuxpaint-langs,wordnet] [-cache dir] [-shared dir]
       geoalign data load [-split test]       time loading the Charades-STA PRVR track
       geoalign data baseline [-split test]   zero-training Charades-STA PRVR baseline`)
		return 2
	}
	switch args[0] {
	case "build":
		return runDataBuild(args[1:])
	case "load":
		return runDataLoad(args[1:])
	case "baseline":
		return runDataBaseline(args[1:])
	}
	fmt.Fprintf(os.Stderr, "geoalign data: unknown subcommand %q (build, load, baseline)\n", args[0])
	return 2
}

func runDataBuild(args []string) int {
	fs := flag.NewFlagSet("data build", flag.ContinueOnError)
	cache, shared := dataDirs(fs)
	only := fs.String("only", "", "comma-separated tracks to build: "+strings.Join(tracks.TrackNames(), ","))
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var names []string
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	start := time.Now()
	ms, err := tracks.BuildAll(tracks.Env{Shared: *shared, Cache: *cache, Log: os.Stderr}, names)
	if len(ms) > 0 {
		tracks.PrintSummary(os.Stdout, ms)
	}
	fmt.Printf("\ndata build: %d track(s) in %.1f s, cache %s\n", len(ms), time.Since(start).Seconds(), *cache)
	if err != nil {
		fmt.Fprintln(os.Stderr, "geoalign data build:", err)
		return 1
	}
	return 0
}

// loadSTA loads one split of the Charades-STA PRVR track and reports how long it took.
func loadSTA(cache, split string) (*prvr.Split, time.Duration, error) {
	start := time.Now()
	s, err := prvr.Load(tracks.CharadesLayout(cache, tracks.CharadesSTACollection), split)
	if err != nil {
		return nil, 0, fmt.Errorf("%w (run `make data` first)", err)
	}
	return s, time.Since(start), nil
}

func runDataLoad(args []string) int {
	fs := flag.NewFlagSet("data load", flag.ContinueOnError)
	cache, _ := dataDirs(fs)
	split := fs.String("split", "", "split to load (default: train and test)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	splits := []string{"train", "test"}
	if *split != "" {
		splits = []string{*split}
	}
	for _, sp := range splits {
		s, d, err := loadSTA(*cache, sp)
		if err != nil {
			fmt.Fprintln(os.Stderr, "geoalign data load:", err)
			return 1
		}
		fmt.Printf("charades-sta %-5s %6d queries × %5d videos, video D=%d, query D=%d, loaded in %.2f s\n",
			sp, s.NumQueries(), s.NumVideos(), s.Dim, s.QueryDim, d.Seconds())
	}
	return 0
}

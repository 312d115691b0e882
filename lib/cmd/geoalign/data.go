package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/data/sources"
	"github.com/geoalign/geoalign/lib/data/tracks"
)

func init() {
	register("data", "build the real data tracks into datasets/cache (build | load | baseline)", runData)
}

// dataFlags returns the flag set of `geoalign <name>`, a data subcommand, with the flags they share.
func dataFlags(name string) (fs *flag.FlagSet, cache, shared *string) {
	fs = flag.NewFlagSet(name, flag.ContinueOnError)
	cache = fs.String("cache", tracks.CacheDir(), "build cache (git-ignored); env GEOALIGN_CACHE")
	shared = fs.String("shared", tracks.SharedDir(), "staged real data (read-only); env GEOALIGN_SHARED")
	return fs, cache, shared
}

const dataUsage = `usage: geoalign data build [-only glove,charades,digits,tuxpaint,tuxpaint-langs,wordnet,minilm] [-cache dir] [-shared dir]
       geoalign data load [-split test]       time loading the Charades-STA PRVR track
       geoalign data baseline [-split test]   zero-training Charades-STA PRVR baseline

data build reads its external inputs (datasets/sources.json) from -shared where they are staged,
else downloads them into <cache>/sources (GEOALIGN_SOURCES_MIRROR=URL: from URL/<path> instead).`

func runData(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, dataUsage)
		return exitUsage
	}
	switch args[0] {
	case "build":
		return runDataBuild(args[1:], stdout, stderr)
	case "load":
		return runDataLoad(args[1:], stdout, stderr)
	case "baseline":
		return runDataBaseline(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stderr, dataUsage)
		return exitOK
	}
	fmt.Fprintf(stderr, "geoalign data: unknown subcommand %q (build, load, baseline)\n", args[0])
	return exitUsage
}

func runDataBuild(args []string, stdout, stderr io.Writer) int {
	fs, cache, shared := dataFlags("data build")
	only := fs.String("only", "", "comma-separated tracks to build: "+strings.Join(tracks.TrackNames(), ","))
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	var names []string
	if *only != "" {
		names = strings.Split(*only, ",")
		for _, n := range names {
			if !slices.Contains(tracks.TrackNames(), n) {
				fmt.Fprintf(stderr, "geoalign data build: --only: unknown track %q (want %s)\n", n, strings.Join(tracks.TrackNames(), ", "))
				return exitUsage
			}
		}
	}
	start := time.Now()
	m, err := sources.Read(sources.ManifestPath())
	if err != nil {
		return fail(stderr, "data build", err)
	}
	env, err := tracks.ResolveSources(tracks.Env{Shared: *shared, Cache: *cache, Log: stderr}, m, names, os.Getenv(sources.MirrorEnv))
	if err != nil {
		return fail(stderr, "data build", err)
	}
	ms, err := tracks.BuildAll(env, names)
	if len(ms) > 0 {
		tracks.PrintSummary(stdout, ms)
	}
	fmt.Fprintf(stdout, "\ndata build: %d track(s) in %.1f s, cache %s\n", len(ms), time.Since(start).Seconds(), *cache)
	if err != nil {
		return fail(stderr, "data build", err)
	}
	return exitOK
}

// loadSTA loads one split of the Charades-STA PRVR track and reports how long it took; a
// missing or corrupt track is a data.BadInput error naming the file.
func loadSTA(cache, split string) (*prvr.Split, time.Duration, error) {
	start := time.Now()
	s, err := prvr.Load(tracks.CharadesLayout(cache, tracks.CharadesSTACollection), split)
	if err != nil {
		return nil, 0, data.BadInput(fmt.Errorf("%w (run `make data` first)", err))
	}
	return s, time.Since(start), nil
}

func runDataLoad(args []string, stdout, stderr io.Writer) int {
	fs, cache, _ := dataFlags("data load")
	split := fs.String("split", "", "split to load (default: train and test)")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	splits := []string{"train", "test"}
	if *split != "" {
		splits = []string{*split}
	}
	for _, sp := range splits {
		s, d, err := loadSTA(*cache, sp)
		if err != nil {
			return fail(stderr, "data load", err)
		}
		fmt.Fprintf(stdout, "charades-sta %-5s %6d queries × %5d videos, video D=%d, query D=%d, loaded in %.2f s\n",
			sp, s.NumQueries(), s.NumVideos(), s.Dim, s.QueryDim, d.Seconds())
	}
	return exitOK
}

package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/geoalign/geoalign/lib/reproduce"
)

func init() {
	register("reproduce", "regenerate the papers' Table 1 analogues (figures/tables/)", runReproduce)
	register("figures", "regenerate every committed figure and table (figures/)", runFigures)
}

func reproduceFlags(name, defaultOut string) (*flag.FlagSet, *reproduce.Options, *string, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	opts := &reproduce.Options{}
	paper := fs.String("paper", "all", "paper to run: all, "+strings.Join(reproduce.Papers(), ", "))
	seeds := fs.String("seeds", "", "comma-separated seeds (default: each experiment's own, ≥ 3)")
	fs.BoolVar(&opts.Full, "full", os.Getenv("FULL") == "1", "full (paper-sized) configuration instead of the CI-sized default (also FULL=1)")
	fs.StringVar(&opts.Out, "out", defaultOut, "output directory")
	fs.StringVar(&opts.DataCache, "data", "datasets/cache", "directory of the data built by `make data`")
	return fs, opts, paper, seeds
}

func parseSeeds(s string) ([]int64, error) {
	if s == "" {
		return nil, nil
	}
	var out []int64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("bad seed %q", f)
		}
		out = append(out, v)
	}
	return out, nil
}

func runReproduce(args []string) int {
	fs, opts, paper, seeds := reproduceFlags("reproduce", "figures/tables")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var err error
	if opts.Seeds, err = parseSeeds(*seeds); err != nil {
		fmt.Fprintln(os.Stderr, "geoalign reproduce:", err)
		return 2
	}
	if len(reproduce.Papers()) == 0 {
		fmt.Fprintln(os.Stderr, "geoalign reproduce: no paper reproductions are registered yet")
		return 1
	}
	saved, err := reproduce.RunTable1(strings.Split(*paper, ","), *opts)
	for _, s := range saved {
		fmt.Println("wrote", s+".{md,csv,json}")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "geoalign reproduce:", err)
		return 1
	}
	if !opts.Full {
		fmt.Println("CI-sized configuration; run the paper-sized one with: make reproduce-table1 FULL=1")
	}
	return 0
}

func runFigures(args []string) int {
	fs, opts, paper, seeds := reproduceFlags("figures", "figures")
	reportOnly := fs.Bool("report-only", false, "only rebuild REPORT.md from the claims.json files already under --out")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var err error
	if opts.Seeds, err = parseSeeds(*seeds); err != nil {
		fmt.Fprintln(os.Stderr, "geoalign figures:", err)
		return 2
	}
	papers := reproduce.Papers()
	if *paper != "all" {
		papers = strings.Split(*paper, ",")
	}
	if *reportOnly {
		papers = nil
	} else if !opts.Full {
		// The committed figures are the full configuration; a CI-sized smoke run goes to <out>/ci
		// so that it never overwrites them (and its REPORT.md is <out>/ci/REPORT.md).
		opts.Out = filepath.Join(opts.Out, "ci")
		fmt.Fprintf(os.Stderr, "geoalign figures: CI-sized configuration, writing to %s (the full one: --full)\n", opts.Out)
	}
	for _, p := range papers {
		e, err := reproduce.Lookup(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "geoalign figures:", err)
			return 2
		}
		if e.Figures == nil {
			continue
		}
		fmt.Fprintf(os.Stderr, "== %s: figures\n", p)
		if err := e.Figures(*opts); err != nil {
			fmt.Fprintf(os.Stderr, "geoalign figures: %s: %v\n", p, err)
			return 1
		}
	}
	// REPORT.md is rebuilt from every paper's claims.json (written by the Figures functions).
	claims, err := reproduce.LoadClaims(opts.Out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "geoalign figures:", err)
		return 1
	}
	if err := reproduce.WriteReport(opts.Out, claims); err != nil {
		fmt.Fprintln(os.Stderr, "geoalign figures:", err)
		return 1
	}
	fmt.Printf("wrote %s/REPORT.md (%d claims)\n", opts.Out, len(claims))
	return 0
}

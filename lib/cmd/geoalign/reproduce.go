package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/data/tracks"
	"github.com/geoalign/geoalign/lib/encoders"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/geoalign/geoalign/lib/runcache"
	"github.com/geoalign/geoalign/lib/rundir"
)

func init() {
	register("reproduce", "regenerate the papers' Table 1 analogues (figures/tables/)", runReproduce)
	register("figures", "regenerate every committed figure and table (figures/)", runFigures)
}

// syntheticData is the --data value that runs on the synthetic benchmarks only; any other --data
// value is a researcher's feature directory (reproduce.Options.Data).
const syntheticData = "synthetic"

// reproduceFlags are the flags shared by reproduce and figures. After parsing, check validates
// them (an error is exit 2) and returns the papers ("all" stays "all"); needData says whether
// --cache must name a directory (unless the data are the researcher's or synthetic), needTable1
// whether every paper needs a Table 1.
func reproduceFlags(name, defaultOut string) (fs *flag.FlagSet, opts *reproduce.Options, check func(needData, needTable1 bool) ([]string, error)) {
	fs = flag.NewFlagSet(name, flag.ContinueOnError)
	opts = &reproduce.Options{}
	paper := fs.String("paper", "all", "comma-separated papers to run: all, "+strings.Join(reproduce.Papers(), ", "))
	seeds := fs.String("seeds", "", "comma-separated seeds (default: each experiment's own, ≥ 3)")
	cacheDir := fs.String("cache", tracks.CacheDir(), "`DIR` of the tracks built by `make data` (as on `geoalign data build`; "+
		"missing or corrupt data exits 2, never a silent fallback)")
	dataDir := fs.String("data", "", "`DIR`: a researcher's feature directory in the format `geoalign train <model> --data DIR` reads; "+
		"the protocol runs on it instead of the track (--paper "+strings.Join(ownDataPapers(dataSections), ", ")+"); or \""+syntheticData+
		"\" to run Table 1 on the synthetic benchmarks only")
	fs.BoolVar(&opts.Full, "full", os.Getenv("FULL") == "1", "full (paper-sized) configuration instead of the CI-sized default (also FULL=1)")
	fs.StringVar(&opts.Out, "out", defaultOut, "output directory")
	text := fs.String("text", "glove", "text encoder of the real tracks' texts: glove or minilm (the minilm track of `make data`; "+
		"HLFormer's Charades-STA queries, GARE's Charades descriptions, GRAM/HyperGRAM's Tux Paint captions)")
	var layout prvr.Layout
	fs.StringVar(&layout.Root, "data-root", "", "`DIR` holding a PRVR collection in the MS-SL layout (as `geoalign train hlformer` reads it): "+
		"the protocol runs on it instead of the track (--paper "+strings.Join(ownDataPapers(collectionSections), ", ")+")")
	fs.StringVar(&layout.Collection, "collection", "", "collection `NAME` under --data-root (e.g. charades, tvr, activitynet)")
	fs.StringVar(&layout.VisualFeature, "visual-feature", "", "video feature `NAME` under DIR/NAME/FeatureData (e.g. i3d_rgb_lgi)")
	fs.StringVar(&layout.TextFeature, "text-feature", "", "query-feature HDF5 `FILE` under DIR/NAME/TextData (default roberta_<collection>_query_feat.hdf5)")
	fs.StringVar(&opts.Config, "config", "", "JSON `FILE` of the model's run configuration (as `geoalign train <model> --print-config` prints it) "+
		"on top of which every variant's changes are applied; fields it leaves out keep the scale's")
	fs.StringVar(&opts.Runs, "runs", "", "run cache `DIR`: one run directory per variant × seed (default: $"+runcache.CacheEnv+", else build/runs with --full, else none)")
	fs.StringVar(&opts.PaperData, "paper-data", "", "the data are this data set of the paper's tables, so each row says whether ours agrees with the paper's number: "+
		paperDataValues())
	check = func(needData, needTable1 bool) ([]string, error) {
		var err error
		if opts.Text, err = encoders.ParseText(*text); err != nil {
			return nil, fmt.Errorf("--text: %w", err)
		}
		if opts.Seeds, err = parseSeeds(*seeds); err != nil {
			return nil, err
		}
		papers := strings.Split(*paper, ",")
		for _, p := range papers {
			if p == "all" && len(papers) == 1 {
				continue
			}
			e, err := reproduce.Lookup(p)
			if err != nil {
				return nil, fmt.Errorf("--paper: %w", err)
			}
			if needTable1 && e.Table1 == nil {
				return nil, fmt.Errorf("--paper %s has no Table 1 (it has figures: geoalign figures --paper %s)", p, p)
			}
		}
		if layout != (prvr.Layout{}) {
			if layout.Root == "" || layout.Collection == "" || layout.VisualFeature == "" {
				return nil, fmt.Errorf("--data-root, --collection and --visual-feature go together")
			}
			if err := onePaper("--data-root", papers, collectionSections); err != nil {
				return nil, err
			}
			if opts.Collection.Root, err = filepath.Abs(layout.Root); err != nil {
				return nil, err
			}
			opts.Collection.Collection, opts.Collection.VisualFeature, opts.Collection.TextFeature = layout.Collection, layout.VisualFeature, layout.TextFeature
		}
		if opts.PaperData != "" {
			for _, p := range papers {
				if e, _ := reproduce.Lookup(p); !slices.Contains(e.PaperData, opts.PaperData) {
					return nil, fmt.Errorf("--paper-data %q is not a data set of %s's tables (%s)", opts.PaperData, p, paperDataValues())
				}
			}
		}
		switch *dataDir {
		case "":
		case syntheticData:
			opts.Synthetic = true
		default:
			if opts.Collection.Root != "" {
				return nil, fmt.Errorf("--data and --data-root name two data sources: give one")
			}
			if err := onePaper("--data DIR", papers, dataSections); err != nil {
				return nil, err
			}
			if opts.Data, err = filepath.Abs(*dataDir); err != nil {
				return nil, err
			}
		}
		if st, err := os.Stat(*cacheDir); needData && !opts.OwnData() && !opts.Synthetic && (err != nil || !st.IsDir()) {
			return nil, fmt.Errorf("--cache %s is not a directory (build it with `make data`, or run on synthetic data with --data %s)", *cacheDir, syntheticData)
		}
		opts.DataCache = *cacheDir
		return papers, nil
	}
	return fs, opts, check
}

// collectionSections and dataSections are the sections of an experiment that run on a
// researcher's collection (--data-root) and feature directory (--data DIR).
func collectionSections(e reproduce.Experiment) []string { return e.CollectionSections }
func dataSections(e reproduce.Experiment) []string       { return e.DataSections }

// ownDataPapers are the papers whose protocol runs on a researcher's data of the kind sections
// gives (collectionSections, dataSections).
func ownDataPapers(sections func(reproduce.Experiment) []string) []string {
	var out []string
	for _, p := range reproduce.Papers() {
		if e, _ := reproduce.Lookup(p); sections(e) != nil {
			out = append(out, p)
		}
	}
	return out
}

// onePaper checks that papers is one paper whose protocol runs on the researcher's data that flag
// names (sections: collectionSections, dataSections).
func onePaper(flag string, papers []string, sections func(reproduce.Experiment) []string) error {
	if ps := ownDataPapers(sections); len(papers) != 1 || !slices.Contains(ps, papers[0]) {
		return fmt.Errorf("%s runs one paper's protocol: --paper %s", flag, strings.Join(ps, " or "))
	}
	return nil
}

// paperDataValues lists the --paper-data values of every paper, for --help.
func paperDataValues() string {
	var out []string
	for _, p := range reproduce.Papers() {
		if e, _ := reproduce.Lookup(p); len(e.PaperData) > 0 {
			out = append(out, p+": "+strings.Join(e.PaperData, ", "))
		}
	}
	return strings.Join(out, "; ")
}

func parseSeeds(s string) ([]int64, error) {
	if s == "" {
		return nil, nil
	}
	var out []int64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("--seeds: bad seed %q", f)
		}
		out = append(out, v)
	}
	return out, nil
}

func runReproduce(args []string, stdout, stderr io.Writer) int {
	fs, opts, check := reproduceFlags("reproduce", "figures/tables")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	papers, err := check(true, true)
	if err != nil {
		fmt.Fprintln(stderr, "geoalign reproduce:", err)
		return exitUsage
	}
	if code, ok := checkBackend(stderr, "reproduce"); !ok {
		return code
	}
	if opts.OwnData() { // Table 1 as a section: curves, claims.json and REPORT.md beside it
		opts.Sections = []string{"table1"}
		return reproduceCollection(papers[0], *opts, stdout, stderr, "reproduce")
	}
	saved, err := reproduce.RunTable1(papers, *opts)
	for _, s := range saved {
		fmt.Fprintln(stdout, "wrote", s+".{md,csv,json}")
	}
	if err != nil {
		return fail(stderr, "reproduce", err)
	}
	if !opts.Full {
		fmt.Fprintln(stdout, "CI-sized configuration; run the paper-sized one with: make reproduce-table1 FULL=1")
	}
	return exitOK
}

func runFigures(args []string, stdout, stderr io.Writer) int {
	fs, opts, check := reproduceFlags("figures", "figures")
	reportOnly := fs.Bool("report-only", false, "only rebuild REPORT.md from the claims.json files already under --out")
	sections := fs.String("sections", "", "comma-separated sections of the papers' figures to run (default: all; e.g. table1); "+
		"the others are recorded as pending in <paper>/pending.json and named in REPORT.md")
	compare := fs.String("compare", "", "compare the tables of a re-run written under `DIR` with those of the same paths under --out "+
		"(the committed figures), cell by cell: a mean ± std cell agrees within twice its standard error over seeds, "+
		"a single value within one unit of its last digit; lists every cell that does not (exit 1) and runs nothing")
	status := fs.Bool("status", false, "list every table under --out (crosscheck/, gpu-check*, bench* and ci/ aside) with its recorded commit and backend "+
		"and whether the key of its code is the one the checkout and GOMLX_BACKEND give now; exit 0 when every table is current and all name one clean commit "+
		"and one backend, 1 otherwise; runs nothing")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if *status {
		if *compare != "" {
			fmt.Fprintln(stderr, "geoalign figures: --status and --compare go one at a time")
			return exitUsage
		}
		return figuresStatus(opts.Out, stdout, stderr)
	}
	if *compare != "" {
		return compareFigures(opts.Out, *compare, stdout, stderr)
	}
	papers, err := check(!*reportOnly, false)
	if err != nil {
		fmt.Fprintln(stderr, "geoalign figures:", err)
		return exitUsage
	}
	if len(papers) == 1 && papers[0] == "all" {
		papers = reproduce.Papers()
	}
	if *sections != "" {
		for _, s := range strings.Split(*sections, ",") {
			opts.Sections = append(opts.Sections, strings.TrimSpace(s))
		}
		check := reproduce.CheckSections
		if opts.Data != "" { // the sections that run on a researcher's feature directory
			check = reproduce.CheckDataSections
		}
		if err := check(papers, opts.Sections); err != nil {
			fmt.Fprintln(stderr, "geoalign figures: --sections:", err)
			return exitUsage
		}
	}
	if opts.OwnData() && !*reportOnly {
		if code, ok := checkBackend(stderr, "figures"); !ok {
			return code
		}
		if opts.Sections == nil {
			e, _ := reproduce.Lookup(papers[0])
			opts.Sections = e.CollectionSections
			if opts.Data != "" {
				opts.Sections = e.DataSections
			}
		}
		return reproduceCollection(papers[0], *opts, stdout, stderr, "figures")
	}
	if *reportOnly {
		papers = nil
	} else if code, ok := checkBackend(stderr, "figures"); !ok {
		return code
	} else if !opts.Full {
		// The committed figures are the full configuration; a CI-sized smoke run goes to <out>/ci
		// so that it never overwrites them (and its REPORT.md is <out>/ci/REPORT.md).
		opts.Out = filepath.Join(opts.Out, "ci")
		fmt.Fprintf(stderr, "geoalign figures: CI-sized configuration, writing to %s (the full one: --full)\n", opts.Out)
	}
	for _, p := range papers {
		e, _ := reproduce.Lookup(p) // checked above
		if e.Figures == nil {
			continue
		}
		fmt.Fprintf(stderr, "== %s: figures\n", p)
		if err := e.Figures(*opts); err != nil {
			return fail(stderr, "figures", fmt.Errorf("%s: %w", p, err))
		}
	}
	// REPORT.md is rebuilt from every paper's claims.json (written by the Figures functions).
	claims, err := reproduce.LoadClaims(opts.Out)
	if err != nil {
		return fail(stderr, "figures", data.BadInput(err)) // a claims.json that cannot be read
	}
	// Experiments with figures but no claims.json under --out, or with sections not run yet
	// (pending.json), are named in the report, not skipped.
	partial, err := reproduce.LoadPending(opts.Out)
	if err != nil {
		return fail(stderr, "figures", data.BadInput(err))
	}
	var pending []reproduce.Pending
	for _, p := range reproduce.Papers() {
		if e, _ := reproduce.Lookup(p); e.Figures == nil || e.Descriptive {
			continue
		}
		if _, err := os.Stat(filepath.Join(opts.Out, p, "claims.json")); err != nil {
			pending = append(pending, reproduce.Pending{Paper: p})
		}
	}
	pending = append(pending, partial...)
	// The same experiments with the other text encoder (figures --text minilm --out <out>/minilm)
	// are reported beside these, claim by claim.
	alts, err := reproduce.LoadAlternatives(opts.Out, opts.Text)
	if err != nil {
		return fail(stderr, "figures", data.BadInput(err))
	}
	if err := reproduce.WriteReport(opts.Out, claims, alts, pending...); err != nil {
		return fail(stderr, "figures", err)
	}
	fmt.Fprintf(stdout, "wrote %s/REPORT.md (%d claims)\n", opts.Out, len(claims))
	return exitOK
}

// compareFigures reports, cell by cell, whether the tables of a re-run under rerun agree with the
// committed ones under committed (report.CompareDirs): exit 0 when every cell agrees, 1 listing the
// cells that do not, 2 when rerun is not a directory.
func compareFigures(committed, rerun string, stdout, stderr io.Writer) int {
	if st, err := os.Stat(rerun); err != nil || !st.IsDir() {
		fmt.Fprintf(stderr, "geoalign figures: --compare %s is not a directory\n", rerun)
		return exitUsage
	}
	res, err := report.CompareDirs(committed, rerun)
	if err != nil {
		return fail(stderr, "figures", err)
	}
	for _, d := range res.Disagreements {
		fmt.Fprintln(stdout, "disagrees:", d)
	}
	fmt.Fprintf(stdout, "%d tables, %d cells compared with %s: %d disagree\n", res.Tables, res.Cells, committed, len(res.Disagreements))
	if len(res.Disagreements) > 0 || res.Tables == 0 {
		return exitFailure
	}
	return exitOK
}

// figuresStatus prints, for every table under dir (reproduce.Status), its recorded commit and backend
// and whether it is current, then the commits and backends the tables name and what keeps the
// directory from being current (Statuses.Problems): exit 0 when every table is current and all name
// one clean commit and one backend, 1 otherwise, 2 when dir holds no table or a file there cannot be
// read as one (named).
func figuresStatus(dir string, stdout, stderr io.Writer) int {
	st, err := reproduce.Status(dir)
	if err != nil {
		return fail(stderr, "figures", err)
	}
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "FILE\tCOMMIT\tBACKEND\tCURRENT\tWHY NOT")
	current := 0
	for _, t := range st.Tables {
		yes := "no"
		if t.Current {
			yes, current = "yes", current+1
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", t.File, cmp.Or(t.Commit, "(none)"), cmp.Or(t.RunBackend, "(none)"), yes, t.Why)
	}
	if err := w.Flush(); err != nil {
		return fail(stderr, "figures", err)
	}
	fmt.Fprintf(stdout, "%d tables under %s: %d current, %d not\n", len(st.Tables), dir, current, len(st.Tables)-current)
	fmt.Fprintf(stdout, "%d commits named: %s\n", len(st.Commits), reproduce.Counted(st.Commits))
	fmt.Fprintf(stdout, "%d backends named: %s\n", len(st.Backends), reproduce.Counted(st.Backends))
	problems := st.Problems()
	for _, p := range problems {
		fmt.Fprintln(stdout, "not current:", p)
	}
	if len(problems) > 0 {
		return exitFailure
	}
	fmt.Fprintln(stdout, "current: every table is keyed by the code and backend of this checkout, at one commit")
	return exitOK
}

// reproduceCollection runs paper's protocol (opts.Sections of its figures) on the researcher's
// data (opts.Collection or opts.Data, reproduce.Options.OwnData) into opts.Out, which it locks (lib/rundir: a second reproduction on the
// same OUT exits 2 naming the lock), and writes OUT/REPORT.md from the claims decided there. Bad
// input exits 2 before any training and leaves nothing under OUT.
func reproduceCollection(paper string, opts reproduce.Options, stdout, stderr io.Writer, name string) int {
	created := false
	if _, err := os.Stat(opts.Out); os.IsNotExist(err) {
		created = true
	}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return fail(stderr, name, err)
	}
	lock, err := rundir.Acquire(opts.Out)
	if err != nil {
		var busy *rundir.BusyError
		if errors.As(err, &busy) {
			return fail(stderr, name, data.BadInput(fmt.Errorf("--out: %w", err)))
		}
		return fail(stderr, name, err)
	}
	defer func() {
		// Nothing but the lock under OUT (bad input before any result): leave OUT as it was.
		if empty, err := rundir.IsEmpty(opts.Out); err == nil && empty {
			os.Remove(filepath.Join(opts.Out, rundir.LockFile))
			if created {
				os.Remove(opts.Out)
			}
		}
		lock.Release()
	}()
	e, _ := reproduce.Lookup(paper) // checked by the flags
	fmt.Fprintf(stderr, "== %s on %s: sections %s\n", paper, opts.Source(), strings.Join(opts.Sections, ", "))
	if err := e.Figures(opts); err != nil {
		return fail(stderr, name, err)
	}
	claims, err := reproduce.LoadClaims(opts.Out)
	if err != nil {
		return fail(stderr, name, err)
	}
	partial, err := reproduce.LoadPending(opts.Out)
	if err != nil {
		return fail(stderr, name, err)
	}
	if err := reproduce.WriteReport(opts.Out, claims, nil, partial...); err != nil {
		return fail(stderr, name, err)
	}
	fmt.Fprintf(stdout, "wrote %s/%s and %s/REPORT.md (%d claims)\n", opts.Out, paper, opts.Out, len(claims))
	return exitOK
}

// Package reproduce is the engine of the experiments layer: the registry of the papers'
// reproductions (`make reproduce-table1`, `make figures`), the provenance every table carries, and
// the one claim rule (Decide: validity gates, paired t-test over seeds, Holm within a paper) whose
// Claims become claims.json and figures/REPORT.md.
//
// Each paper's study package (lib/studies/gramstudy, garestudy, hlformerstudy, grid) registers its
// Table 1 and figures with Register when it is linked in; every part of a paper's figures is a
// Section (its tables and figures, the Comparisons it declares and its descriptive findings), and
// RunSections is the one driver that saves them, decides their claims together and records the
// sections not run. Runs and Metric are the evidence every study computes from its variants trained
// on the same seeds (per-seed values, mean ± std table rows, paired differences, the rule's Samples
// and Comparisons), generic over each study's own result type. This package imports none of the
// study packages.
package reproduce

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/data/tracks"
	"github.com/geoalign/geoalign/lib/encoders"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/runcache"
	"github.com/geoalign/geoalign/lib/rundir"
)

// Options configure a reproduction run.
type Options struct {
	// Full selects the paper-sized configuration; false is the CI-sized default that finishes
	// all papers' Table 1 within 10 minutes on a 2-core machine.
	Full bool
	// Seeds to aggregate over (mean ± std); nil means the experiment's default (≥ 3 seeds).
	Seeds []int64
	// Out is the output directory (figures/ or figures/tables/).
	Out string
	// DataCache is where `make data` put the real tracks (`--cache`; "": tracks.CacheDir; DataDir). Missing
	// or corrupt data there is an error marked data.BadInput, naming the file; nothing falls back
	// to synthetic data unless Synthetic asks for it.
	DataCache string
	// Synthetic runs each paper's Table 1 on its synthetic benchmark only, without the data cache
	// (`--data synthetic`); the tables are saved as <paper>-table1-synthetic. Figures need the
	// real tracks, except HLFormer's.
	Synthetic bool
	// Sections are the sections of each paper's figures to run (Experiment.Sections; nil: all of
	// them). A figures function skips the others and records them with SavePending.
	Sections []string
	// Text is the text encoder of the real tracks' texts (zero value: GloVe; `--text minilm`):
	// HLFormer's Charades-STA query tokens, GARE's Charades descriptions and GRAM/HyperGRAM's Tux
	// Paint captions. It enters the run keys and every result's data description.
	Text encoders.Text
	// Data, when set, is a researcher's feature directory (`--data DIR`, in the format `geoalign
	// train <model> --data DIR` reads, package lib/data/featdir) that the paper's protocol runs on
	// instead of the track (Experiment.DataSections).
	Data string
	// Collection, when its Root is set, is a researcher's PRVR collection in the MS-SL layout
	// (`--data-root`, `--collection`, `--visual-feature`, `--text-feature`, as `geoalign train
	// hlformer` reads them) that HLFormer's protocol runs on instead of the Charades-STA track.
	Collection prvr.Layout
	// Config, if set, is a JSON file of the model's run configuration (`--config`, as `geoalign
	// train` reads it) on top of which every variant's changes are applied.
	Config string
	// Runs, if set, is the run cache of the reproduction (`--runs`): every variant × seed's run
	// directory goes under it instead of RunCache's.
	Runs string
	// PaperData names the data set of the paper's tables that the data are (`--paper-data`, e.g.
	// charades-sta; never guessed): each row then says whether ours agrees with the paper's number.
	PaperData string
}

// NeedsRealData is the error of a Figures function that cannot run on synthetic data alone
// (nil unless o.Synthetic): a data.BadInput, so the command line exits 2.
func (o Options) NeedsRealData(paper string) error {
	if !o.Synthetic {
		return nil
	}
	return data.BadInput(fmt.Errorf("%s figures need the real tracks of `make data` (--data synthetic runs Table 1 only)", paper))
}

// OwnData reports whether the protocol runs on a researcher's data (Data or Collection) instead
// of the tracks.
func (o Options) OwnData() bool { return o.Data != "" || o.Collection.Root != "" }

// Source names the researcher's data of OwnData: the feature directory, or the collection's
// directory.
func (o Options) Source() string {
	if o.Data != "" {
		return o.Data
	}
	return filepath.Join(o.Collection.Root, o.Collection.Collection)
}

// DataDir is the directory of the real tracks: DataCache, else tracks.CacheDir ($GEOALIGN_CACHE,
// else datasets/cache of the checkout).
func (o Options) DataDir() string { return cmp.Or(o.DataCache, tracks.CacheDir()) }

// RunCache is the root of the run cache of the reproduction: Runs when set, else runcache.Root (its environment
// variable) when set, else build/runs of the checkout for the full configuration — the root the
// notebooks use (kernel/nb.RunCache), so that either reuses the other's runs and an interrupted
// run resumes — and none ("") for CI, which trains anew.
func (o Options) RunCache() string {
	if o.Runs != "" {
		return o.Runs
	}
	if !o.Full {
		return runcache.Root("")
	}
	return runcache.Root(runcache.InCheckout("build", "runs"))
}

// Experiment is one paper's entry.
type Experiment struct {
	Paper string
	// Table1 returns the Table 1 analogue (and optionally more tables).
	Table1 func(opts Options) ([]*report.Table, error)
	// Figures regenerates the paper's committed figures and tables under opts.Out (optional).
	Figures func(opts Options) error
	// Sections name the parts of Figures, in the order it runs them, that Options.Sections can
	// select (nil: Figures runs as a whole).
	Sections []string
	// PaperData are the data sets of the paper's tables (Options.PaperData's values).
	PaperData []string
	// CollectionSections are the sections that run on a researcher's collection (Options.Collection;
	// nil: the experiment does not open one): the default of `--sections` there.
	CollectionSections []string
	// DataSections are the sections that run on a researcher's feature directory (Options.Data;
	// nil: the experiment does not open one): the default of `--sections` there.
	DataSections []string
	// Descriptive marks an experiment that declares no claims (the cross-paper grid): it writes no
	// claims.json, and REPORT.md does not list it as pending.
	Descriptive bool

	// pkg is the package that registered the experiment (Register): the code its tables' Code keys.
	pkg string
}

// Package is the import path of the package that registered e (Register): the code that its
// Table 1s' keys cover (Stamp).
func (e Experiment) Package() string { return e.pkg }

var experiments = map[string]Experiment{}

// Register adds a paper's experiments; called from init in each study package, which becomes the
// producer whose source its Table 1s' Code keys (Stamp).
func Register(e Experiment) {
	if _, dup := experiments[e.Paper]; dup {
		panic("reproduce: paper registered twice: " + e.Paper)
	}
	e.pkg = callerPackage()
	experiments[e.Paper] = e
}

// Papers lists the registered papers in a fixed order.
func Papers() []string {
	order := map[string]int{"gram": 0, "hypergram": 1, "gare": 2, "hlformer": 3, "wordnet": 4}
	var ps []string
	for p := range experiments {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool {
		oi, iok := order[ps[i]]
		oj, jok := order[ps[j]]
		if iok && jok {
			return oi < oj
		}
		if iok != jok {
			return iok
		}
		return ps[i] < ps[j]
	})
	return ps
}

// Lookup returns the experiments of paper, or an error listing the known papers.
func Lookup(paper string) (Experiment, error) {
	e, ok := experiments[paper]
	if !ok {
		return e, fmt.Errorf("unknown paper %q (known: %s)", paper, strings.Join(Papers(), ", "))
	}
	return e, nil
}

// Stamp fills the provenance fields every table shares: backend, git commit and Code, the key of
// the code that computed t (CodeOf) — the package of the first function on the call stack that is
// of this module and not of this package (the study whose figures function called RunSections, the
// command that called Stamp). `geoalign figures --status` recomputes that key (Status).
func Stamp(t *report.Table) { stamp(t, callerPackage()) }

// stamp is Stamp with the producing package given.
func stamp(t *report.Table, producer string) {
	if info, err := backend.Describe(); err == nil {
		t.Provenance.Backend = info.String()
	}
	t.Provenance.Commit = GitCommit()
	t.Provenance.Code = nil
	if c, err := CodeOf(producer); err == nil {
		t.Provenance.Code = c
	} else {
		fmt.Fprintf(os.Stderr, "reproduce: %q is stamped without a code key: %v\n", t.Title, err)
	}
}

// GitCommit is rundir.GitCommit: the code version every table and run record names.
func GitCommit() string { return rundir.GitCommit() }

// Machine describes the machine a timing was taken on: its CPU count, GOMAXPROCS and the load average
// now (on a shared machine the load explains a slow epoch). One-off runs (the tuning sweeps) record it.
func Machine() string {
	load, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(load))
	return fmt.Sprintf("%d CPUs, GOMAXPROCS %d, load average %s at start", runtime.NumCPU(), runtime.GOMAXPROCS(0), strings.Join(f[:min(3, len(f))], " "))
}

// RunTable1 runs Table1 of the given papers ("all" for every registered one) and saves each
// table as <out>/<paper>-table1[-k].{md,csv,json}. It returns the saved base paths.
func RunTable1(papers []string, opts Options) ([]string, error) {
	if len(papers) == 1 && papers[0] == "all" {
		papers = nil
		for _, p := range Papers() {
			if experiments[p].Table1 != nil {
				papers = append(papers, p)
			}
		}
	}
	var saved []string
	for _, p := range papers {
		e, err := Lookup(p)
		if err != nil {
			return saved, err
		}
		if e.Table1 == nil {
			return saved, fmt.Errorf("paper %q has no Table 1 reproduction", p)
		}
		start := time.Now()
		fmt.Fprintf(os.Stderr, "== %s: Table 1 (%s configuration)\n", p, map[bool]string{true: "full", false: "CI-sized"}[opts.Full])
		tables, err := e.Table1(opts)
		if err != nil {
			return saved, fmt.Errorf("%s: %w", p, err)
		}
		for i, t := range tables {
			stamp(t, e.pkg)
			base := filepath.Join(opts.Out, p+"-table1")
			if opts.Synthetic {
				base += "-synthetic"
			}
			if i > 0 {
				base += fmt.Sprintf("-%d", i+1)
			}
			if err := t.Save(base); err != nil {
				return saved, err
			}
			saved = append(saved, base)
		}
		fmt.Fprintf(os.Stderr, "== %s: done in %s\n", p, time.Since(start).Round(time.Second))
	}
	return saved, nil
}

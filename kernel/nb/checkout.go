package nb

import (
	"os"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/runcache"
)

// Root is the geoalign checkout this notebook runs in: $GEOALIGN_ROOT, else the go.mod of module
// github.com/geoalign/geoalign above the notebook's directory, where GoNB runs every cell
// (runcache.ModuleRoot, the one place that finds it).
func Root() string {
	return Must1(runcache.ModuleRoot())
}

// Path is filepath.Join(Root(), elem...).
func Path(elem ...string) string {
	return filepath.Join(append([]string{Root()}, elem...)...)
}

// Full reports whether the notebook runs its full configuration: FULL=1 in the environment that
// started Jupyter (or `make notebooks FULL=1`). The default is the small, CI-sized one.
func Full() bool {
	return os.Getenv("FULL") == "1"
}

// OutDir is where Table, Plot and Figure save what they show when given a name:
// $GEOALIGN_FIGURES if set, else build/figures/ of the checkout, in either configuration. The
// committed figures/ have one writer, `make figures` (the studies' own figure functions, with their
// provenance stamps and learning-curve notes); a notebook shows them (Committed, ShowClaims) and
// never rewrites them.
func OutDir() string {
	if d := os.Getenv("GEOALIGN_FIGURES"); d != "" {
		return d
	}
	return Path("build", "figures")
}

// RunCache is the root of the run cache: runcache.Root (its environment variable) if set, else build/runs of the
// checkout (git-ignored). lib/runcache keeps each run in <RunCache>/<paper>/<key>/ with its
// spec.json, and a study given this root reloads finished runs instead of training them again —
// every GoNB cell is a new program, so this is how a later cell, or a later execution, finds the
// models an earlier one trained. `make figures` uses the same root when that variable is set.
func RunCache() string {
	return runcache.Root(Path("build", "runs"))
}

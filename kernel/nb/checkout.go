package nb

import (
	"os"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/checkout"
)

// Root is the geoalign checkout this notebook runs in (lib/checkout: the go.mod of module
// github.com/geoalign/geoalign above the notebook's directory).
func Root() string {
	return Must1(checkout.Root())
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
// $GEOALIGN_FIGURES if set, else figures/ of the checkout in the full configuration (the
// committed full-run results) and build/figures/ otherwise.
func OutDir() string {
	if d := os.Getenv("GEOALIGN_FIGURES"); d != "" {
		return d
	}
	if Full() {
		return Path("figures")
	}
	return Path("build", "figures")
}

// RunCache is the directory in which a paper's studies checkpoint their runs and from which they
// reload finished ones instead of training again: $GEOALIGN_RUN_CACHE/<paper> if set, else
// build/runs/<paper> of the checkout (git-ignored). Every GoNB cell is a new program, so this is
// how a later cell, or a later execution, finds the models an earlier one trained. The studies
// key their runs by configuration and scale, so the small and the full configuration share it.
func RunCache(paper string) string {
	if d := os.Getenv("GEOALIGN_RUN_CACHE"); d != "" {
		return filepath.Join(d, paper)
	}
	return Path("build", "runs", paper)
}

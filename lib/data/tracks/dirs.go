package tracks

import (
	"cmp"
	"os"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/runcache"
)

// The environment variables that move the two data directories away from their defaults.
const (
	CacheEnv  = "GEOALIGN_CACHE"
	SharedEnv = "GEOALIGN_SHARED"
)

// CacheDir is the build cache of the tracks, where `make data` writes them and every loader reads
// them: $GEOALIGN_CACHE if set, else datasets/cache of the checkout (runcache.ModuleRoot, so that
// notebooks running in notebooks/ find it too; of the working directory outside a checkout).
func CacheDir() string { return cmp.Or(os.Getenv(CacheEnv), inCheckout("datasets", "cache")) }

// SharedDir is the staged read-only data the tracks are built from (datasets/README.md):
// $GEOALIGN_SHARED if set, else ../shared/data beside the checkout, as CacheDir finds it.
func SharedDir() string { return cmp.Or(os.Getenv(SharedEnv), inCheckout("..", "shared", "data")) }

// inCheckout is the path elem relative to the checkout's root, or to the working directory when no
// checkout is found.
func inCheckout(elem ...string) string {
	root, err := runcache.ModuleRoot()
	if err != nil {
		root = "."
	}
	return filepath.Join(append([]string{root}, elem...)...)
}

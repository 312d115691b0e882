package tracks

import (
	"cmp"
	"os"

	"github.com/geoalign/geoalign/lib/runcache"
)

// The environment variables that move the two data directories away from their defaults.
const (
	CacheEnv  = "GEOALIGN_CACHE"
	SharedEnv = "GEOALIGN_SHARED"
)

// CacheDir is the build cache of the tracks, where `make data` writes them and every loader reads
// them: $GEOALIGN_CACHE if set, else datasets/cache of the checkout (runcache.InCheckout, so that
// notebooks running in notebooks/ find it too; of the working directory outside a checkout).
func CacheDir() string { return cmp.Or(os.Getenv(CacheEnv), runcache.InCheckout("datasets", "cache")) }

// SharedDir is the staged read-only data the tracks are built from (datasets/README.md):
// $GEOALIGN_SHARED if set, else ../shared/data beside the checkout, as CacheDir finds it.
func SharedDir() string {
	return cmp.Or(os.Getenv(SharedEnv), runcache.InCheckout("..", "shared", "data"))
}

package tracks

import (
	"cmp"
	"fmt"
	"os"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/sources"

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
// $GEOALIGN_SHARED if set; else ../shared/data beside the checkout (as CacheDir finds it) when it
// is a directory; else <CacheDir()>/sources, where `make data` downloads the same files under the
// same paths when nothing is staged (lib/data/sources), so that every reader of SharedDir finds
// them there.
func SharedDir() string {
	if s := os.Getenv(SharedEnv); s != "" {
		return s
	}
	staged := runcache.InCheckout("..", "shared", "data")
	if st, err := os.Stat(staged); err == nil && st.IsDir() {
		return staged
	}
	return sources.CacheDir(CacheDir())
}

// CheckSharedEnv returns an error when $GEOALIGN_SHARED is set but is not a directory: one
// sentence naming the variable, for the commands to exit 2 on before they read anything.
func CheckSharedEnv() error {
	s := os.Getenv(SharedEnv)
	if s == "" {
		return nil
	}
	if st, err := os.Stat(s); err != nil || !st.IsDir() {
		return data.BadInput(fmt.Errorf("%s=%s is not a directory: point it at the staged data (datasets/README.md) or unset it", SharedEnv, s))
	}
	return nil
}

package reproduce

import (
	"path/filepath"
	"testing"

	"github.com/geoalign/geoalign/lib/data/tracks"
	"github.com/geoalign/geoalign/lib/runcache"
)

// The run cache of a reproduction: $GEOALIGN_RUN_CACHE in both configurations; without it,
// build/runs of the checkout for the full one and none for CI.
func TestRunCache(t *testing.T) {
	t.Setenv(runcache.CacheEnv, "")
	root, err := runcache.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if got := (Options{}).RunCache(); got != "" {
		t.Errorf("CI run cache %q, want none", got)
	}
	if got, want := (Options{Full: true}).RunCache(), filepath.Join(root, "build", "runs"); got != want {
		t.Errorf("full run cache %q, want %q", got, want)
	}
	t.Setenv(runcache.CacheEnv, "/tmp/runs")
	for _, full := range []bool{false, true} {
		if got := (Options{Full: full}).RunCache(); got != "/tmp/runs" {
			t.Errorf("Full %t with %s set: %q", full, runcache.CacheEnv, got)
		}
	}
}

// The data of a reproduction: DataCache when given, else the tracks' cache ($GEOALIGN_CACHE).
func TestDataDir(t *testing.T) {
	t.Setenv(tracks.CacheEnv, "/tmp/tracks")
	if got := (Options{}).DataDir(); got != "/tmp/tracks" {
		t.Errorf("DataDir without DataCache = %q, want $%s", got, tracks.CacheEnv)
	}
	if got := (Options{DataCache: "/data"}).DataDir(); got != "/data" {
		t.Errorf("DataDir = %q, want DataCache", got)
	}
}

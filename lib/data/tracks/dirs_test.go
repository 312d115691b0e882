package tracks

import (
	"os"
	"path/filepath"
	"testing"
)

// The data directories are the environment's when set, else fixed paths relative to the checkout,
// found from any directory inside it (here lib/data/tracks, three levels below the root).
func TestDataDirectories(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(CacheEnv, "")
	t.Setenv(SharedEnv, "")
	os.Unsetenv(CacheEnv)
	os.Unsetenv(SharedEnv)
	t.Setenv("GEOALIGN_ROOT", "")
	os.Unsetenv("GEOALIGN_ROOT")
	if got, want := CacheDir(), filepath.Join(root, "datasets", "cache"); got != want {
		t.Errorf("CacheDir() = %q, want %q", got, want)
	}
	if got, want := SharedDir(), filepath.Join(filepath.Dir(root), "shared", "data"); got != want {
		t.Errorf("SharedDir() = %q, want %q", got, want)
	}
	t.Setenv(CacheEnv, "/elsewhere/cache")
	t.Setenv(SharedEnv, "/elsewhere/shared")
	if got := CacheDir(); got != "/elsewhere/cache" {
		t.Errorf("with %s set, CacheDir() = %q", CacheEnv, got)
	}
	if got := SharedDir(); got != "/elsewhere/shared" {
		t.Errorf("with %s set, SharedDir() = %q", SharedEnv, got)
	}
}

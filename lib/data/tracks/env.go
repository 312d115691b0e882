package tracks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/geoalign/geoalign/lib/atomicfile"
)

// Env says where a build reads from and writes to.
type Env struct {
	Shared string    // the staged real data, ../shared/data
	Cache  string    // the build cache, datasets/cache
	Log    io.Writer // progress messages
}

func (e Env) logf(format string, args ...any) {
	if e.Log != nil {
		fmt.Fprintf(e.Log, format+"\n", args...)
	}
}

// Artifact is one output file with its size and sha256.
type Artifact struct {
	Path   string `json:"path"` // relative to the cache
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// Count is one row of the summary table: a split of a track with its sizes, and, where known,
// the expected value to check against: the counts of ../shared/research/data.md, or what the
// documented split rule gives on the sizes data.md states (FSDD 3,000 files, sklearn digits 1,797).
type Count struct {
	Split    string `json:"split"`
	Queries  int    `json:"queries"`
	Items    int    `json:"items"`
	ItemKind string `json:"item_kind"`
	Expected string `json:"expected,omitempty"` // "queries/items"
}

// Manifest is what a track records about its last build.
type Manifest struct {
	Track      string            `json:"track"`
	Kind       string            `json:"kind"` // real, label-derived or synthetic
	Builder    string            `json:"builder"`
	Inputs     map[string]string `json:"inputs"` // input path → sha256
	Outputs    []Artifact        `json:"outputs"`
	Counts     []Count           `json:"counts"`
	Provenance string            `json:"provenance"`
}

// ManifestName is the file each track writes last in its cache directory.
const ManifestName = "manifest.json"

// fileSHA256 hashes a file.
func fileSHA256(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// hashInputs hashes each input file; a missing one is an error carrying hint.
func hashInputs(paths []string, hint string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range paths {
		sum, _, err := fileSHA256(p)
		if err != nil {
			return nil, fmt.Errorf("missing input %s (%s): %w", p, hint, err)
		}
		out[p] = sum
	}
	return out, nil
}

// fresh returns the manifest in dir if it was built by builder from exactly inputs and every
// output still has its recorded size.
func fresh(dir, cache, builder string, inputs map[string]string) (*Manifest, bool) {
	raw, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		return nil, false
	}
	var m Manifest
	if json.Unmarshal(raw, &m) != nil || m.Builder != builder || len(m.Inputs) != len(inputs) {
		return nil, false
	}
	for k, v := range inputs {
		if m.Inputs[k] != v {
			return nil, false
		}
	}
	for _, a := range m.Outputs {
		st, err := os.Stat(filepath.Join(cache, a.Path))
		if err != nil || st.Size() != a.Bytes {
			return nil, false
		}
	}
	return &m, true
}

// finish hashes the outputs (paths relative to cache), writes the manifest into dir, and
// returns it.
func finish(dir, cache string, m Manifest, outputs []string) (*Manifest, error) {
	sort.Strings(outputs)
	for _, rel := range outputs {
		sum, n, err := fileSHA256(filepath.Join(cache, rel))
		if err != nil {
			return nil, err
		}
		m.Outputs = append(m.Outputs, Artifact{Path: rel, Bytes: n, SHA256: sum})
	}
	raw, _ := json.MarshalIndent(m, "", "  ")
	if err := atomicfile.WriteFile(filepath.Join(dir, ManifestName), append(raw, '\n'), 0o644); err != nil {
		return nil, err
	}
	return &m, nil
}

// relTo returns path relative to base (or path itself if that fails).
func relTo(base, path string) string {
	if r, err := filepath.Rel(base, path); err == nil {
		return r
	}
	return path
}

package tracks

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/sources"
)

// Env says where a build reads from and writes to.
type Env struct {
	Shared string    // the staged real data (--shared; datasets/README.md)
	Cache  string    // the build cache, datasets/cache
	Log    io.Writer // progress messages
	// Sources maps the staged path of each external input (datasets/sources.json, e.g.
	// "charades/classes.tsv") to its verified local copy: staged under Shared or downloaded into
	// the cache (ResolveSources). A path it lacks is read under Shared, unverified (as for the
	// tests' miniatures, which leave it nil).
	Sources sources.Local
	// MiniLM is the folder of all-MiniLM-L6-v2's files for the minilm track; empty means
	// minilm.DefaultDir() (build/minilm, installed by `make setup`).
	MiniLM string
}

// input is the local file of the external input at staged path rel (slash-separated).
func (env Env) input(rel string) string {
	if p, ok := env.Sources[rel]; ok {
		return p
	}
	return filepath.Join(env.Shared, filepath.FromSlash(rel))
}

// ResolveSources returns env with Sources set to verified local copies of the external inputs of
// the tracks named in only (all when empty) and of every track whose texts feed the GloVe subset
// (BuildAll reads them all): staged under env.Shared, else downloaded into <cache>/sources from
// the URLs of the manifest, or from mirror (sources.MirrorEnv) when set. A file that cannot be had
// is a data.BadInput error listing each such file with its URL (sources.Resolve).
func ResolveSources(env Env, m *sources.Manifest, only []string, mirror string) (Env, error) {
	var prefixes []string
	for _, b := range builders {
		if b.vocabSources || len(only) == 0 || slices.Contains(only, b.name) {
			prefixes = append(prefixes, b.sources...)
		}
	}
	local, err := sources.Resolve(m.Under(prefixes...), sources.Options{Shared: env.Shared, Cache: env.Cache, Mirror: mirror, Log: env.Log})
	env.Sources = local
	return env, err
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
// the expected value to check against: the counts of docs/data-sources.md §1, or what the
// documented split rule gives on the sizes it states (FSDD 3,000 files, sklearn digits 1,797).
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

// hashInputs hashes each input file. A missing input (hint says what provides it) is a
// data.BadInput error naming the file. (The external inputs were verified against
// datasets/sources.json when they were resolved: ResolveSources.)
func (env Env) hashInputs(paths []string, hint string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range paths {
		sum, _, err := sources.HashFile(p)
		if err != nil {
			return nil, data.BadInput(fmt.Errorf("missing input %s (%s): %w", p, hint, err))
		}
		out[p] = sum
	}
	return out, nil
}

// fresh returns the manifest in dir if it was built by builder from exactly inputs and every
// output it lists still has its recorded size and sha256; otherwise it logs why the track is
// rebuilt. Every output is hashed (no size-and-mtime fast path): the whole cache hashes in a few
// seconds, and a same-size, same-mtime corruption is then caught too.
func (env Env) fresh(dir, builder string, inputs map[string]string) (*Manifest, bool) {
	raw, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		return nil, false
	}
	var m Manifest
	if json.Unmarshal(raw, &m) != nil || m.Builder != builder || len(m.Inputs) != len(inputs) {
		env.logf("%s: rebuilding: %s is unreadable or from another builder or input list", dir, ManifestName)
		return nil, false
	}
	for k, v := range inputs {
		if m.Inputs[k] != v {
			env.logf("%s: rebuilding: input %s changed since the last build", dir, k)
			return nil, false
		}
	}
	for _, a := range m.Outputs {
		p := filepath.Join(env.Cache, a.Path)
		sum, n, err := sources.HashFile(p)
		switch {
		case err != nil:
			env.logf("%s: rebuilding: %v", dir, err)
		case n != a.Bytes || sum != a.SHA256:
			env.logf("%s: rebuilding: %s (%d bytes, sha256 %s) differs from the manifest (%d bytes, %s): corrupt or modified", dir, p, n, sum, a.Bytes, a.SHA256)
		default:
			continue
		}
		return nil, false
	}
	return &m, true
}

// finish hashes the outputs (paths relative to cache), writes the manifest into dir, and
// returns it.
func finish(dir, cache string, m Manifest, outputs []string) (*Manifest, error) {
	sort.Strings(outputs)
	for _, rel := range outputs {
		sum, n, err := sources.HashFile(filepath.Join(cache, rel))
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

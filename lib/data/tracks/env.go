package tracks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/data"
)

// Env says where a build reads from and writes to.
type Env struct {
	Shared string    // the staged real data (--shared; datasets/README.md)
	Cache  string    // the build cache, datasets/cache
	Log    io.Writer // progress messages
	// Staged pins the sha256 of staged inputs by path relative to Shared (StagedSHA256 for the
	// real staged data; nil checks nothing, as for the tests' miniatures). An input that
	// differs is an error naming it: rebuilding from a corrupt input would build corrupt data.
	Staged map[string]string
	// MiniLM is the folder of all-MiniLM-L6-v2's files for the minilm track; empty means
	// minilm.DefaultDir() (build/minilm, installed by `make setup`).
	MiniLM string
}

// StagedSHA256 pins the files staged in the shared data directory (copied unchanged from the repositories
// and commits that datasets/README.md names). A key ending in "/" pins
// a directory by the sha256 of its files' "<name> <sha256>\n" lines in name order (FSDD's 3,000
// recordings).
var StagedSHA256 = map[string]string{
	"charades/Charades_v1_test.csv":   "8b8b207b55fb95b949018027f69d83bd46cd844d15834f8f592ee8e7446173eb",
	"charades/Charades_v1_train.csv":  "59273c6dc2139ec7eb95b980fd26bc8529774b1ede0602f6ca90b546ed12f0fc",
	"charades/charades_sta_test.txt":  "fab341679c20b0917173dcffffde367a71113fe63f3a645558cef2ebfbfefb55",
	"charades/charades_sta_train.txt": "47ec9b6b488fca753373d9cc29b07a959f7237a922cb29463cd088cd6198e805",
	"charades/classes.tsv":            "8d6165bb03cccbfd46df39da53a77e76ef2eb43c56dcb1bf68d724a34cdd454c",
	"wordnet/mammals_filter.txt":      "f3d46ca7275a1fc20c4fea2f48c02bba1b491a7ec61ddb73bbabdd499bda0060",
	"fsdd/recordings/":                "dbd573d7cafe79c4b49f65718115e1304e24e067fa39eff18a660dc6cb9c360f",
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

// hashInputs hashes each input file and checks the staged ones against env.Staged. A missing
// input (hint says what provides it) or a staged one with another sha256 is a data.BadInput
// error naming the file.
func (env Env) hashInputs(paths []string, hint string) (map[string]string, error) {
	out := map[string]string{}
	dirs := map[string][]string{} // pinned directory → "<name> <sha256>" of its inputs
	for _, p := range paths {
		sum, _, err := fileSHA256(p)
		if err != nil {
			return nil, data.BadInput(fmt.Errorf("missing input %s (%s): %w", p, hint, err))
		}
		out[p] = sum
		rel, err := filepath.Rel(env.Shared, p)
		if env.Staged == nil || err != nil {
			continue
		}
		rel = filepath.ToSlash(rel)
		if want, pinned := env.Staged[rel]; pinned && sum != want {
			return nil, data.BadInput(fmt.Errorf("staged input %s has sha256 %s, want %s (corrupt or not the copy tracks.StagedSHA256 pins, docs/data-sources.md: restore it)", p, sum, want))
		}
		if dir := path.Dir(rel) + "/"; env.Staged[dir] != "" {
			dirs[dir] = append(dirs[dir], path.Base(rel)+" "+sum+"\n")
		}
	}
	for dir, lines := range dirs {
		sort.Strings(lines)
		h := sha256.Sum256([]byte(strings.Join(lines, "")))
		if got, want := hex.EncodeToString(h[:]), env.Staged[dir]; got != want {
			return nil, data.BadInput(fmt.Errorf("staged inputs %s (%d files) have digest %s, want %s (a file is corrupt, missing or added: restore the directory)",
				filepath.Join(env.Shared, dir), len(lines), got, want))
		}
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
		sum, n, err := fileSHA256(p)
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

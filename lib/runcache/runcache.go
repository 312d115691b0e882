package runcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/rundir"
)

// Module is the import path of this module.
const Module = "github.com/geoalign/geoalign"

// RootEnv names the environment variable that points at the checkout.
const RootEnv = "GEOALIGN_ROOT"

// CacheEnv names the environment variable that sets the root of the run cache (Root).
const CacheEnv = "GEOALIGN_RUN_CACHE"

// Root is the root of the run cache, the one place its environment variable is read:
// $GEOALIGN_RUN_CACHE (CacheEnv) when set and not empty, else fallback — the caller's default, e.g.
// build/runs of the checkout, or "" for no cache. `make figures`, the studies and the notebooks
// (kernel/nb) given the same root reuse each other's runs.
func Root(fallback string) string {
	if d := os.Getenv(CacheEnv); d != "" {
		return d
	}
	return fallback
}

// SpecFile is the name of the spec in a run directory.
const SpecFile = "spec.json"

// Spec is what identifies a run: the inputs of its key.
type Spec struct {
	Paper string `json:"paper"`
	// Config is the canonical JSON of the full configuration (object keys sorted at every level).
	Config json.RawMessage `json:"config"`
	// Data is a fingerprint of the data, e.g. the sha256 of the track manifest it was read from.
	Data   string `json:"data"`
	Seed   int64  `json:"seed"`
	Source Source `json:"source"`
	// Backend is the backend that trains the run (Backend): a run trained on one backend is never
	// served to another.
	Backend string `json:"backend"`
}

// Source identifies the code that trains a run.
type Source struct {
	// Hash is the sha256 over the module-relative path and content of every file in Files.
	Hash string `json:"sha256"`
	// Packages are the packages asked for and the packages of this module they import, sorted.
	Packages []string `json:"packages"`
	// Files are the hashed files (module-relative, slash-separated), sorted: go.mod and the
	// non-test .go files of Packages (all of them, whatever their build constraints).
	Files []string `json:"files,omitempty"`
	// Fallback, when set, says that no checkout was found and what was hashed instead.
	Fallback string `json:"fallback,omitempty"`
}

// NewSpec builds the spec of a run of paper with config (any value encoding/json accepts: a struct,
// a map, nested), the data fingerprint data, seed, and the source of packages (import paths in this
// module, e.g. Module+"/lib/models/gram"; lib/train is usually one of them).
func NewSpec(paper string, config any, data string, seed int64, packages ...string) (Spec, error) {
	if paper == "" || strings.ContainsAny(paper, `/\`) || paper == "." || paper == ".." {
		return Spec{}, fmt.Errorf("runcache: paper %q is not a directory name", paper)
	}
	if data == "" {
		return Spec{}, errors.New("runcache: the data fingerprint is empty: pass what identifies the data (e.g. its manifest's sha256)")
	}
	canon, err := Canonical(config)
	if err != nil {
		return Spec{}, fmt.Errorf("runcache: the configuration: %w", err)
	}
	src, err := SourceHash(packages...)
	if err != nil {
		return Spec{}, err
	}
	be, err := Backend()
	if err != nil {
		return Spec{}, err
	}
	return Spec{Paper: paper, Config: canon, Data: data, Seed: seed, Source: src, Backend: be}, nil
}

// BackendEnv names the environment variable that selects the backend (GoMLX's compute.ConfigEnvVar,
// read by lib/backend.New).
const BackendEnv = "GOMLX_BACKEND"

// Backend names the backend a run trains on, as its key records it: GOMLX_BACKEND as it is ("go"),
// except that an XLA plugin given by path ("xla:/abs/…/pjrt_c_api_cpu_plugin.so,options") is named
// by its file's base name and content hash ("xla:pjrt_c_api_cpu_plugin.so@sha256:…,options"), so
// that the same plugin in two checkouts gives the same key and another build of it another one.
func Backend() (string, error) {
	config := os.Getenv(BackendEnv)
	rest, ok := strings.CutPrefix(config, "xla:")
	if !ok {
		return config, nil
	}
	plugin, options, _ := strings.Cut(rest, ",")
	if !filepath.IsAbs(plugin) {
		return config, nil // a plugin go-xla finds by name ("xla:cuda"): the name is all there is
	}
	sum, err := fileSHA256(plugin)
	if err != nil {
		return "", fmt.Errorf("runcache: the backend's plugin (%s=%s): %w", BackendEnv, config, err)
	}
	be := "xla:" + filepath.Base(plugin) + "@sha256:" + sum
	if options != "" {
		be += "," + options
	}
	return be, nil
}

var fileSums sync.Map // path → FileStamp

// fileSHA256 is the sha256 (hex) of the file at path (rundir.Stamp), hashed once per process while
// its size and modification time stay the same: a PJRT plugin is 200 MB.
func fileSHA256(path string) (string, error) {
	var known []rundir.FileStamp
	if k, ok := fileSums.Load(path); ok {
		known = []rundir.FileStamp{k.(rundir.FileStamp)}
	}
	stamps, err := rundir.Stamp([]string{path}, known)
	if err != nil {
		return "", err
	}
	fileSums.Store(path, stamps[0])
	return stamps[0].SHA256, nil
}

// Canonical returns v's JSON with the keys of every object sorted and no insignificant space, so
// that equal values (whatever their map ordering or struct field order) give equal bytes. Numbers
// keep the text encoding/json gives them.
func Canonical(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	return json.Marshal(generic) // encoding/json writes map keys sorted
}

// Key is the hex sha256 of the spec's canonical JSON.
func (s Spec) Key() string {
	b, err := Canonical(s)
	if err != nil { // cannot happen: every field is plain data or already canonical JSON
		panic(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Dir is the run directory of s under root: <root>/<paper>/<key>.
func Dir(root string, s Spec) string { return filepath.Join(root, s.Paper, s.Key()) }

// Open creates the run directory of s under root (if needed) and writes its spec.json atomically,
// or checks that the one there is s's. It returns the directory.
func Open(root string, s Spec) (string, error) {
	dir := Dir(root, s)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("runcache: %w", err)
	}
	want, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return "", fmt.Errorf("runcache: %w", err)
	}
	want = append(want, '\n')
	path := filepath.Join(dir, SpecFile)
	have, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return dir, atomicfile.WriteFile(path, want, 0o644)
	case err != nil:
		return "", fmt.Errorf("runcache: %w", err)
	case !bytes.Equal(have, want):
		return "", fmt.Errorf("runcache: %s describes another run than its key %s (edited by hand?)", path, s.Key())
	}
	return dir, nil
}

// ModuleRoot returns the checkout of this module: GEOALIGN_ROOT if set (it must hold this module's
// go.mod), else the nearest directory above the working directory whose go.mod declares Module.
func ModuleRoot() (string, error) {
	if root := os.Getenv(RootEnv); root != "" {
		if !declaresModule(root) {
			return "", fmt.Errorf("runcache: %s=%s holds no go.mod of %s", RootEnv, root, Module)
		}
		return filepath.Abs(root)
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("runcache: %w", err)
	}
	for {
		if declaresModule(dir) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("runcache: no go.mod of %s above the working directory (set %s)", Module, RootEnv)
		}
		dir = parent
	}
}

// InCheckout is the path elem relative to the checkout (ModuleRoot), or to the working directory
// when no checkout is found: the default of a directory that belongs to the checkout (build/…,
// datasets/cache), found from any directory below it — GoNB runs a notebook's cells in notebooks/.
func InCheckout(elem ...string) string {
	root, err := ModuleRoot()
	if err != nil {
		root = "."
	}
	return filepath.Join(append([]string{root}, elem...)...)
}

// declaresModule reports whether dir/go.mod declares Module.
func declaresModule(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(b)) {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "module" {
			path, err := strconv.Unquote(f[1])
			if err != nil {
				path = f[1]
			}
			return path == Module
		}
	}
	return false
}

// sources memoises SourceHash per checkout and package list: the code a process runs does not
// change while it runs, so edits to the checkout after the first hash do not re-key later runs.
var sources sync.Map // string → Source

// SourceHash hashes the source of packages (import paths in this module) and of the packages of this
// module they import, with go.mod, from the checkout (ModuleRoot); without one, the executable.
func SourceHash(packages ...string) (Source, error) {
	if len(packages) == 0 {
		return Source{}, errors.New("runcache: no package to hash")
	}
	root, rootErr := ModuleRoot()
	if rootErr != nil && os.Getenv(RootEnv) != "" {
		return Source{}, rootErr
	}
	memo := root + "\x00" + strings.Join(packages, "\x00")
	if s, ok := sources.Load(memo); ok {
		return s.(Source), nil
	}
	var src Source
	var err error
	if rootErr != nil {
		src, err = executableHash(packages, rootErr)
	} else {
		src, err = hashPackages(root, packages)
	}
	if err != nil {
		return Source{}, err
	}
	sources.Store(memo, src)
	return src, nil
}

// hashPackages walks the in-module imports of packages from root and hashes their files.
func hashPackages(root string, packages []string) (Source, error) {
	seen := map[string]bool{}
	queue := slices.Clone(packages)
	files := []string{"go.mod"}
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		if seen[pkg] {
			continue
		}
		seen[pkg] = true
		rel, ok := strings.CutPrefix(pkg, Module)
		if !ok || (rel != "" && !strings.HasPrefix(rel, "/")) {
			return Source{}, fmt.Errorf("runcache: %s is not a package of %s", pkg, Module)
		}
		dir := filepath.Join(root, filepath.FromSlash(rel))
		entries, err := os.ReadDir(dir)
		if err != nil {
			return Source{}, fmt.Errorf("runcache: package %s: %w", pkg, err)
		}
		n := 0
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			path := filepath.Join(dir, name)
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return Source{}, fmt.Errorf("runcache: %w", err)
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if p == Module || strings.HasPrefix(p, Module+"/") {
					queue = append(queue, p)
				}
			}
			files = append(files, strings.TrimPrefix(filepath.ToSlash(path), filepath.ToSlash(root)+"/"))
			n++
		}
		if n == 0 {
			return Source{}, fmt.Errorf("runcache: package %s has no Go file in %s", pkg, dir)
		}
	}
	slices.Sort(files)
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			return Source{}, fmt.Errorf("runcache: %w", err)
		}
		sum := sha256.Sum256(b)
		fmt.Fprintf(h, "%s\x00%x\n", f, sum)
	}
	pkgs := make([]string, 0, len(seen))
	for p := range seen {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	return Source{Hash: hex.EncodeToString(h.Sum(nil)), Packages: pkgs, Files: files}, nil
}

// executableHash is the fallback without a checkout: the running executable's bytes.
func executableHash(packages []string, why error) (Source, error) {
	exe, err := os.Executable()
	if err != nil {
		return Source{}, fmt.Errorf("%w; and the executable cannot be found to hash instead: %v", why, err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		return Source{}, fmt.Errorf("%w; and the executable cannot be read to hash instead: %v", why, err)
	}
	sum := sha256.Sum256(b)
	pkgs := slices.Sorted(slices.Values(packages))
	return Source{Hash: hex.EncodeToString(sum[:]), Packages: pkgs,
		Fallback: fmt.Sprintf("%v: hashed the executable %s instead (any rebuild gives new keys)", why, filepath.Base(exe))}, nil
}

package reproduce

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/runcache"
)

// Every table this package stamps records the key of the code that computed it (report.Code: the
// source hash of its producing package's closure and the backend, as lib/runcache keys a run), and
// Status recomputes that key from the checkout for every table under a figures directory, so that
// a committed table the current code would no longer produce is listed instead of silently kept
// (`geoalign figures --status`, docs/xla.md §7).

// self is this package's import path.
const self = runcache.Module + "/lib/reproduce"

// callerPackage is the import path of the first function on the call stack (above its caller) whose
// package is of this module and is not this one — an external test package ("…_test") counts as the
// package it tests, and package main as the main package's import path; this package when there is
// none.
func callerPackage() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		pkg := strings.TrimSuffix(funcPackage(f.Function), "_test")
		if pkg == "main" {
			if info, ok := debug.ReadBuildInfo(); ok {
				pkg = info.Path
			}
		}
		if pkg != self && strings.HasPrefix(pkg, runcache.Module+"/") {
			return pkg
		}
		if !more {
			return self
		}
	}
}

// funcPackage is the import path of a function's package, from the function's full name
// ("github.com/x/y/pkg.(*T).Method.func1", "github.com/x/y/pkg.F[...]" → "github.com/x/y/pkg").
func funcPackage(name string) string {
	if i := strings.Index(name, "["); i >= 0 { // a generic function's type arguments may hold "/" and "."
		name = name[:i]
	}
	slash := strings.LastIndex(name, "/")
	if dot := strings.Index(name[slash+1:], "."); dot >= 0 {
		return name[:slash+1+dot]
	}
	return name
}

// CodeOf is the report.Code of tables computed by packages (import paths of this module) on the
// backend GOMLX_BACKEND names, as lib/runcache keys a run: runcache.SourceHash of the packages and
// the packages of this module they import, runcache.Backend, and Key over both (CodeKey).
func CodeOf(packages ...string) (*report.Code, error) {
	src, err := runcache.SourceHash(packages...)
	if err != nil {
		return nil, err
	}
	be, err := runcache.Backend()
	if err != nil {
		return nil, err
	}
	c := &report.Code{Packages: slices.Sorted(slices.Values(packages)), Source: src.Hash, Backend: be, Fallback: src.Fallback}
	c.Key = CodeKey(c)
	return c, nil
}

// CodeKey is the hex sha256 of the canonical JSON of c's packages, source hash and backend.
func CodeKey(c *report.Code) string {
	b, err := runcache.Canonical(struct {
		Packages        []string
		Source, Backend string
	}{c.Packages, c.Source, c.Backend})
	if err != nil { // cannot happen: strings only
		panic(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TableStatus is one table under a figures directory as Status finds it.
type TableStatus struct {
	// File is the table's path relative to the directory, without extension, and the extensions
	// found: "gram/table1.{json,md}".
	File string
	// Commit and Backend are what the table records (its provenance's Commit and Backend lines).
	Commit, Backend string
	// RunBackend is the backend as a run key names it: the recorded Code's, else the GOMLX_BACKEND
	// that Backend quotes ("go"), else Backend.
	RunBackend string
	// Current says that the recorded key is the one the current code and backend give; Why says
	// why not.
	Current bool
	Why     string
}

// Statuses is what Status finds under a figures directory.
type Statuses struct {
	Tables []TableStatus
	// Commits and Backends count the tables that name each commit and backend ("" when none).
	Commits, Backends map[string]int
}

// Problems are why the directory is not current as a whole, or none: tables that are not current,
// more than one commit or backend named, or a commit that no checkout can be at (rundir.GitCommit's
// "+dirty" after uncommitted changes, "unknown" outside git).
func (s Statuses) Problems() []string {
	var out []string
	stale := 0
	for _, t := range s.Tables {
		if !t.Current {
			stale++
		}
	}
	if len(s.Tables) == 0 {
		out = append(out, "no table")
	}
	if stale > 0 {
		out = append(out, fmt.Sprintf("%d of %d tables are not current", stale, len(s.Tables)))
	}
	if len(s.Commits) > 1 {
		out = append(out, fmt.Sprintf("the tables name %d commits, not one", len(s.Commits)))
	}
	if len(s.Backends) > 1 {
		out = append(out, fmt.Sprintf("the tables name %d backends, not one", len(s.Backends)))
	}
	for _, c := range slices.Sorted(maps.Keys(s.Commits)) {
		if !CleanCommit(c) {
			out = append(out, fmt.Sprintf("%d tables name %q, not a commit", s.Commits[c], cmp.Or(c, "(none)")))
		}
	}
	return out
}

// AllCurrent says whether every table is current and all of them name one clean commit and one
// backend (Problems is empty).
func (s Statuses) AllCurrent() bool { return len(s.Problems()) == 0 }

// CleanCommit says whether commit, as rundir.GitCommit gives it, names a commit that a checkout can
// be at: not "+dirty" (uncommitted changes), "unknown" (outside git) or empty.
func CleanCommit(commit string) bool {
	return commit != "" && commit != "unknown" && !strings.HasSuffix(commit, "+dirty")
}

// statusAside are the entries directly under a figures directory that Status leaves aside: the
// cross-checks, GPU checks and benchmarks record their own runs, and ci/ is the uncommitted smoke run.
func statusAside(name string) bool {
	return name == "crosscheck" || name == "ci" || strings.HasPrefix(name, "gpu-check") || strings.HasPrefix(name, "bench")
}

// Status lists every provenance-bearing file under dir — each table's JSON (report.Table.Save) and
// Markdown files with a "Commit:" provenance line — with whether the code key it records is the one
// the checkout and GOMLX_BACKEND give now (CodeOf its recorded packages). A table is not current when
// it records no key (written before tables recorded one), when its source or backend differs, when
// its key does not match what it records, or when its Markdown names another commit, backend or key
// than its JSON. Files that cannot be read as JSON, or a table that does not validate, are
// data.BadInput errors naming the file, as is a dir that holds no table.
func Status(dir string) (Statuses, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return Statuses{}, data.BadInput(fmt.Errorf("%s is not a directory", dir))
	}
	type found struct {
		table *report.Table
		md    *mdProvenance
	}
	bases := map[string]*found{}
	at := func(rel string) *found {
		base := strings.TrimSuffix(rel, filepath.Ext(rel))
		if bases[base] == nil {
			bases[base] = &found{}
		}
		return bases[base]
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			if filepath.Dir(rel) == "." && statusAside(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if filepath.Dir(rel) == "." && statusAside(strings.TrimSuffix(d.Name(), filepath.Ext(d.Name()))) {
			return nil
		}
		switch filepath.Ext(path) {
		case ".json":
			t, err := readTable(path)
			if err != nil || t == nil {
				return err
			}
			at(rel).table = t
		case ".md":
			m, err := readMarkdownProvenance(path)
			if err != nil || m == nil {
				return err
			}
			at(rel).md = m
		}
		return nil
	})
	if err != nil {
		return Statuses{}, err
	}
	if len(bases) == 0 {
		return Statuses{}, data.BadInput(fmt.Errorf("%s holds no table with provenance", dir))
	}
	out := Statuses{Commits: map[string]int{}, Backends: map[string]int{}}
	for _, base := range slices.Sorted(maps.Keys(bases)) {
		f := bases[base]
		var s TableStatus
		var exts []string
		if f.table != nil {
			exts = append(exts, "json")
			s, err = tableStatus(f.table)
			if err != nil {
				return Statuses{}, err
			}
			if f.md != nil {
				exts = append(exts, "md")
				if why := f.md.disagrees(f.table); why != "" {
					s.Current, s.Why = false, joinWhy(s.Why, why)
				}
			}
		} else {
			exts = append(exts, "md")
			s = TableStatus{Commit: f.md.commit, Backend: f.md.backend, RunBackend: runBackend(nil, f.md.backend),
				Why: "no key recorded (a Markdown file without its JSON table)"}
		}
		s.File = filepath.ToSlash(base) + "." + strings.Join(exts, ",")
		if len(exts) > 1 {
			s.File = filepath.ToSlash(base) + ".{" + strings.Join(exts, ",") + "}"
		}
		out.Tables = append(out.Tables, s)
		out.Commits[s.Commit]++
		out.Backends[s.Backend]++
	}
	return out, nil
}

// readTable reads path as a table Save wrote: nil without error when it is JSON but no table (a
// claims.json, a pending.json: no "provenance" object), an error naming the file when it is not
// JSON or its table does not validate.
func readTable(path string) (*report.Table, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !json.Valid(b) {
		return nil, data.BadInput(fmt.Errorf("%s: not valid JSON", path))
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(b, &probe) != nil || probe["provenance"] == nil {
		return nil, nil
	}
	t, err := report.LoadTable(path)
	if err != nil {
		return nil, data.BadInput(err)
	}
	return t, nil
}

// tableStatus compares the Code t records with CodeOf its packages now.
func tableStatus(t *report.Table) (TableStatus, error) {
	p := t.Provenance
	s := TableStatus{Commit: p.Commit, Backend: p.Backend, RunBackend: runBackend(p.Code, p.Backend)}
	c := p.Code
	switch {
	case c == nil:
		s.Why = "no key recorded (written before tables recorded the key of their code)"
		return s, nil
	case c.Fallback != "":
		s.Why = "keyed by the executable, not the source: " + c.Fallback
		return s, nil
	case CodeKey(c) != c.Key:
		s.Why = "its key is not the key of the packages, source and backend it records (edited by hand?)"
		return s, nil
	}
	now, err := CodeOf(c.Packages...)
	if err != nil {
		s.Why = "its code cannot be keyed now: " + err.Error()
		return s, nil
	}
	var why []string
	if now.Source != c.Source {
		why = append(why, fmt.Sprintf("the source of %s changed since (sha256 %.12s, now %.12s)", relPackages(c.Packages), c.Source, now.Source))
	}
	if now.Backend != c.Backend {
		why = append(why, fmt.Sprintf("keyed on backend %s, GOMLX_BACKEND now keys %s", c.Backend, now.Backend))
	}
	s.Current, s.Why = len(why) == 0, strings.Join(why, "; ")
	return s, nil
}

// relPackages names packages relative to the module, comma-separated.
func relPackages(packages []string) string {
	rel := make([]string, len(packages))
	for i, p := range packages {
		rel[i] = strings.TrimPrefix(p, runcache.Module+"/")
	}
	return strings.Join(rel, ", ")
}

// quotedBackend finds the GOMLX_BACKEND value a described backend quotes (backend.Info).
var quotedBackend = regexp.MustCompile(`GOMLX_BACKEND="([^"]*)"`)

// runBackend is the backend as a run key names it: c's when recorded, else the GOMLX_BACKEND value
// the described backend quotes, else the description.
func runBackend(c *report.Code, described string) string {
	if c != nil {
		return c.Backend
	}
	if m := quotedBackend.FindStringSubmatch(described); m != nil {
		return m[1]
	}
	return described
}

func joinWhy(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// mdProvenance is what a Markdown table records in its provenance lines (report.Table.Markdown).
type mdProvenance struct {
	commit, backend, key string
}

// The provenance lines of a Markdown table (report.Table.Markdown) that Status reads.
const (
	mdCommit  = "- Commit: "
	mdBackend = "- Backend: "
	mdCode    = "- " + report.CodeLinePrefix
)

// readMarkdownProvenance reads the first Commit, Backend and Code provenance lines of a Markdown
// file: nil when it has no Commit line (no provenance).
func readMarkdownProvenance(path string) (*mdProvenance, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m mdProvenance
	hasCommit := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, len(b)+1)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, mdCommit) && !hasCommit:
			m.commit, hasCommit = strings.TrimSuffix(strings.TrimPrefix(line, mdCommit), "."), true
		case strings.HasPrefix(line, mdBackend) && m.backend == "":
			m.backend = strings.TrimSuffix(strings.TrimPrefix(line, mdBackend), ".")
		case strings.HasPrefix(line, mdCode) && m.key == "":
			m.key, _, _ = strings.Cut(strings.TrimPrefix(line, mdCode), " ")
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !hasCommit {
		return nil, nil
	}
	return &m, nil
}

// disagrees says how the Markdown's provenance differs from its JSON table's, or "".
func (m *mdProvenance) disagrees(t *report.Table) string {
	p := t.Provenance
	key := ""
	if p.Code != nil {
		key = p.Code.Key
	}
	var why []string
	for _, f := range []struct{ name, md, json string }{{"commit", m.commit, p.Commit}, {"backend", m.backend, p.Backend}, {"code key", m.key, key}} {
		if f.md != f.json {
			why = append(why, fmt.Sprintf("its .md names %s %q, its .json %q", f.name, f.md, f.json))
		}
	}
	return strings.Join(why, "; ")
}

// Counted lists the values of counts, most frequent first (then in order), as "value (n)"; the
// empty value reads "(none)".
func Counted(counts map[string]int) string {
	vals := slices.Collect(maps.Keys(counts))
	sort.Slice(vals, func(i, j int) bool {
		if counts[vals[i]] != counts[vals[j]] {
			return counts[vals[i]] > counts[vals[j]]
		}
		return vals[i] < vals[j]
	})
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = fmt.Sprintf("%s (%d)", cmp.Or(v, "(none)"), counts[v])
	}
	return strings.Join(parts, "; ")
}

package reproduce

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/runcache"
)

// toyTable is a small table with the provenance fields a study fills (Stamp adds the rest).
func toyTable(title string) *report.Table {
	t := report.NewTable(title, report.Provenance{Data: "toy", Kind: report.Synthetic, Seeds: []int64{1, 2}}, "model", "R@1")
	t.AddRow("a", "1.0 ± 0.1")
	return t
}

// writeToySection writes one section with one table through the real writer (RunSections, which
// stamps it) under dir/toy, and returns the table's JSON path.
func writeToySection(t *testing.T, dir, name string) string {
	t.Helper()
	_, err := RunSections(Options{}, "toy", filepath.Join(dir, "toy"), "", []NamedSection{
		Step("s", func(sec *Section) error { sec.Table(name, toyTable(name)); return nil }),
	})
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "toy", name+".json")
}

// statusOf is Status(dir) with the file's entry, failing the test when it is missing.
func statusOf(t *testing.T, dir, file string) (Statuses, TableStatus) {
	t.Helper()
	st, err := Status(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st.Tables {
		if s.File == file {
			return st, s
		}
	}
	t.Fatalf("%s not listed by Status(%s): %+v", file, dir, st.Tables)
	return st, TableStatus{}
}

// edit rewrites the table at path with change applied to it (through report's own JSON).
func edit(t *testing.T, path string, change func(*report.Table)) {
	t.Helper()
	tb, err := report.LoadTable(path)
	if err != nil {
		t.Fatal(err)
	}
	change(tb)
	if err := tb.Save(strings.TrimSuffix(path, ".json")); err != nil {
		t.Fatal(err)
	}
}

// A table the real writer just wrote is current and names one commit and backend; its key is the
// sha256 of the canonical JSON of what it records; editing its source hash, backend, key, commit or
// backend line (in the JSON or only in the Markdown) makes it stale or splits the commits/backends.
func TestStatusOfFreshAndEditedTables(t *testing.T) {
	t.Setenv(runcache.BackendEnv, "go")
	dir := t.TempDir()
	path := writeToySection(t, dir, "t1")
	st, s := statusOf(t, dir, "toy/t1.{json,md}")
	if !s.Current || s.Why != "" || len(st.Tables) != 1 || st.Commits[GitCommit()] != 1 || len(st.Backends) != 1 {
		t.Fatalf("a fresh table: %+v, commits %v, backends %v (%d tables; claims.json is none)", s, st.Commits, st.Backends, len(st.Tables))
	}
	// The directory as a whole is current when its one commit is clean (this checkout may have
	// uncommitted changes: "+dirty"); a table at a clean commit makes it so.
	clean := !strings.HasSuffix(GitCommit(), "+dirty") && GitCommit() != "unknown"
	if st.AllCurrent() != clean {
		t.Errorf("a fresh table at commit %s: all current %v, problems %v", GitCommit(), st.AllCurrent(), st.Problems())
	}
	edit(t, path, func(tb *report.Table) { tb.Provenance.Commit = "0123456789ab" })
	if st, _ := statusOf(t, dir, "toy/t1.{json,md}"); !st.AllCurrent() {
		t.Fatalf("a fresh table at a clean commit: problems %v", st.Problems())
	}
	tb, err := report.LoadTable(path)
	if err != nil {
		t.Fatal(err)
	}
	c := tb.Provenance.Code
	if c == nil || c.Backend != "go" || len(c.Packages) != 1 || c.Packages[0] != self {
		t.Fatalf("the stamped code: %+v, want this package on backend go", c)
	}
	// The key, computed here from its definition: sha256 of the canonical JSON (keys sorted).
	sum := sha256.Sum256([]byte(`{"Backend":"go","Packages":["` + self + `"],"Source":"` + c.Source + `"}`))
	if c.Key != hex.EncodeToString(sum[:]) {
		t.Errorf("key %s, want sha256 of its packages, source and backend %x", c.Key, sum)
	}
	md, err := os.ReadFile(strings.TrimSuffix(path, ".json") + ".md")
	if err != nil || !strings.Contains(string(md), "- Code: "+c.Key+" (the source of lib/reproduce ") {
		t.Errorf("the Markdown does not give the key %s: %s (%v)", c.Key, md, err)
	}

	cases := []struct {
		name   string
		change func(*report.Table)
		why    string
	}{
		{"source", func(tb *report.Table) {
			tb.Provenance.Code.Source = strings.Repeat("0", 64)
			tb.Provenance.Code.Key = CodeKey(tb.Provenance.Code)
		}, "the source of lib/reproduce changed since"},
		{"backend", func(tb *report.Table) {
			tb.Provenance.Code.Backend = "xla:cpu"
			tb.Provenance.Code.Key = CodeKey(tb.Provenance.Code)
		}, "keyed on backend xla:cpu, GOMLX_BACKEND now keys go"},
		{"key", func(tb *report.Table) { tb.Provenance.Code.Key = strings.Repeat("1", 64) }, "edited by hand"},
		{"none", func(tb *report.Table) { tb.Provenance.Code = nil }, "no key recorded"},
		{"fallback", func(tb *report.Table) { tb.Provenance.Code.Fallback = "no checkout" }, "keyed by the executable"},
	}
	for _, tc := range cases {
		p := writeToySection(t, dir, "t-"+tc.name)
		edit(t, p, tc.change)
		st, s := statusOf(t, dir, "toy/t-"+tc.name+".{json,md}")
		if s.Current || !strings.Contains(s.Why, tc.why) || st.AllCurrent() {
			t.Errorf("%s edited: %+v (all current %v), want not current: %q", tc.name, s, st.AllCurrent(), tc.why)
		}
		os.Remove(p)
		os.Remove(strings.TrimSuffix(p, ".json") + ".md")
	}
	if st, _ := statusOf(t, dir, "toy/t1.{json,md}"); !st.AllCurrent() {
		t.Fatalf("after removing the edited tables: %+v", st)
	}

	// Another commit or backend line: each table stays current, the directory is not.
	p := writeToySection(t, dir, "t2")
	edit(t, p, func(tb *report.Table) { tb.Provenance.Commit = "000000000000" })
	st, s = statusOf(t, dir, "toy/t2.{json,md}")
	if !s.Current || len(st.Commits) != 2 || st.Commits["000000000000"] != 1 || !slices.Contains(st.Problems(), "the tables name 2 commits, not one") {
		t.Errorf("a table of another commit: %+v, commits %v, problems %v", s, st.Commits, st.Problems())
	}
	edit(t, p, func(tb *report.Table) {
		tb.Provenance.Commit, tb.Provenance.Backend = "0123456789ab", "another machine"
	})
	if st, _ = statusOf(t, dir, "toy/t2.{json,md}"); len(st.Backends) != 2 || !slices.Equal(st.Problems(), []string{"the tables name 2 backends, not one"}) {
		t.Errorf("a table of another backend: backends %v, problems %v", st.Backends, st.Problems())
	}
	edit(t, p, func(tb *report.Table) { tb.Provenance.Commit = "0123456789ab+dirty" })
	if st, _ = statusOf(t, dir, "toy/t2.{json,md}"); !slices.Contains(st.Problems(), `1 tables name "0123456789ab+dirty", not a commit`) {
		t.Errorf("a table of uncommitted code: problems %v", st.Problems())
	}

	// The Markdown edited alone disagrees with its JSON.
	md2 := strings.TrimSuffix(p, ".json") + ".md"
	b, _ := os.ReadFile(md2)
	if err := os.WriteFile(md2, []byte(strings.Replace(string(b), "- Commit: ", "- Commit: 0", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, s = statusOf(t, dir, "toy/t2.{json,md}"); s.Current || !strings.Contains(s.Why, "its .md names commit") {
		t.Errorf("a Markdown naming another commit than its JSON: %+v", s)
	}
}

// A table keyed on a checkout is current there and in an identical copy of it, and stale in a
// checkout where a file its package imports differs (GEOALIGN_ROOT names each; each is its own
// directory, since a process hashes a checkout once).
func TestStatusSeesChangedSource(t *testing.T) {
	t.Setenv(runcache.BackendEnv, "go")
	checkout := func(body string) string {
		root := t.TempDir()
		writeFiles(t, root, map[string]string{
			"go.mod":              "module " + runcache.Module + "\n",
			"lib/toy/toy.go":      "package toy\n\nimport _ \"" + runcache.Module + "/lib/toy/dep\"\n",
			"lib/toy/dep/dep.go":  "package dep\n\n" + body,
			"lib/toy/toy_test.go": "package toy\n// tests are not hashed\n",
		})
		return root
	}
	before, same, after := checkout("const N = 1\n"), checkout("const N = 1\n"), checkout("const N = 2\n")
	t.Setenv(runcache.RootEnv, before)
	code, err := CodeOf(runcache.Module + "/lib/toy")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tb := toyTable("t")
	tb.Provenance.Commit, tb.Provenance.Code = "abc", code
	if err := tb.Save(filepath.Join(dir, "t")); err != nil {
		t.Fatal(err)
	}
	for root, current := range map[string]bool{before: true, same: true, after: false} {
		t.Setenv(runcache.RootEnv, root)
		_, s := statusOf(t, dir, "t.{json,md}")
		if s.Current != current || (!current && !strings.Contains(s.Why, "the source of lib/toy changed since")) {
			t.Errorf("checkout %s: %+v, want current %v", filepath.Base(root), s, current)
		}
	}
}

// A Markdown file with a provenance line but no JSON table is listed without a key; JSON that is
// not a table (claims, pending) and the directories that record their own runs are not listed; a
// file that is not JSON, a directory that is not one and one without tables are bad input.
func TestStatusListsAndRefuses(t *testing.T) {
	dir := t.TempDir()
	if _, err := Status(dir); !data.IsBadInput(err) {
		t.Errorf("an empty directory: %v, want bad input", err)
	}
	if _, err := Status(filepath.Join(dir, "missing")); !data.IsBadInput(err) {
		t.Errorf("a missing directory: %v, want bad input", err)
	}
	writeFiles(t, dir, map[string]string{
		"p/old.md":       "### T\n\n| a |\n| --- |\n| 1 |\n\n- Data: toy (synthetic).\n- Backend: backend Go Backend (GOMLX_BACKEND=\"go\"), GOMAXPROCS=2.\n- Commit: abcdef.\n",
		"p/claims.json":  "[]\n",
		"p/pending.json": `{"paper": "p", "sections": ["x"]}` + "\n",
	})
	if err := toyTable("aside").Save(filepath.Join(dir, "crosscheck", "gare")); err != nil {
		t.Fatal(err)
	}
	if err := toyTable("aside").Save(filepath.Join(dir, "gpu-check", "run1", "report")); err != nil {
		t.Fatal(err)
	}
	if err := toyTable("aside").Save(filepath.Join(dir, "bench")); err != nil {
		t.Fatal(err)
	}
	st, s := statusOf(t, dir, "p/old.md")
	if len(st.Tables) != 1 || s.Current || s.Commit != "abcdef" || s.RunBackend != "go" || !strings.Contains(s.Why, "no key recorded") {
		t.Errorf("the listing: %+v", st.Tables)
	}
	writeFiles(t, dir, map[string]string{"p/broken.json": "{"})
	if _, err := Status(dir); !data.IsBadInput(err) || !strings.Contains(err.Error(), "broken.json") {
		t.Errorf("a file that is not JSON: %v, want bad input naming it", err)
	}
}

// writeFiles writes files (paths relative to root → content), creating their directories.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, rel)
		err := os.MkdirAll(filepath.Dir(p), 0o755)
		if err == nil {
			err = os.WriteFile(p, []byte(content), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// The package of a function from its full name, generic and closure names included.
func TestFuncPackage(t *testing.T) {
	const m = runcache.Module
	cases := []struct{ name, want string }{
		{m + "/lib/studies/gramstudy.figures.func1", m + "/lib/studies/gramstudy"},
		{m + "/lib/reproduce.(*Section).Save", self},
		{m + "/lib/reproduce.Metric[go.shape.struct { a/b.c }]", self},
		{"main.runWordnet", "main"},
		{"testing.tRunner", "testing"},
	}
	for _, c := range cases {
		if got := funcPackage(c.name); got != c.want {
			t.Errorf("funcPackage(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

package runcache

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

type scale struct {
	Epochs int
	Seeds  []int64
}

type config struct {
	LR      float64
	Name    string
	Scale   scale
	Weights map[string]float64
	Nested  *struct{ Deep struct{ X int } }
}

func baseConfig() config {
	c := config{LR: 1e-3, Name: "gram", Scale: scale{Epochs: 20, Seeds: []int64{1, 2, 3}},
		Weights: map[string]float64{"a": 1, "b": 2}}
	c.Nested = &struct{ Deep struct{ X int } }{}
	c.Nested.Deep.X = 7
	return c
}

// fakeModule writes a module tree: lib/a imports lib/b, lib/c is unrelated, and points
// GEOALIGN_ROOT at it (with a fresh memo of source hashes).
func fakeModule(t *testing.T) string {
	root := t.TempDir()
	write(t, root, "go.mod", "module github.com/geoalign/geoalign\n\ngo 1.27.0\n")
	write(t, root, "lib/a/a.go", "package a\n\nimport _ \"github.com/geoalign/geoalign/lib/b\"\n")
	write(t, root, "lib/a/a_test.go", "package a\n")
	write(t, root, "lib/b/b.go", "package b\n\nimport \"fmt\"\n\nvar _ = fmt.Sprint\n")
	write(t, root, "lib/c/c.go", "package c\n")
	t.Setenv(RootEnv, root)
	sources = sync.Map{}
	return root
}

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	path := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func key(t *testing.T, paper string, cfg any, data string, seed int64) string {
	t.Helper()
	sources = sync.Map{} // each key sees the checkout as it is now
	s, err := NewSpec(paper, cfg, data, seed, Module+"/lib/a")
	if err != nil {
		t.Fatal(err)
	}
	return s.Key()
}

// TestKeyChangesWithEveryInput: every configuration field (top level, nested, scale, map entry,
// slice element), the data fingerprint, the seed, the paper and the source of the covered packages
// give new keys; the same inputs the same key; map order, test files and packages not imported do not.
func TestKeyChangesWithEveryInput(t *testing.T) {
	root := fakeModule(t)
	base := key(t, "gram", baseConfig(), "manifest-sha", 1)
	if again := key(t, "gram", baseConfig(), "manifest-sha", 1); again != base {
		t.Fatalf("same inputs, keys %s and %s", base, again)
	}
	variants := map[string]func(*config){
		"LR":           func(c *config) { c.LR = 2e-3 },
		"Name":         func(c *config) { c.Name = "hypergram" },
		"Scale.Epochs": func(c *config) { c.Scale.Epochs = 21 },
		"Scale.Seeds":  func(c *config) { c.Scale.Seeds[2] = 4 },
		"Weights[a]":   func(c *config) { c.Weights["a"] = 1.5 },
		"Weights new":  func(c *config) { c.Weights["c"] = 0 },
		"Nested":       func(c *config) { c.Nested.Deep.X = 8 },
		"Nested nil":   func(c *config) { c.Nested = nil },
	}
	seen := map[string]string{base: "base"}
	check := func(what, k string) {
		t.Helper()
		if prev, dup := seen[k]; dup {
			t.Fatalf("%s gives the key of %s", what, prev)
		}
		seen[k] = what
	}
	for name, change := range variants {
		c := baseConfig()
		change(&c)
		check(name, key(t, "gram", c, "manifest-sha", 1))
	}
	check("data", key(t, "gram", baseConfig(), "other-manifest", 1))
	check("seed", key(t, "gram", baseConfig(), "manifest-sha", 2))
	check("paper", key(t, "hypergram", baseConfig(), "manifest-sha", 1))

	// Map order: the same map built in another order (and a map instead of a struct of the same
	// content) gives the same key.
	m1 := map[string]any{"x": 1, "y": map[string]int{"p": 1, "q": 2}}
	m2 := map[string]any{}
	m2["y"] = map[string]int{"q": 2, "p": 1}
	m2["x"] = 1
	if key(t, "gram", m1, "d", 1) != key(t, "gram", m2, "d", 1) {
		t.Fatal("map ordering changed the key")
	}

	// Source: a test file and an unrelated package do not change the key; a file of the package, of
	// a package it imports, a new file, or go.mod do.
	write(t, root, "lib/a/a_test.go", "package a\n\n// edited\n")
	write(t, root, "lib/c/c.go", "package c\n\n// edited\n")
	if k := key(t, "gram", baseConfig(), "manifest-sha", 1); k != base {
		t.Fatal("a test file or an unrelated package changed the key")
	}
	for _, edit := range []struct{ file, content string }{
		{"lib/b/b.go", "package b\n\nimport \"fmt\"\n\nvar _ = fmt.Sprintln\n"},
		{"lib/a/a.go", "package a\n\nimport _ \"github.com/geoalign/geoalign/lib/b\"\n\n// edited\n"},
		{"lib/b/more.go", "package b\n"},
		{"go.mod", "module github.com/geoalign/geoalign\n\ngo 1.27.0\n\nrequire example.com/x v1.0.0\n"},
	} {
		write(t, root, edit.file, edit.content)
		check("edit of "+edit.file, key(t, "gram", baseConfig(), "manifest-sha", 1))
	}
	// A package that starts importing c now covers c.
	write(t, root, "lib/a/a.go", "package a\n\nimport (\n\t_ \"github.com/geoalign/geoalign/lib/b\"\n\t_ \"github.com/geoalign/geoalign/lib/c\"\n)\n")
	sources = sync.Map{}
	s, err := NewSpec("gram", baseConfig(), "d", 1, Module+"/lib/a")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.Source.Packages, " "); got != Module+"/lib/a "+Module+"/lib/b "+Module+"/lib/c" {
		t.Fatalf("packages %s", got)
	}
}

func TestBadInputs(t *testing.T) {
	fakeModule(t)
	for name, f := range map[string]func() error{
		"unknown package":  func() error { _, err := NewSpec("gram", 1, "d", 1, Module+"/lib/nope"); return err },
		"foreign package":  func() error { _, err := NewSpec("gram", 1, "d", 1, "fmt"); return err },
		"no data":          func() error { _, err := NewSpec("gram", 1, "", 1, Module+"/lib/a"); return err },
		"paper with slash": func() error { _, err := NewSpec("a/b", 1, "d", 1, Module+"/lib/a"); return err },
		"func in config":   func() error { _, err := NewSpec("gram", func() {}, "d", 1, Module+"/lib/a"); return err },
	} {
		if f() == nil {
			t.Errorf("%s: no error", name)
		}
	}
	t.Setenv(RootEnv, t.TempDir())
	if _, err := SourceHash(Module + "/lib/a"); err == nil {
		t.Error("a GEOALIGN_ROOT without this module's go.mod must be an error")
	}
}

// TestOpenWritesSpec: the run directory is <root>/<paper>/<key> with a readable spec.json; opening it
// again is fine, a spec.json edited by hand is an error.
func TestOpenWritesSpec(t *testing.T) {
	fakeModule(t)
	s, err := NewSpec("gram", baseConfig(), "manifest-sha", 3, Module+"/lib/a")
	if err != nil {
		t.Fatal(err)
	}
	runs := t.TempDir()
	dir, err := Open(runs, s)
	if err != nil {
		t.Fatal(err)
	}
	if dir != filepath.Join(runs, "gram", s.Key()) {
		t.Fatalf("dir %s", dir)
	}
	var back Spec
	b, _ := os.ReadFile(filepath.Join(dir, SpecFile))
	if err := json.Unmarshal(b, &back); err != nil || back.Seed != 3 || back.Data != "manifest-sha" || back.Key() != s.Key() {
		t.Fatalf("spec.json %s: %v", b, err)
	}
	if !strings.Contains(string(b), `"Epochs": 20`) || !strings.Contains(string(b), "lib/b/b.go") {
		t.Fatalf("spec.json does not show the configuration and the hashed files:\n%s", b)
	}
	if _, err := Open(runs, s); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, SpecFile), []byte("{}\n"), 0o644)
	if _, err := Open(runs, s); err == nil {
		t.Fatal("a spec.json of other inputs must be an error")
	}
}

// TestModuleRootOfThisCheckout finds this repository from a subdirectory; without a checkout the
// executable is hashed and the spec says so.
func TestModuleRootOfThisCheckout(t *testing.T) {
	t.Setenv(RootEnv, "")
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if wd, _ := os.Getwd(); filepath.Join(root, "lib", "runcache") != wd {
		t.Fatalf("root %s for working directory %s", root, wd)
	}
	if got := InCheckout("build", "runs"); got != filepath.Join(root, "build", "runs") {
		t.Errorf("InCheckout(build, runs) = %s in the checkout %s", got, root)
	}
	sources = sync.Map{}
	src, err := SourceHash(Module + "/lib/runcache")
	if err != nil || src.Fallback != "" || len(src.Packages) != 3 { // runcache imports lib/atomicfile, lib/rundir
		t.Fatalf("%+v %v", src, err)
	}
	t.Chdir(t.TempDir())
	if got := InCheckout("build"); got != "build" {
		t.Errorf("InCheckout(build) outside a checkout = %s, want build (the working directory's)", got)
	}
	sources = sync.Map{}
	src, err = SourceHash(Module + "/lib/runcache")
	if err != nil || !strings.Contains(src.Fallback, "hashed the executable") || len(src.Hash) != 64 {
		t.Fatalf("%+v %v", src, err)
	}
}

// TestSourceHashMemoised: within a process the source is hashed once per package list — the code
// that runs does not change when the checkout is edited afterwards.
func TestSourceHashMemoised(t *testing.T) {
	root := fakeModule(t)
	a, err := SourceHash(Module + "/lib/a")
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, "lib/b/b.go", "package b\n\n// edited\n")
	if b, _ := SourceHash(Module + "/lib/a"); b.Hash != a.Hash {
		t.Fatal("the source was hashed again")
	}
}

// Root is $GEOALIGN_RUN_CACHE when set, else the caller's fallback (an empty variable is unset).
func TestRoot(t *testing.T) {
	t.Setenv(CacheEnv, "/some/cache")
	if got := Root("build/runs"); got != "/some/cache" {
		t.Errorf("with %s set: %q", CacheEnv, got)
	}
	t.Setenv(CacheEnv, "")
	if got := Root("build/runs"); got != "build/runs" {
		t.Errorf("with %s empty: %q, want the fallback", CacheEnv, got)
	}
	if got := Root(""); got != "" {
		t.Errorf("no fallback: %q", got)
	}
}

// Memo computes a value once per path and reads it back afterwards; what does not decode into
// its type is computed again, and without a path nothing is kept.
func TestMemo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "square.gob")
	calls := 0
	square := func(x int) func() ([]int, error) {
		return func() ([]int, error) { calls++; return []int{x * x}, nil }
	}
	for _, c := range []struct {
		path       string
		x, want, n int
	}{{path, 3, 9, 1}, {path, 4, 9, 1}, {"", 4, 16, 2}, {"", 4, 16, 3}} {
		got, err := Memo(c.path, square(c.x))
		if err != nil || got[0] != c.want || calls != c.n {
			t.Errorf("Memo(%q, square %d) = %v, %v after %d computations, want %d after %d", c.path, c.x, got, err, calls, c.want, c.n)
		}
	}
	if got, err := Memo(path, func() (string, error) { return "nine", nil }); err != nil || got != "nine" {
		t.Errorf("Memo of another type = %q, %v; want it computed", got, err)
	}
	if err := os.WriteFile(path, []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := Memo(path, square(5)); err != nil || got[0] != 25 {
		t.Errorf("Memo over a damaged file = %v, %v; want it computed", got, err)
	}
	var back []int
	if err := ReadGob(path, &back); err != nil || back[0] != 25 {
		t.Errorf("ReadGob after Memo = %v, %v; want [25]", back, err)
	}
	failed := errors.New("no value")
	if _, err := Memo(filepath.Join(t.TempDir(), "x.gob"), func() (int, error) { return 0, failed }); !errors.Is(err, failed) {
		t.Errorf("Memo of a failing computation: %v, want %v", err, failed)
	}
}

// The backend is part of the key: a run on the Go backend is not one on XLA, nor one on another
// build of the plugin; the same plugin file in two places is the same backend.
func TestBackendIsPartOfTheKey(t *testing.T) {
	dir := t.TempDir()
	plugin := func(sub, content string) string {
		p := filepath.Join(dir, sub, "pjrt_c_api_cpu_plugin.so")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b, other := plugin("a", "plugin"), plugin("b", "plugin"), plugin("c", "another build")
	key := func(config string) (string, string) {
		t.Setenv(BackendEnv, config)
		s, err := NewSpec("gram", map[string]int{"epochs": 1}, "data", 1, Module+"/lib/atomicfile")
		if err != nil {
			t.Fatal(err)
		}
		return s.Key(), s.Backend
	}
	goKey, goName := key("go")
	aKey, aName := key("xla:" + a)
	bKey, _ := key("xla:" + b)
	otherKey, _ := key("xla:" + other)
	optKey, optName := key("xla:" + a + ",tf32=false")
	// sha256 of "plugin", computed with sha256sum
	const sum = "5e689e2b01672bf33996e75d5e372ff60c536ce1599a1458e867cd8f4bef5160"
	if goName != "go" || aName != "xla:pjrt_c_api_cpu_plugin.so@sha256:"+sum || optName != aName+",tf32=false" {
		t.Fatalf("backends named %q, %q, %q", goName, aName, optName)
	}
	if goKey == aKey || aKey != bKey || aKey == otherKey || aKey == optKey {
		t.Fatalf("keys: go %.8s, plugin %.8s, same plugin elsewhere %.8s, another build %.8s, with options %.8s",
			goKey, aKey, bKey, otherKey, optKey)
	}
}

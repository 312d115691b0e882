package checkout

import (
	"os"
	"path/filepath"
	"testing"
)

// writeModule creates dir/go.mod declaring module path.
func writeModule(t *testing.T, dir, path string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("// a comment\nmodule "+path+"\n\ngo 1.27.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRootSkipsOtherModules(t *testing.T) {
	root := t.TempDir()
	writeModule(t, root, Module)
	tools := filepath.Join(root, "kernel", "tools")
	writeModule(t, tools, Module+"/kernel/tools") // a nested module must not be taken for the checkout
	deep := filepath.Join(tools, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GONB_DIR", "")
	t.Chdir(deep)
	got, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(root)
	if g, _ := filepath.EvalSymlinks(got); g != want {
		t.Errorf("Root() = %s, want %s", got, root)
	}
}

func TestRootPrefersGONBDir(t *testing.T) {
	nbRoot, other := t.TempDir(), t.TempDir()
	writeModule(t, nbRoot, Module)
	writeModule(t, other, Module)
	notebooks := filepath.Join(nbRoot, "notebooks")
	if err := os.MkdirAll(notebooks, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GONB_DIR", notebooks)
	t.Chdir(other)
	got, err := Path("datasets", "cache")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(nbRoot, "datasets", "cache"); got != want {
		t.Errorf("Path = %s, want %s", got, want)
	}
}

func TestRootMissing(t *testing.T) {
	dir := t.TempDir()
	writeModule(t, dir, "example.com/other")
	t.Setenv("GONB_DIR", "")
	t.Chdir(dir)
	if got, err := Root(); err == nil {
		t.Errorf("Root() = %s outside a geoalign checkout, want an error", got)
	}
}

package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// entries lists the names in dir, to check that no temporary file is left behind.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteFileReplacesAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "history.json")
	for _, content := range []string{"first", "second, longer"} {
		if err := WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Fatalf("read %q, %v; want %q", got, err, content)
		}
	}
	if got := entries(t, dir); len(got) != 1 {
		t.Fatalf("directory holds %v, want only the target", got)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestWriteFileMissingDirectoryNamesIt(t *testing.T) {
	err := WriteFile(filepath.Join(t.TempDir(), "no", "such", "f"), []byte("x"), 0o644)
	if err == nil || !strings.Contains(err.Error(), filepath.Join("no", "such")) {
		t.Fatalf("error %v, want one naming the missing directory", err)
	}
}

func TestWriteJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "spec.json")
	if err := WriteJSON(path, map[string]int{"b": 2, "a": 1}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "{\n  \"a\": 1,\n  \"b\": 2\n}\n" {
		t.Fatalf("got %q", got)
	}
}

// A failing writer (as a crash mid-write would) leaves the previous content and no temporary file.
func TestFailedWriteKeepsOldContent(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "claims.json")
	if err := WriteFile(p, []byte("old"), Mode); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk on fire")
	err := Write(p, func(w io.Writer) error {
		fmt.Fprint(w, "half of the new con")
		return boom
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), p) {
		t.Fatalf("error %v, want one wrapping %v and naming %s", err, boom, p)
	}
	if got, _ := os.ReadFile(p); string(got) != "old" {
		t.Errorf("content %q after a failed write, want the old one", got)
	}
	if got := entries(t, dir); len(got) != 1 {
		t.Errorf("directory holds %v, want only claims.json", got)
	}
}

// A file that is never committed never appears; WriteAt works before Commit; Commit is once;
// the file gets Mode.
func TestCreateCommitAbort(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.h5")
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("....body")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("HEAD"), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatalf("%s exists before Commit (%v)", p, err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // no-op after Commit
	if got, _ := os.ReadFile(p); string(got) != "HEADbody" {
		t.Errorf("content %q, want HEADbody", got)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != Mode {
		t.Errorf("mode %v, want %v", fi.Mode().Perm(), Mode)
	}
	if err := f.Commit(); err == nil {
		t.Error("second Commit succeeded")
	}

	g, err := Create(filepath.Join(dir, "never.json"))
	if err != nil {
		t.Fatal(err)
	}
	g.Write([]byte("x"))
	g.Abort()
	if got := entries(t, dir); len(got) != 1 || got[0] != "x.h5" {
		t.Errorf("directory holds %v after Abort, want only x.h5", got)
	}
}

// Temporary files have a prefix of their own: RemoveTemps clears a killed write's leftovers (of
// one target, or all) and never a user's file that merely looks temporary.
func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "s.npy"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close() // a write killed before Commit: the temporary file stays
	other, _ := Create(filepath.Join(dir, "history.json"))
	other.Close()
	mine := []string{".notes.tmpl", ".s.npy.1.tmp", "s.npy.tmp"}
	for _, n := range mine {
		os.WriteFile(filepath.Join(dir, n), []byte("mine"), 0o644)
	}
	if !IsTemp(filepath.Base(f.Name())) || IsTemp(".notes.tmpl") {
		t.Fatalf("IsTemp(%s) false or IsTemp(.notes.tmpl) true", filepath.Base(f.Name()))
	}
	if err := RemoveTemps(dir, "s.npy"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(f.Name()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("leftover of s.npy kept: %v", err)
	}
	if _, err := os.Stat(other.Name()); err != nil {
		t.Errorf("leftover of another target removed: %v", err)
	}
	if err := RemoveTemps(dir, ""); err != nil {
		t.Fatal(err)
	}
	if got := entries(t, dir); len(got) != len(mine) {
		t.Errorf("directory holds %v, want the user's files %v", got, mine)
	}
	if err := RemoveTemps(filepath.Join(dir, "missing"), ""); err != nil {
		t.Errorf("a missing directory: %v", err)
	}
}

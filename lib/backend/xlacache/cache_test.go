package xlacache

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// An entry decodes to its payload under its own key only, and not at all once any byte of it
// changed or it was cut short.
func TestEntryDetectsDamage(t *testing.T) {
	key := sha256.Sum256([]byte("program"))
	payload := []byte("serialized executable bytes")
	entry := encode(key, payload)
	got, err := decode(key, entry)
	if err != nil || !bytes.Equal(got, payload) {
		t.Fatalf("decode(encode) = %q, %v", got, err)
	}
	other := sha256.Sum256([]byte("another program"))
	if _, err := decode(other, entry); !errors.Is(err, errDamaged) {
		t.Errorf("an entry of another key decoded: %v", err)
	}
	for i := range entry {
		damaged := bytes.Clone(entry)
		damaged[i] ^= 0x01
		if _, err := decode(key, damaged); !errors.Is(err, errDamaged) {
			t.Fatalf("byte %d flipped: decoded (%v)", i, err)
		}
	}
	for _, n := range []int{0, 10, headerSize, len(entry) - 1} {
		if _, err := decode(key, entry[:n]); !errors.Is(err, errDamaged) {
			t.Errorf("cut to %d bytes: decoded (%v)", n, err)
		}
	}
	if _, err := decode(key, append(bytes.Clone(entry), 0)); !errors.Is(err, errDamaged) {
		t.Errorf("a byte appended: decoded (%v)", err)
	}
}

// Every input of a compilation changes the key.
func TestKeyCoversEveryInput(t *testing.T) {
	p := Plugin{Path: "/p/pjrt_c_api_cpu_plugin.so", File: "size 1 mtime 2"}
	base := Key(p, "mlir", []byte("module"), []byte("options"))
	t.Setenv("XLA_FLAGS", "")
	for name, k := range map[string][32]byte{
		"path":    Key(Plugin{Path: "/q/pjrt_c_api_cpu_plugin.so", File: p.File}, "mlir", []byte("module"), []byte("options")),
		"file":    Key(Plugin{Path: p.Path, File: "size 1 mtime 3"}, "mlir", []byte("module"), []byte("options")),
		"format":  Key(p, "hlo", []byte("module"), []byte("options")),
		"program": Key(p, "mlir", []byte("module "), []byte("options")),
		"options": Key(p, "mlir", []byte("module"), []byte("options2")),
		// length prefixes: moving bytes from one field to the next is another key
		"boundary": Key(p, "mlir", []byte("moduleo"), []byte("ptions")),
	} {
		if k == base {
			t.Errorf("changing the %s leaves the key", name)
		}
	}
	t.Setenv("XLA_FLAGS", "--xla_cpu_max_isa=AVX2")
	if Key(p, "mlir", []byte("module"), []byte("options")) == base {
		t.Error("XLA_FLAGS is not in the key")
	}
}

// prune removes the least recently used entries until the rest fit, and nothing else.
func TestPruneRemovesLeastRecentlyUsed(t *testing.T) {
	dir := t.TempDir()
	base := time.Now().Add(-time.Hour)
	for i, name := range []string{"a", "b", "c", "d"} { // used in this order, 100 bytes each
		path := filepath.Join(dir, name+".xla")
		if err := os.WriteFile(path, make([]byte, 100), 0o644); err != nil {
			t.Fatal(err)
		}
		used := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(path, used, used); err != nil {
			t.Fatal(err)
		}
	}
	other := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(other, make([]byte, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := prune(dir, 250); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	for i := range left {
		left[i] = filepath.Base(left[i])
	}
	if want := []string{"c.xla", "d.xla", "notes.txt"}; !slices.Equal(left, want) {
		t.Fatalf("left %v, want %v", left, want)
	}
}

// A plugin file replaced by another build, as kernel/pjrt.sh replaces it (a new file renamed into
// place), is another plugin.
func TestPluginFileChangesWhenReplaced(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pjrt_c_api_cpu_plugin.so")
	if err := os.WriteFile(path, []byte("one build"), 0o755); err != nil {
		t.Fatal(err)
	}
	before, err := PluginFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := PluginFile(path); again != before {
		t.Fatalf("the same file: %q then %q", before, again)
	}
	tmp := filepath.Join(dir, "new")
	if err := os.WriteFile(tmp, []byte("one build"), 0o755); err != nil { // same size, same content
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	if after, _ := PluginFile(path); after == before {
		t.Fatalf("replaced file: identity %q unchanged", after)
	}
}

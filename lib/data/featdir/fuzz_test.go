package featdir

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzLoadTextVideo overwrites one file of a valid text–video directory with fuzzed bytes (an npy
// array, the captions, the ids or a split file) and loads it: the reader must never panic, and an
// error must name the directory's file it read (the CLI prints it and exits 2). Real-shaped seeds:
// each file's own valid content and a truncated copy of it.
func FuzzLoadTextVideo(f *testing.F) {
	base := f.TempDir()
	if err := WriteTextVideo(base, tinyTextVideo()); err != nil {
		f.Fatal(err)
	}
	entries, err := os.ReadDir(base)
	if err != nil {
		f.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	for i, name := range names {
		raw, err := os.ReadFile(filepath.Join(base, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), raw)
		f.Add(uint8(i), raw[:len(raw)/2])
	}
	f.Fuzz(func(t *testing.T, which uint8, content []byte) {
		dir := t.TempDir()
		for _, name := range names {
			raw, _ := os.ReadFile(filepath.Join(base, name))
			if err := os.WriteFile(filepath.Join(dir, name), raw, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		target := names[int(which)%len(names)]
		if err := os.WriteFile(filepath.Join(dir, target), content, 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := LoadTextVideo(dir, 0.5)
		if err != nil {
			if !strings.Contains(err.Error(), dir) {
				t.Fatalf("error names no file of %s: %v", dir, err)
			}
			return
		}
		if d.NumVideos() == 0 || d.NumTexts() == 0 || len(d.Splits.Test) == 0 {
			t.Fatalf("loaded an empty data set from a corrupted %s: %d videos, %d texts, %d test", target, d.NumVideos(), d.NumTexts(), len(d.Splits.Test))
		}
	})
}

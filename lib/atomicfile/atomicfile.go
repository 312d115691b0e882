// Package atomicfile writes files so that a reader — or the next run after a crash, a kill -9 or a
// full disk — sees either the old content or the new one, never a prefix of the new one: the data
// goes to a temporary file in the same directory, is synced, and is renamed over the target
// (rename is atomic within a file system on POSIX systems). The directory is synced afterwards so
// that the rename itself survives a power loss.
package atomicfile

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// WriteFile writes data to path atomically with permissions perm.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	fail := func(err error) error {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("atomicfile: writing %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("atomicfile: writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("atomicfile: %w", err)
	}
	return SyncDir(dir)
}

// WriteJSON writes v as indented JSON (with a final newline) to path atomically.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("atomicfile: encoding %s: %w", path, err)
	}
	return WriteFile(path, append(b, '\n'), 0o644)
}

// SyncDir flushes a directory's entries (renames, creations) to stable storage. File systems
// that cannot sync a directory (EINVAL) are not an error: there is nothing more to do.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !isUnsupported(err) {
		return fmt.Errorf("atomicfile: syncing %s: %w", dir, err)
	}
	return nil
}

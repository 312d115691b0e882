package atomicfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// TempPrefix starts the name of every temporary file (TempPrefix + target name + "." + random
// digits): a prefix of its own, so that no file of a user's can be taken for a leftover one.
const TempPrefix = ".geoalign-tmp-"

// IsTemp reports whether a file name is one of this package's temporary files.
func IsTemp(name string) bool { return strings.HasPrefix(name, TempPrefix) }

// RemoveTemps deletes the temporary files a killed write left in dir: those of target (a file
// name in dir), or every one when target is "". A missing dir is not an error. Call it only where
// no other process is writing target (e.g. under a lock).
func RemoveTemps(dir, target string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	prefix := TempPrefix
	if target != "" {
		prefix += target + "."
	}
	for _, e := range entries {
		if !e.IsDir() && strings.HasPrefix(e.Name(), prefix) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("atomicfile: removing a leftover temporary file: %w", err)
			}
		}
	}
	return nil
}

// Mode is the permission of the files Create and Write make. It is set explicitly
// (os.CreateTemp creates 0600), so the umask does not apply.
const Mode os.FileMode = 0o644

// File is a file being written atomically: write to it (it is an *os.File, so WriteAt and Seek
// work too), then Commit to put it in place, or Abort to discard it.
type File struct {
	*os.File
	path string
	done bool
}

// Create starts writing path with permissions Mode. Nothing appears at path until Commit.
func Create(path string) (*File, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), TempPrefix+filepath.Base(path)+".*")
	if err != nil {
		return nil, fmt.Errorf("atomicfile: %w", err)
	}
	if err := tmp.Chmod(Mode); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("atomicfile: %w", err)
	}
	return &File{File: tmp, path: path}, nil
}

// Path is the final path of the file (Name is the temporary one).
func (f *File) Path() string { return f.path }

// Commit syncs the file, closes it, renames it over Path and syncs the directory. On error the
// temporary file is removed and Path is left as it was.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("atomicfile: %s: already committed or aborted", f.path)
	}
	f.done = true
	err := f.File.Sync()
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.File.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.File.Name())
		return fmt.Errorf("atomicfile: writing %s: %w", f.path, err)
	}
	return SyncDir(filepath.Dir(f.path))
}

// Abort discards the file; Path is left as it was. It is a no-op after Commit, so it can be
// deferred right after Create.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.File.Close()
	os.Remove(f.File.Name())
}

// Write creates path (permissions Mode) with the content fill writes. If fill or the write
// fails, path is left as it was and the error is returned.
func Write(path string, fill func(w io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := fill(f); err != nil {
		return fmt.Errorf("atomicfile: writing %s: %w", path, err)
	}
	return f.Commit()
}

// WriteFile writes data to path atomically with permissions perm: the atomic os.WriteFile.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("atomicfile: writing %s: %w", path, err)
	}
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("atomicfile: writing %s: %w", path, err)
	}
	return f.Commit()
}

// WriteJSON writes v as indented JSON (with a final newline) to path atomically.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("atomicfile: encoding %s: %w", path, err)
	}
	return WriteFile(path, append(b, '\n'), Mode)
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

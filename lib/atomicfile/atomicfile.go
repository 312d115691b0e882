package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Mode is the permission of every file this package writes. It is set explicitly (os.CreateTemp
// creates 0600), so the umask does not apply.
const Mode os.FileMode = 0o644

// File is a file being written atomically: write to it (it is an *os.File, so WriteAt and
// Seek work too), then Commit to put it in place, or Abort to discard it.
type File struct {
	*os.File
	path string
	done bool
}

// Create starts writing path. Nothing appears at path until Commit.
func Create(path string) (*File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".*.tmp")
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

// Commit flushes the file to stable storage, closes it and renames it over Path. On error the
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
	syncDir(filepath.Dir(f.path))
	return nil
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

// syncDir makes a rename in dir durable. Its error is ignored: some file systems refuse to
// fsync a directory, and the rename is atomic (only its durability is at stake).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// Write creates path with the content fill writes. If fill (or the write) fails, path is left
// as it was and the error is returned.
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

// WriteFile writes data to path: the atomic os.WriteFile.
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

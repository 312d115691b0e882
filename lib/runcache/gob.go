package runcache

import (
	"encoding/gob"
	"io"
	"os"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/atomicfile"
)

// ReadGob decodes the encoding/gob file at path into v.
func ReadGob(path string, v any) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return gob.NewDecoder(f).Decode(v)
}

// WriteGob writes v at path as encoding/gob, atomically (lib/atomicfile), creating its directory.
func WriteGob(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error { return gob.NewEncoder(w).Encode(v) })
}

// Memo is the value saved at path (ReadGob) or, when path is "" or holds nothing that decodes into
// a T (no file, another type, a damaged file), compute's, then saved at path (WriteGob) when path
// is set. path must determine the value: its name carries a key of every input of compute (as
// Spec.Key does for a run) — a processed data set, an analysis of cached runs, a notebook's value.
func Memo[T any](path string, compute func() (T, error)) (T, error) {
	var v T
	if path != "" && ReadGob(path, &v) == nil {
		return v, nil
	}
	v, err := compute()
	if err == nil && path != "" {
		err = WriteGob(path, v)
	}
	return v, err
}

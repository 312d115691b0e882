package rundir

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Record is what made a run: it is written with the run's configuration when the run is created
// and checked by every later command on the run (evaluation, resume).
type Record struct {
	// ConfigSHA256 is the sha256 (hex) of the configuration's canonical JSON (CanonicalJSON).
	ConfigSHA256 string `json:"config_sha256"`
	// Data fingerprints every data file the run reads, by absolute path.
	Data []FileStamp `json:"data_files"`
	// Code is the version of the code that created the run (GitCommit: commit, "+dirty").
	Code string `json:"code"`
	// Backend describes the backend that created the run (backend.Info's one-line form).
	Backend string `json:"backend"`
}

// FileStamp fingerprints one file: its content's sha256, and the size and modification time at
// which it was hashed (a file with the same size and time is not hashed again).
type FileStamp struct {
	Path    string    `json:"path"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mtime"`
	SHA256  string    `json:"sha256"`
}

// CanonicalJSON is the JSON document b with its formatting removed: object keys sorted, no
// whitespace, numbers as written (not rounded through float64: int64 seeds survive). Two documents
// with the same canonical form decode to the same values.
func CanonicalJSON(b []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// ConfigHash is the sha256 (hex) of CanonicalJSON(b).
func ConfigHash(b []byte) (string, error) {
	c, err := CanonicalJSON(b)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(c)
	return hex.EncodeToString(sum[:]), nil
}

// Stamp fingerprints the files paths (made absolute, sorted, duplicates dropped). A file of known
// with the same path, size and modification time is taken from known rather than hashed again.
func Stamp(paths []string, known []FileStamp) ([]FileStamp, error) {
	var abs []string
	for _, p := range paths {
		a, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		abs = append(abs, a)
	}
	slices.Sort(abs)
	abs = slices.Compact(abs)
	out := make([]FileStamp, 0, len(abs))
	for _, p := range abs {
		s, err := stampFile(p, known)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func stampFile(path string, known []FileStamp) (FileStamp, error) {
	st, err := os.Stat(path)
	if err != nil {
		return FileStamp{}, err // *PathError names the file
	}
	if !st.Mode().IsRegular() {
		return FileStamp{}, fmt.Errorf("%s: not a regular file", path)
	}
	for _, k := range known {
		if k.Path == path && k.Size == st.Size() && k.ModTime.Equal(st.ModTime()) {
			return k, nil
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return FileStamp{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return FileStamp{}, fmt.Errorf("%s: %w", path, err)
	}
	return FileStamp{Path: path, Size: n, ModTime: st.ModTime(), SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// ChangedError says which input of a run is not what the run was made from.
type ChangedError struct {
	Path string // the file (config.json for the configuration)
	What string // what changed, in words
}

func (e *ChangedError) Error() string {
	return fmt.Sprintf("%s: %s", e.Path, e.What)
}

// CheckData compares the files the run reads now (paths) with the record: the same set of files,
// each with the recorded content (hashed again only when its size or modification time moved).
// The first difference is a *ChangedError naming the file.
func (r *Record) CheckData(paths []string) error {
	now, err := Stamp(paths, r.Data)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) && errors.Is(err, os.ErrNotExist) {
			return &ChangedError{Path: pe.Path, What: "no such file, but the run was made with it"}
		}
		return err
	}
	recorded := map[string]FileStamp{}
	for _, s := range r.Data {
		recorded[s.Path] = s
	}
	current := map[string]bool{}
	for _, s := range now {
		current[s.Path] = true
		old, ok := recorded[s.Path]
		switch {
		case !ok:
			return &ChangedError{Path: s.Path, What: "read now, but not part of the data the run was made from"}
		case old.SHA256 != s.SHA256:
			return &ChangedError{Path: s.Path, What: fmt.Sprintf("content changed since the run was made (sha256 %.12s…, %d bytes, then; %.12s…, %d bytes, now)",
				old.SHA256, old.Size, s.SHA256, s.Size)}
		}
	}
	for _, s := range r.Data {
		if !current[s.Path] {
			return &ChangedError{Path: s.Path, What: "no such file, but the run was made with it"}
		}
	}
	return nil
}

// CheckConfig compares the configuration b (as stored in file) with the recorded hash.
func (r *Record) CheckConfig(b []byte, file string) error {
	h, err := ConfigHash(b)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if h != r.ConfigSHA256 {
		return &ChangedError{Path: file, What: fmt.Sprintf("the configuration was edited after the run was made (sha256 %.12s… recorded, %.12s… now)",
			r.ConfigSHA256, h)}
	}
	return nil
}

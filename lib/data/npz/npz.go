package npz

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/npy"
)

// maxMemberBytes bounds one decompressed member (4 GiB) so a corrupt or hostile size field
// cannot make Open allocate without limit.
const maxMemberBytes = 4 << 30

// Archive is an opened .npz whose members are held in memory.
type Archive struct {
	path    string
	members map[string][]byte // name without ".npy" → raw .npy bytes
}

// Open reads every member of the .npz at path (NewReader over the file).
func Open(path string) (*Archive, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("npz: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("npz: %w", err)
	}
	return NewReader(f, st.Size(), path)
}

// NewReader reads every member of the .npz held by r (size bytes); name identifies it in errors.
// Any content gives an Archive or an error naming name, never a panic (FuzzNewReader).
func NewReader(r io.ReaderAt, size int64, name string) (*Archive, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("npz: %s: %w", name, err)
	}
	a := &Archive{path: name, members: map[string][]byte{}}
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, ".npy") {
			return nil, fmt.Errorf("npz: %s: member %q is not a .npy array", name, f.Name)
		}
		if f.UncompressedSize64 > maxMemberBytes {
			return nil, fmt.Errorf("npz: %s:%s: %d bytes exceeds the %d-byte limit", name, f.Name, f.UncompressedSize64, int64(maxMemberBytes))
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("npz: %s:%s: %w", name, f.Name, err)
		}
		b, err := io.ReadAll(io.LimitReader(rc, maxMemberBytes+1))
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("npz: %s:%s: %w", name, f.Name, err)
		}
		key := strings.TrimSuffix(f.Name, ".npy")
		if _, dup := a.members[key]; dup {
			return nil, fmt.Errorf("npz: %s: member %q appears twice", name, f.Name)
		}
		a.members[key] = b
	}
	return a, nil
}

// Names lists the arrays, sorted.
func (a *Archive) Names() []string {
	out := make([]string, 0, len(a.members))
	for n := range a.members {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// File returns array name as an npy.File (header validated).
func (a *Archive) File(name string) (*npy.File, error) {
	b, ok := a.members[name]
	if !ok {
		return nil, fmt.Errorf("npz: %s has no array %q (have %v)", a.path, name, a.Names())
	}
	return npy.NewFile(bytes.NewReader(b), int64(len(b)), a.path+":"+name+".npy")
}

// Read returns array name with its shape.
func Read[T npy.Element](a *Archive, name string) ([]T, []int, error) {
	f, err := a.File(name)
	if err != nil {
		return nil, nil, err
	}
	data, err := npy.ReadAll[T](f)
	if err != nil {
		return nil, nil, err
	}
	return data, f.Header.Shape, nil
}

// Array is one member to write.
type Array struct {
	Name  string
	Shape []int
	Data  any // []float32, []float64, []int32 or []int64
}

// Write writes arrays to path as an uncompressed .npz (np.savez layout), atomically.
func Write(path string, arrays []Array) error {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, arr := range arrays {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: arr.Name + ".npy", Method: zip.Store})
		if err != nil {
			return fmt.Errorf("npz: %s: %w", path, err)
		}
		switch d := arr.Data.(type) {
		case []float32:
			err = npy.Write(w, arr.Shape, d)
		case []float64:
			err = npy.Write(w, arr.Shape, d)
		case []int32:
			err = npy.Write(w, arr.Shape, d)
		case []int64:
			err = npy.Write(w, arr.Shape, d)
		default:
			err = fmt.Errorf("unsupported data type %T", arr.Data)
		}
		if err != nil {
			return fmt.Errorf("npz: %s: array %q: %w", path, arr.Name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("npz: %s: %w", path, err)
	}
	return atomicfile.WriteFile(path, buf.Bytes(), 0o644)
}

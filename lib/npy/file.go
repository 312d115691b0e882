package npy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"unsafe"

	"github.com/geoalign/geoalign/lib/atomicfile"
)

// File is an open .npy file whose header has been validated against the file size;
// its data is read on demand with positioned reads, so one File can serve several
// goroutines and several passes.
type File struct {
	name   string
	r      io.ReaderAt
	closer io.Closer
	Header Header
}

// Open opens path and validates its header: supported dtype, a data section at least
// as long as the shape requires.
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err // *PathError already names the file
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	nf, err := NewFile(f, st.Size(), path)
	if err != nil {
		f.Close()
		return nil, err
	}
	nf.closer = f
	return nf, nil
}

// NewFile reads the header of the .npy content held by r (size bytes long). name is
// used in error messages only.
func NewFile(r io.ReaderAt, size int64, name string) (*File, error) {
	h, err := Parse(io.NewSectionReader(r, 0, size))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if have := size - h.DataOffset; have < h.DataBytes() {
		return nil, fmt.Errorf("%s: truncated data: %s needs %d bytes after the header, the file has %d",
			name, h, h.DataBytes(), have)
	}
	return &File{name: name, r: r, Header: h}, nil
}

// Name is the path (or name) the file was opened with.
func (f *File) Name() string { return f.name }

// Close closes the underlying file if Open opened it.
func (f *File) Close() error {
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}

// Matrix checks that the file holds a C-order 2-D array and returns its shape.
func (f *File) Matrix() (rows, cols int, err error) {
	h := f.Header
	if len(h.Shape) != 2 {
		return 0, 0, fmt.Errorf("%s: want a 2-D array, got %s", f.name, h)
	}
	if h.FortranOrder && h.Shape[0] > 1 && h.Shape[1] > 1 {
		return 0, 0, fmt.Errorf("%s: Fortran-order (column-major) matrices are not supported; save np.ascontiguousarray(a)", f.name)
	}
	return h.Shape[0], h.Shape[1], nil
}

// Float is the element type of score and embedding matrices.
type Float interface{ float32 | float64 }

// Element is any element type this package reads or writes.
type Element interface {
	float32 | float64 | int32 | int64
}

// DtypeOf is the dtype that stores T.
func DtypeOf[T Element]() Dtype {
	var z T
	switch any(z).(type) {
	case float32:
		return Float32
	case float64:
		return Float64
	case int32:
		return Int32
	case int64:
		return Int64
	}
	panic("unreachable")
}

// NaNError reports a NaN found in float data.
type NaNError struct {
	File     string
	Row, Col int // Col is -1 for 1-D data
}

func (e *NaNError) Error() string {
	if e.Col < 0 {
		return fmt.Sprintf("%s: NaN at index %d", e.File, e.Row)
	}
	return fmt.Sprintf("%s: NaN at row %d, column %d", e.File, e.Row, e.Col)
}

// ReadRows fills dst with rows [first, first+len(dst)/cols) of the 2-D float matrix in
// f, whose dtype must be T's (no silent conversion: float64 → float32 can create ties
// that change ranks). len(dst) must be a multiple of the number of columns. A NaN is
// an error (*NaNError) naming its row and column.
func ReadRows[T Float](f *File, first int, dst []T) error {
	rows, cols, err := f.Matrix()
	if err != nil {
		return err
	}
	if want := DtypeOf[T](); f.Header.Dtype != want {
		return fmt.Errorf("%s: dtype %s, want %s", f.name, f.Header.Dtype, want)
	}
	if cols == 0 {
		return nil
	}
	if len(dst)%cols != 0 {
		return fmt.Errorf("%s: ReadRows buffer of %d elements is not a whole number of %d-column rows", f.name, len(dst), cols)
	}
	n := len(dst) / cols
	if first < 0 || first+n > rows {
		return fmt.Errorf("%s: rows [%d, %d) out of range [0, %d)", f.name, first, first+n, rows)
	}
	if err := f.readAt(f.Header.DataOffset+int64(first)*int64(cols)*int64(f.Header.Dtype.Size()), dst); err != nil {
		return err
	}
	for i, v := range dst {
		if v != v {
			return &NaNError{File: f.name, Row: first + i/cols, Col: i % cols}
		}
	}
	return nil
}

// ReadAll reads the whole array of f as T; the on-disk dtype must be T's. Floats are
// checked for NaN.
func ReadAll[T Element](f *File) ([]T, error) {
	if want := DtypeOf[T](); f.Header.Dtype != want {
		return nil, fmt.Errorf("%s: dtype %s, want %s", f.name, f.Header.Dtype, want)
	}
	if len(f.Header.Shape) >= 2 && f.Header.FortranOrder {
		if _, _, err := f.Matrix(); err != nil {
			return nil, err
		}
	}
	dst := make([]T, f.Header.Len())
	if err := f.readAt(f.Header.DataOffset, dst); err != nil {
		return nil, err
	}
	if f.Header.Dtype.IsFloat() {
		for i, v := range dst {
			if v != v {
				return nil, nanAt(f, i)
			}
		}
	}
	return dst, nil
}

func nanAt(f *File, i int) error {
	if len(f.Header.Shape) == 2 && f.Header.Shape[1] > 0 {
		return &NaNError{File: f.name, Row: i / f.Header.Shape[1], Col: i % f.Header.Shape[1]}
	}
	return &NaNError{File: f.name, Row: i, Col: -1}
}

// ReadMatrix opens path and reads a whole 2-D float matrix of dtype T.
func ReadMatrix[T Float](path string) (data []T, rows, cols int, err error) {
	f, err := Open(path)
	if err != nil {
		return nil, 0, 0, err
	}
	defer f.Close()
	if rows, cols, err = f.Matrix(); err != nil {
		return nil, 0, 0, err
	}
	data, err = ReadAll[T](f)
	return data, rows, cols, err
}

// ReadIndices opens path and reads a 1-D int32 or int64 array as ints (ground-truth
// indices, labels).
func ReadIndices(path string) ([]int, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if len(f.Header.Shape) != 1 {
		return nil, fmt.Errorf("%s: want a 1-D integer array, got %s", path, f.Header)
	}
	switch f.Header.Dtype {
	case Int32:
		return readInts[int32](f)
	case Int64:
		return readInts[int64](f)
	}
	return nil, fmt.Errorf("%s: dtype %s, want %s or %s", path, f.Header.Dtype, Int32, Int64)
}

// readInts reads all of f, integers of dtype T, as ints; a value an int cannot hold (int64 on a
// 32-bit platform) is an error naming its index.
func readInts[T int32 | int64](f *File) ([]int, error) {
	v, err := ReadAll[T](f)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(v))
	for i, x := range v {
		if int64(int(x)) != int64(x) {
			return nil, fmt.Errorf("%s: value %d at index %d does not fit in an int", f.name, x, i)
		}
		out[i] = int(x)
	}
	return out, nil
}

// readAt fills dst with little-endian elements starting at byte offset off.
func (f *File) readAt(off int64, dst any) error {
	var b []byte
	var size int
	switch d := dst.(type) {
	case []float32:
		b, size = bytesOf(d), 4
	case []float64:
		b, size = bytesOf(d), 8
	case []int32:
		b, size = bytesOf(d), 4
	case []int64:
		b, size = bytesOf(d), 8
	}
	if len(b) == 0 {
		return nil
	}
	if _, err := f.r.ReadAt(b, off); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("%s: reading data: %w", f.name, err)
	}
	if !littleEndian {
		swapBytes(b, size)
	}
	return nil
}

// bytesOf views a numeric slice as its bytes (no copy).
func bytesOf[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// littleEndian is the byte order of this machine; .npy data is little-endian ('<').
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

func swapBytes(b []byte, size int) {
	for i := 0; i+size <= len(b); i += size {
		for j, k := i, i+size-1; j < k; j, k = j+1, k-1 {
			b[j], b[k] = b[k], b[j]
		}
	}
}

// Write writes data with the given shape as a C-order .npy array of T's dtype.
func Write[T Element](w io.Writer, shape []int, data []T) error {
	h := Header{Dtype: DtypeOf[T](), Shape: shape}
	n := 1
	for _, d := range shape {
		if d < 0 {
			return fmt.Errorf("npy: negative dimension in shape %v", shape)
		}
		n *= d
	}
	if n != len(data) {
		return fmt.Errorf("npy: shape %v holds %d elements, data has %d", shape, n, len(data))
	}
	if err := WriteHeader(w, h); err != nil {
		return err
	}
	b := bytesOf(data)
	if !littleEndian {
		b = append([]byte(nil), b...)
		swapBytes(b, h.Dtype.Size())
	}
	_, err := w.Write(b)
	return err
}

// WriteFile writes data with the given shape to path (see Write), atomically (lib/atomicfile).
func WriteFile[T Element](path string, shape []int, data []T) error {
	return atomicfile.Write(path, func(w io.Writer) error { return Write(w, shape, data) })
}

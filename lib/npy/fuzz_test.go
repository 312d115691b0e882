package npy

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// seedFiles adds every NumPy-written fixture (and truncations of one) to a fuzz corpus.
func seedFiles(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.npy")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte(magic + "\x01\x00\xff\xff"))
	f.Add([]byte(magic + "\x03\x00\x10\x00\x00\x00{'descr': '<f4'}"))
}

// FuzzParse: any byte string gives a header or an error, never a panic; an accepted
// header survives WriteHeader → Parse unchanged.
func FuzzParse(f *testing.F) {
	seedFiles(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := Parse(bytes.NewReader(b))
		if err != nil {
			return
		}
		if h.DataOffset > int64(len(b)) || h.Dtype.Size() == 0 {
			t.Fatalf("accepted inconsistent header %+v from %d bytes", h, len(b))
		}
		var out bytes.Buffer
		if err := WriteHeader(&out, h); err != nil {
			if len(h.Shape) > 100 { // a rewritten dict longer than maxHeaderLen
				return
			}
			t.Fatalf("accepted header %v cannot be written: %v", h, err)
		}
		h2, err := Parse(&out)
		if err != nil {
			t.Fatalf("rewritten header %v does not parse: %v", h, err)
		}
		h.DataOffset, h2.DataOffset = 0, 0
		if !reflect.DeepEqual(h, h2) {
			t.Fatalf("round trip changed the header: %+v → %+v", h, h2)
		}
	})
}

// FuzzFile: opening and reading any content (as a matrix of its dtype, or as indices)
// returns data or an error, never a panic, and never allocates more than the content
// could hold.
func FuzzFile(f *testing.F) {
	seedFiles(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		nf, err := NewFile(bytes.NewReader(b), int64(len(b)), "fuzz.npy")
		if err != nil {
			return
		}
		if nf.Header.DataBytes() > int64(len(b)) {
			t.Fatalf("accepted %v with only %d bytes", nf.Header, len(b))
		}
		switch nf.Header.Dtype {
		case Float32:
			readAllWays[float32](t, nf)
		case Float64:
			readAllWays[float64](t, nf)
		case Int32:
			_, _ = ReadAll[int32](nf)
		case Int64:
			_, _ = ReadAll[int64](nf)
		}
	})
}

func readAllWays[T Float](t *testing.T, nf *File) {
	all, errAll := ReadAll[T](nf)
	rows, cols, err := nf.Matrix()
	if err != nil || cols == 0 {
		return
	}
	buf := make([]T, cols)
	for r := 0; r < rows; r++ {
		if err := ReadRows(nf, r, buf); err != nil {
			if errAll == nil {
				t.Fatalf("row %d fails (%v) but ReadAll succeeded", r, err)
			}
			return
		}
		if errAll == nil && !reflect.DeepEqual(buf, all[r*cols:(r+1)*cols]) {
			t.Fatalf("row %d differs between ReadRows and ReadAll", r)
		}
	}
}

package h5

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// written returns the bytes of a file this package's writer makes with n datasets "v<i>#enc#0"
// of shape [1, 2] holding (i, 1).
func written(tb testing.TB, n int) []byte {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), "w.h5")
	w, err := Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	for i := 0; i < n; i++ {
		w.WriteFloat32(fmt.Sprintf("v%d#enc#0", i), []int{1, 2}, []float32{float32(i), 1})
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// realPrefix adds the first n bytes of a file of the data cache ($GEOALIGN_CACHE, set by
// `make fuzz`) to the corpus, when it is there.
func realPrefix(f *testing.F, rel string, n int) {
	if c := os.Getenv("GEOALIGN_CACHE"); c != "" {
		if r, err := os.Open(filepath.Join(c, rel)); err == nil {
			b, _ := io.ReadAll(io.LimitReader(r, int64(n)))
			r.Close()
			f.Add(b)
		}
	}
}

// FuzzNewReader feeds any bytes to the reader, in memory: it must return errors, never panic,
// loop or allocate beyond the input size. Seeds are small, so that the fuzzer mutates them
// quickly: a 2 KB file of this package's writer, the head of the libhdf5 fixture
// (testdata/h5py_300.h5, written by h5py; the whole 128 KB file slows every execution several
// fold and is read by TestReadLibhdf5Fixture) and the head of the real query features when the
// data cache is there.
func FuzzNewReader(f *testing.F) {
	f.Add(written(f, 12))
	fixture, err := os.ReadFile("testdata/h5py_300.h5")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(fixture[:4096])
	realPrefix(f, "charades/charades/TextData/glove100_charades_query_feat.hdf5", 8192)
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := NewReader(bytes.NewReader(data), int64(len(data)), "fuzz.h5")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.h5") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, n := range h.Names() {
			if _, err := h.Shape(n); err != nil {
				continue
			}
			if v, _, err := h.ReadFloat32(n); err == nil && 4*len(v) > len(data) {
				t.Fatalf("dataset %q: %d values from %d bytes", n, len(v), len(data))
			}
		}
	})
}

// A layout message shorter than its version and class fields is an error naming the dataset
// (it was an index-out-of-range panic while formatting the error message).
func TestShortLayoutMessage(t *testing.T) {
	raw := written(t, 1)
	// One dataset right after the 96-byte superblock: a 16-byte header prefix, then dataspace
	// (8 + 24 bytes), datatype (8 + 24), fill value (8 + 8) and layout (8 + 24) messages.
	prefix, layout := 96, 96+16+32+32+16
	if typ := le.Uint16(raw[layout:]); typ != msgLayout {
		t.Fatalf("message at %d has type %#x, want the layout message", layout, typ)
	}
	le.PutUint16(raw[layout+2:], 0)   // an empty layout message ...
	le.PutUint16(raw[layout+8:], 0)   // ... followed by a NIL message
	le.PutUint16(raw[layout+10:], 16) // over the layout's 16 remaining bytes
	le.PutUint16(raw[prefix+2:], 5)   // five messages now
	h, err := NewReader(bytes.NewReader(raw), int64(len(raw)), "short.h5")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = h.ReadFloat32("v0#enc#0")
	if err == nil || !strings.Contains(err.Error(), `dataset "v0#enc#0": data layout message of 0 bytes`) {
		t.Fatalf("error %v, want one naming the dataset and the short layout message", err)
	}
}

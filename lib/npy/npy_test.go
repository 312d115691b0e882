package npy

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// want2x3 is the matrix testdata/gen.py writes: arange(6).reshape(2,3)*0.5 - 1.
func want2x3() []float64 {
	out := make([]float64, 6)
	for i := range out {
		out[i] = float64(i)*0.5 - 1
	}
	return out
}

func TestReadNumPyFloat32(t *testing.T) {
	for _, name := range []string{"f4_2x3.npy", "f4_2x3_v2.npy"} {
		data, rows, cols, err := ReadMatrix[float32](filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if rows != 2 || cols != 3 {
			t.Fatalf("%s: shape %dx%d, want 2x3", name, rows, cols)
		}
		for i, w := range want2x3() {
			if float64(data[i]) != w {
				t.Fatalf("%s: element %d = %v, want %v", name, i, data[i], w)
			}
		}
	}
}

func TestReadNumPyFloat64AndRows(t *testing.T) {
	f, err := Open("testdata/f8_2x3.npy")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	row := make([]float64, 3)
	if err := ReadRows(f, 1, row); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(row, want2x3()[3:]) {
		t.Fatalf("row 1 = %v, want %v", row, want2x3()[3:])
	}
	// The dtype must match: no silent float64 → float32 conversion.
	if err := ReadRows(f, 0, make([]float32, 3)); err == nil || !strings.Contains(err.Error(), "dtype <f8, want <f4") {
		t.Fatalf("float32 read of a float64 file: err = %v", err)
	}
	if err := ReadRows(f, 1, make([]float64, 6)); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Fatalf("reading past the last row: err = %v", err)
	}
	if err := ReadRows(f, 0, make([]float64, 4)); err == nil {
		t.Fatal("a buffer that is not whole rows must be an error")
	}
}

func TestReadNumPyIndices(t *testing.T) {
	for _, name := range []string{"i4_5.npy", "i8_5.npy"} {
		got, err := ReadIndices(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if want := []int{-4, -1, 2, 5, 8}; !reflect.DeepEqual(got, want) {
			t.Fatalf("%s = %v, want %v", name, got, want)
		}
	}
	if _, err := ReadIndices("testdata/f4_2x3.npy"); err == nil || !strings.Contains(err.Error(), "1-D integer") {
		t.Fatalf("matrix as indices: err = %v", err)
	}
}

func TestReadRejectsWithFileName(t *testing.T) {
	cases := []struct{ file, want string }{
		{"f4_be_2x3.npy", `unsupported dtype ">f4"`},
		{"f2_2x3.npy", `unsupported dtype "<f2"`},
		{"f4_2x3_fortran.npy", "Fortran-order"},
		{"f4_nan_2x3.npy", "NaN at row 1, column 2"},
		{"f8_scalar.npy", "want a 2-D array"},
		{"missing.npy", "no such file"},
	}
	for _, c := range cases {
		path := filepath.Join("testdata", c.file)
		_, _, _, err := ReadMatrix[float32](path)
		if c.file == "f8_scalar.npy" {
			_, _, _, err = ReadMatrix[float64](path)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: err = %v, want one naming the file and containing %q", c.file, err, c.want)
		}
	}
	var nanErr *NaNError
	_, _, _, err := ReadMatrix[float32]("testdata/f4_nan_2x3.npy")
	if !errors.As(err, &nanErr) || nanErr.Row != 1 || nanErr.Col != 2 {
		t.Fatalf("NaN error = %#v", err)
	}
}

func TestEmptyMatrix(t *testing.T) {
	data, rows, cols, err := ReadMatrix[float32]("testdata/f4_0x3.npy")
	if err != nil || rows != 0 || cols != 3 || len(data) != 0 {
		t.Fatalf("empty: %v %d %d %v", data, rows, cols, err)
	}
}

// The writer must produce exactly the bytes numpy.save produces for the same array.
func TestWriteMatchesNumPyBytes(t *testing.T) {
	w := want2x3()
	f32 := make([]float32, len(w))
	for i, v := range w {
		f32[i] = float32(v)
	}
	cases := []struct {
		file  string
		write func(*bytes.Buffer) error
	}{
		{"f4_2x3.npy", func(b *bytes.Buffer) error { return Write(b, []int{2, 3}, f32) }},
		{"f8_2x3.npy", func(b *bytes.Buffer) error { return Write(b, []int{2, 3}, w) }},
		{"i4_5.npy", func(b *bytes.Buffer) error { return Write(b, []int{5}, []int32{-4, -1, 2, 5, 8}) }},
		{"i8_5.npy", func(b *bytes.Buffer) error { return Write(b, []int{5}, []int64{-4, -1, 2, 5, 8}) }},
		{"f4_0x3.npy", func(b *bytes.Buffer) error { return Write(b, []int{0, 3}, []float32{}) }},
		{"f8_scalar.npy", func(b *bytes.Buffer) error { return Write(b, []int{}, []float64{2.5}) }},
	}
	for _, c := range cases {
		want, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := c.write(&got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: wrote\n%q\nnumpy wrote\n%q", c.file, got.Bytes(), want)
		}
	}
	if err := Write(&bytes.Buffer{}, []int{2, 2}, f32); err == nil {
		t.Error("shape/data mismatch must be an error")
	}
}

func TestWriteFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.npy")
	data := []float32{1, float32(math.Inf(-1)), 3, 4, 5, 6}
	if err := WriteFile(path, []int{3, 2}, data); err != nil {
		t.Fatal(err)
	}
	got, rows, cols, err := ReadMatrix[float32](path)
	if err != nil || rows != 3 || cols != 2 || !reflect.DeepEqual(got, data) {
		t.Fatalf("round trip: %v %d×%d %v", got, rows, cols, err)
	}
}

func TestParseHeaderVariants(t *testing.T) {
	ok := []struct {
		dict  string
		shape []int
	}{
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", []int{2, 3}},
		{`{"shape": (7,), "fortran_order": False, "descr": "<i8"}`, []int{7}},
		{"{'descr':'<f8','fortran_order':True,'shape':(3L, 4L)}\n", []int{3, 4}},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (), }", []int{}},
	}
	for _, c := range ok {
		h, err := Parse(bytes.NewReader(rawHeader(1, c.dict)))
		if err != nil {
			t.Errorf("%q: %v", c.dict, err)
			continue
		}
		if !reflect.DeepEqual(h.Shape, c.shape) {
			t.Errorf("%q: shape %v, want %v", c.dict, h.Shape, c.shape)
		}
	}
	bad := []struct{ dict, want string }{
		{"{'descr': '<f4', 'fortran_order': False}", `missing key "shape"`},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1}", `unexpected key "x"`},
		{"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", "duplicate key"},
		{"{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}", "True or False"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}", "non-negative"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (2)}", "trailing comma"},
		{"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}", "structured"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999)}", "too large"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} junk", "after '}'"},
		{"{'descr': '<f4, 'fortran_order': False, 'shape': (2,)}", "want ',' or '}'"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (2,", "non-negative integers"},
	}
	for _, c := range bad {
		_, err := Parse(bytes.NewReader(rawHeader(1, c.dict)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want it to contain %q", c.dict, err, c.want)
		}
	}
}

func TestParseRejectsBadPreambles(t *testing.T) {
	good := rawHeader(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n")
	cases := map[string][]byte{
		"empty":          nil,
		"short magic":    []byte("\x93NUM"),
		"wrong magic":    append([]byte("PK\x03\x04xx"), good[6:]...),
		"version 4":      append(append([]byte(magic), 4, 0), good[8:]...),
		"no length":      good[:9],
		"truncated":      good[:20],
		"huge v2 length": append([]byte(magic+"\x02\x00"), 0xff, 0xff, 0xff, 0x7f),
	}
	for name, b := range cases {
		if _, err := Parse(bytes.NewReader(b)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestTruncatedData(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, []int{2, 3}, []float32{1, 2, 3, 4, 5, 6}); err != nil {
		t.Fatal(err)
	}
	short := b.Bytes()[:b.Len()-1]
	_, err := NewFile(bytes.NewReader(short), int64(len(short)), "short.npy")
	if err == nil || !strings.Contains(err.Error(), "short.npy: truncated data") {
		t.Fatalf("err = %v", err)
	}
}

// rawHeader builds a .npy preamble + dict with no data, as a parser input.
func rawHeader(major byte, dict string) []byte {
	b := []byte(magic)
	b = append(b, major, 0, byte(len(dict)), byte(len(dict)>>8))
	return append(b, dict...)
}

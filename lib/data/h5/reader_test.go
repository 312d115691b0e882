package h5

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadLibhdf5Fixture reads a file written by libhdf5 through h5py (testdata/make_fixture.py)
// whose root group needs a two-level B-tree; expected values come from the generating formula.
func TestReadLibhdf5Fixture(t *testing.T) {
	f, err := Open("testdata/h5py_300.h5")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := len(f.Names()); got != 306 {
		t.Fatalf("indexed %d links, want 306", got)
	}
	for i := 0; i < 300; i++ {
		name := fmt.Sprintf("vid%d#enc#%d", i/2, i%2)
		data, shape, err := f.ReadFloat32(name)
		if err != nil {
			t.Fatal(err)
		}
		rows := 1 + i%3
		if len(shape) != 2 || shape[0] != rows || shape[1] != 4 {
			t.Fatalf("%s: shape %v, want [%d 4]", name, shape, rows)
		}
		for j, v := range data {
			if v != float32(i*10+j) {
				t.Fatalf("%s[%d] = %v, want %d", name, j, v, i*10+j)
			}
		}
	}
	if d, _, err := f.ReadFloat32("as_float64"); err != nil || d[0] != 0.5 || d[1] != -2 {
		t.Errorf("float64 dataset: %v %v", d, err)
	}
	if d, _, err := f.ReadFloat32("big_endian"); err != nil || d[0] != 1.5 || d[1] != 2.5 {
		t.Errorf("big-endian dataset: %v %v", d, err)
	}
	for name, want := range map[string]string{
		"has_nan": `"has_nan" element 1 is NaN`,
		"gzipped": "compressed",
		"ints":    "not floating point",
		"a_group": "is a group",
		"missing": `no dataset "missing"`,
	} {
		_, _, err := f.ReadFloat32(name)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "h5py_300.h5") {
			t.Errorf("ReadFloat32(%q) error = %v, want it to name the file and say %q", name, err, want)
		}
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "feat.hdf5")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	const n = 1500 // > 2·16·4 links: exercises the raised leaf K
	for i := 0; i < n; i++ {
		rows := i % 4 // includes empty (0, 3) datasets
		data := make([]float32, rows*3)
		for j := range data {
			data[j] = float32(i) - float32(j)/8
		}
		if err := w.WriteFloat32(fmt.Sprintf("v%d#enc#%d", i/5, i%5), []int{rows, 3}, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteFloat32("v0#enc#0", []int{1}, []float32{1}); err == nil {
		t.Fatal("duplicate name accepted")
	}
	if err := w.WriteFloat32("nan", []int{1}, []float32{float32(math.NaN())}); err == nil {
		t.Fatal("NaN accepted")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if len(f.Names()) != n {
		t.Fatalf("%d names, want %d", len(f.Names()), n)
	}
	for i := 0; i < n; i += 7 {
		name := fmt.Sprintf("v%d#enc#%d", i/5, i%5)
		data, shape, err := f.ReadFloat32(name)
		if err != nil {
			t.Fatal(err)
		}
		if shape[0] != i%4 || shape[1] != 3 || len(data) != 3*(i%4) {
			t.Fatalf("%s: shape %v len %d", name, shape, len(data))
		}
		for j, v := range data {
			if v != float32(i)-float32(j)/8 {
				t.Fatalf("%s[%d] = %v", name, j, v)
			}
		}
	}
}

func TestTruncatedAndNonHDF5Files(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.hdf5")
	w, _ := Create(path)
	for i := 0; i < 40; i++ {
		w.WriteFloat32(fmt.Sprintf("d%02d", i), []int{2, 2}, []float32{1, 2, 3, 4})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	// The group structures sit at the end: cutting the file loses them.
	cut := filepath.Join(dir, "cut.hdf5")
	os.WriteFile(cut, raw[:len(raw)-100], 0o644)
	if _, err := Open(cut); err == nil || !strings.Contains(err.Error(), "cut.hdf5") || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("truncated file: %v", err)
	}
	notH5 := filepath.Join(dir, "text.hdf5")
	os.WriteFile(notH5, []byte("cap_id sentence\n"), 0o644)
	if _, err := Open(notH5); err == nil || !strings.Contains(err.Error(), "not an HDF5 file") {
		t.Errorf("non-HDF5 file: %v", err)
	}
}

// TestCrossCheckWithH5py has libhdf5 (through Debian's python3-h5py) read a file this package
// wrote. It is skipped where h5py is not installed.
func TestCrossCheckWithH5py(t *testing.T) {
	if exec.Command("/usr/bin/python3", "-c", "import h5py").Run() != nil {
		t.Skip("/usr/bin/python3 has no h5py")
	}
	path := filepath.Join(t.TempDir(), "ours.hdf5")
	w, _ := Create(path)
	want := 0.0
	for i := 0; i < 700; i++ {
		data := []float32{float32(i), 0.25, -float32(i) / 2}
		for _, v := range data {
			want += float64(v)
		}
		if err := w.WriteFloat32(fmt.Sprintf("q%d#enc#0", i), []int{1, 3}, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	script := `import h5py,sys
f=h5py.File(sys.argv[1],'r')
print(len(f.keys()), f['q7#enc#0'].shape, f['q7#enc#0'].dtype, sum(float(f[k][...].sum()) for k in f.keys()))`
	out, err := exec.Command("/usr/bin/python3", "-c", script, path).CombinedOutput()
	if err != nil {
		t.Fatalf("h5py could not read our file: %v\n%s", err, out)
	}
	if got, wantOut := strings.TrimSpace(string(out)), fmt.Sprintf("700 (1, 3) float32 %.1f", want); got != wantOut {
		t.Fatalf("h5py read %q, want %q", got, wantOut)
	}
}

func TestCorruptShapeDoesNotOverflow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.hdf5")
	w, _ := Create(path)
	w.WriteFloat32("d", []int{1, 2}, []float32{1, 2})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	// The dataspace message of "d" starts right after the 96-byte superblock, 16-byte header
	// prefix and 8-byte message header: its dims are at 96+16+8+8. Make them 2^31 × 2^31.
	le.PutUint64(raw[96+16+8+8:], 1<<31)
	le.PutUint64(raw[96+16+8+16:], 1<<31)
	os.WriteFile(path, raw, 0o644)
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, _, err := f.ReadFloat32("d"); err == nil || !strings.Contains(err.Error(), `dataset "d"`) {
		t.Fatalf("corrupt shape: %v", err)
	}
}

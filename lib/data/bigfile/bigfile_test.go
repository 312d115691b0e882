package bigfile

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeRaw writes a BigFile directory byte by byte as the official tools do, independently of Write.
func writeRaw(t *testing.T, dir, shape, ids string, values []float32) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, v := range values {
		binary.Write(&buf, binary.LittleEndian, v)
	}
	must(t, os.WriteFile(filepath.Join(dir, "shape.txt"), []byte(shape), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "id.txt"), []byte(ids), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "feature.bin"), buf.Bytes(), 0o644))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestOpenReadOfficialLayout(t *testing.T) {
	dir := t.TempDir()
	writeRaw(t, dir, "3 2\n", "v_1 v_2\nw_1\n", []float32{1, 2, 3, 4, 5, 6})
	b, err := Open(dir)
	must(t, err)
	defer b.Close()
	if b.Len() != 3 || b.Dim != 2 {
		t.Fatalf("got N=%d D=%d, want 3 2", b.Len(), b.Dim)
	}
	got, err := b.Read([]string{"w_1", "v_1", "v_2"})
	must(t, err)
	want := []float32{5, 6, 1, 2, 3, 4}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Read = %v, want %v", got, want)
		}
	}
}

func TestWriteThenOpenRoundTrip(t *testing.T) {
	dir := t.TempDir()
	ids := []string{"a", "b"}
	rows := []float32{0.5, -1, float32(math.Pi), 1e-30}
	must(t, Write(dir, ids, 2, rows))
	raw, _ := os.ReadFile(filepath.Join(dir, "feature.bin"))
	if len(raw) != 16 || math.Float32frombits(binary.LittleEndian.Uint32(raw[8:])) != float32(math.Pi) {
		t.Fatalf("feature.bin is not little-endian row-major float32: % x", raw)
	}
	b, err := Open(dir)
	must(t, err)
	defer b.Close()
	got, err := b.Read([]string{"b"})
	must(t, err)
	if got[0] != float32(math.Pi) || got[1] != 1e-30 {
		t.Fatalf("got %v", got)
	}
}

func TestBadInputErrors(t *testing.T) {
	cases := []struct {
		name, shape, ids string
		values           []float32
		wantInErr        []string
	}{
		{"truncated feature.bin", "2 2", "a b", []float32{1, 2, 3}, []string{"feature.bin", "12 bytes", "16 bytes"}},
		{"shape disagrees with size", "3 2", "a b c", []float32{1, 2, 3, 4}, []string{"feature.bin", "3×2"}},
		{"id count disagrees", "2 1", "a", []float32{1, 2}, []string{"id.txt", "1 ids", "N=2"}},
		{"malformed shape", "2", "a b", []float32{1, 2}, []string{"shape.txt", "line 1"}},
		{"negative dim", "2 -1", "a b", nil, []string{"shape.txt"}},
		{"duplicate id", "2 1", "a a", []float32{1, 2}, []string{"id.txt", `"a" appears twice`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeRaw(t, dir, c.shape, c.ids, c.values)
			_, err := Open(dir)
			if err == nil {
				t.Fatal("Open succeeded on bad input")
			}
			for _, w := range c.wantInErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestReadRejectsNaNAndMissingIDs(t *testing.T) {
	dir := t.TempDir()
	writeRaw(t, dir, "2 2", "a b", []float32{1, 2, 3, float32(math.NaN())})
	b, err := Open(dir)
	must(t, err)
	defer b.Close()
	if _, err := b.Read([]string{"a"}); err != nil {
		t.Fatalf("clean row: %v", err)
	}
	_, err = b.Read([]string{"a", "b"})
	if err == nil || !strings.Contains(err.Error(), `row 1 (id "b") column 1 is NaN`) {
		t.Fatalf("NaN not reported with row and column: %v", err)
	}
	_, err = b.Read([]string{"zz"})
	if err == nil || !strings.Contains(err.Error(), `"zz"`) || !strings.Contains(err.Error(), "id.txt") {
		t.Fatalf("missing id not reported: %v", err)
	}
	if err := Write(t.TempDir(), []string{"x"}, 1, []float32{float32(math.Inf(1))}); err == nil {
		t.Fatal("Write accepted +Inf")
	}
}

package bigfile

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// realRows returns the first k rows of the BigFile dir of the data cache ($GEOALIGN_CACHE, set
// by `make fuzz`) as the three files of a smaller BigFile, or ok = false when it is not there.
func realRows(dir string, k int) (shape, ids, feature []byte, ok bool) {
	c := os.Getenv("GEOALIGN_CACHE")
	if c == "" {
		return nil, nil, nil, false
	}
	dir = filepath.Join(c, dir)
	raw, err := os.ReadFile(filepath.Join(dir, ShapeFileName))
	if err != nil {
		return nil, nil, nil, false
	}
	_, d, err := parseShape(raw, ShapeFileName)
	if err != nil {
		return nil, nil, nil, false
	}
	idf, err := os.Open(filepath.Join(dir, IDFileName))
	if err != nil {
		return nil, nil, nil, false
	}
	head, _ := io.ReadAll(io.LimitReader(idf, 1<<16))
	idf.Close()
	fields := strings.Fields(string(head))
	if len(fields) <= k { // the last field may be cut
		return nil, nil, nil, false
	}
	bin, err := os.Open(filepath.Join(dir, FeatureFileName))
	if err != nil {
		return nil, nil, nil, false
	}
	defer bin.Close()
	feature = make([]byte, k*d*bytesPerValue)
	if _, err := io.ReadFull(bin, feature); err != nil {
		return nil, nil, nil, false
	}
	return []byte(strconv.Itoa(k) + " " + strconv.Itoa(d) + "\n"), []byte(strings.Join(fields[:k], " ") + "\n"), feature, true
}

// FuzzNew feeds any shape.txt, id.txt and feature.bin contents to New, in memory, and reads
// every row: the result is rows or an error naming a file, never a panic or an allocation
// beyond the input. Seeds: small hand-made files, and the first rows of the real Charades
// features when the data cache is there.
func FuzzNew(f *testing.F) {
	var feat bytes.Buffer
	for _, v := range []float32{1, 2, 3, 4, 5, 6} {
		binary.Write(&feat, binary.LittleEndian, v)
	}
	f.Add([]byte("3 2\n"), []byte("v_1 v_2\nw_1\n"), feat.Bytes())
	f.Add([]byte("0 7\n"), []byte(""), []byte{})
	f.Add([]byte("1 1"), []byte("\xe9t\xe9"), []byte{0, 0, 0xc0, 0x7f}) // Latin-1 id, NaN
	if s, i, b, ok := realRows("charades/charades/FeatureData/label_multihot_glove100", 8); ok {
		f.Add(s, i, b)
	}
	f.Fuzz(func(t *testing.T, shape, ids, feature []byte) {
		b, err := New("fuzz", shape, ids, bytes.NewReader(feature), int64(len(feature)))
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz/") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		defer b.Close()
		if int64(b.Len())*int64(b.Dim)*bytesPerValue != int64(len(feature)) {
			t.Fatalf("accepted %d×%d rows from %d bytes", b.Len(), b.Dim, len(feature))
		}
		rows, err := b.Read(b.IDs)
		if err == nil && len(rows) != b.Len()*b.Dim {
			t.Fatalf("read %d values, want %d", len(rows), b.Len()*b.Dim)
		}
		for _, v := range rows {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("returned non-finite value %v", v)
			}
		}
	})
}

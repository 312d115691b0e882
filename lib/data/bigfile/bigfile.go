package bigfile

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/geoalign/geoalign/lib/atomicfile"
)

// File names inside a BigFile directory (HLF:src/Utils/basic_utils.py).
const (
	ShapeFileName        = "shape.txt"
	IDFileName           = "id.txt"
	FeatureFileName      = "feature.bin"
	Video2FramesFileName = "video2frames.txt"
)

// bytesPerValue is the size of one little-endian float32 in feature.bin.
const bytesPerValue = 4

// BigFile is an opened BigFile directory. Rows are read on demand from feature.bin; call Close
// when done. It is safe for concurrent reads (it only uses ReadAt).
type BigFile struct {
	Dir     string
	IDs     []string // row ids in file order
	Dim     int      // D: floats per row
	idx     map[string]int
	feature io.ReaderAt // feature.bin
	closer  io.Closer   // the *os.File of Open; nil for New
}

// Open validates and opens the BigFile in dir: New over its shape.txt, id.txt and feature.bin.
func Open(dir string) (*BigFile, error) {
	shape, err := os.ReadFile(filepath.Join(dir, ShapeFileName))
	if err != nil {
		return nil, fmt.Errorf("bigfile: %w", err)
	}
	ids, err := os.ReadFile(filepath.Join(dir, IDFileName))
	if err != nil {
		return nil, fmt.Errorf("bigfile: %w", err)
	}
	f, err := os.Open(filepath.Join(dir, FeatureFileName))
	if err != nil {
		return nil, fmt.Errorf("bigfile: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("bigfile: %w", err)
	}
	b, err := New(dir, shape, ids, f, st.Size())
	if err != nil {
		f.Close()
		return nil, err
	}
	b.closer = f
	return b, nil
}

// New validates a BigFile given the contents of its shape.txt and id.txt and its feature.bin
// (size bytes, read on demand with ReadAt); dir names the files in errors. It checks that
// shape.txt is "N D" with N ≥ 0 and D > 0, that id.txt holds exactly N unique ids, and that
// feature.bin holds exactly N·D float32. Any content gives a BigFile or an error naming the file
// and field, never a panic (FuzzNew).
func New(dir string, shape, idText []byte, feature io.ReaderAt, size int64) (*BigFile, error) {
	shapePath, idPath, binPath := filepath.Join(dir, ShapeFileName), filepath.Join(dir, IDFileName), filepath.Join(dir, FeatureFileName)
	n, d, err := parseShape(shape, shapePath)
	if err != nil {
		return nil, err
	}
	ids := strings.Fields(latin1ToUTF8(idText))
	if len(ids) != n {
		return nil, fmt.Errorf("bigfile: %s holds %d ids but %s says N=%d", idPath, len(ids), shapePath, n)
	}
	idx := make(map[string]int, n)
	for i, id := range ids {
		if j, dup := idx[id]; dup {
			return nil, fmt.Errorf("bigfile: %s: id %q appears twice (positions %d and %d)", idPath, id, j+1, i+1)
		}
		idx[id] = i
	}
	if n > 0 && int64(d) > math.MaxInt64/bytesPerValue/int64(n) {
		return nil, fmt.Errorf("bigfile: %s says %d×%d float32, more bytes than a file can hold", shapePath, n, d)
	}
	if want := int64(n) * int64(d) * bytesPerValue; size != want {
		return nil, fmt.Errorf("bigfile: %s is %d bytes but %s says %d×%d float32 = %d bytes (truncated or wrong shape)",
			binPath, size, shapePath, n, d, want)
	}
	return &BigFile{Dir: dir, IDs: ids, Dim: d, idx: idx, feature: feature}, nil
}

// Close releases feature.bin (a no-op for New).
func (b *BigFile) Close() error {
	if b.closer == nil {
		return nil
	}
	return b.closer.Close()
}

// Len is N, the number of rows.
func (b *BigFile) Len() int { return len(b.IDs) }

// Has reports whether id is a row of the file.
func (b *BigFile) Has(id string) bool { _, ok := b.idx[id]; return ok }

// Index returns the row index of id.
func (b *BigFile) Index(id string) (int, bool) { i, ok := b.idx[id]; return i, ok }

// Read returns the rows of ids, in the order given, as one flat len(ids)×Dim slice. Runs of
// consecutive rows are read with one ReadAt. A missing id, a short read, NaN or ±Inf is an error
// naming the file and row.
func (b *BigFile) Read(ids []string) ([]float32, error) {
	out := make([]float32, len(ids)*b.Dim)
	rowBytes := b.Dim * bytesPerValue
	for start := 0; start < len(ids); {
		first, ok := b.idx[ids[start]]
		if !ok {
			return nil, fmt.Errorf("bigfile: id %q is not in %s", ids[start], filepath.Join(b.Dir, IDFileName))
		}
		end := start + 1
		for end < len(ids) {
			j, ok := b.idx[ids[end]]
			if !ok || j != first+(end-start) {
				break
			}
			end++
		}
		buf := make([]byte, (end-start)*rowBytes)
		// io.ReaderAt may return io.EOF with a full buffer at the end of the input.
		if got, err := b.feature.ReadAt(buf, int64(first)*int64(rowBytes)); got < len(buf) {
			return nil, fmt.Errorf("bigfile: reading rows %d..%d of %s: %w", first, first+end-start-1, filepath.Join(b.Dir, FeatureFileName), err)
		}
		dst := out[start*b.Dim : end*b.Dim]
		for k := range dst {
			v := math.Float32frombits(binary.LittleEndian.Uint32(buf[k*bytesPerValue:]))
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				row := start + k/b.Dim
				return nil, fmt.Errorf("bigfile: %s row %d (id %q) column %d is %v",
					filepath.Join(b.Dir, FeatureFileName), first+k/b.Dim, ids[row], k%b.Dim, v)
			}
			dst[k] = v
		}
		start = end
	}
	return out, nil
}

// parseShape parses shape.txt (raw, read from path): one line "N D".
func parseShape(raw []byte, path string) (n, d int, err error) {
	line, _, _ := strings.Cut(string(raw), "\n")
	f := strings.Fields(line)
	if len(f) != 2 {
		return 0, 0, fmt.Errorf("bigfile: %s line 1: want \"N D\", got %q", path, line)
	}
	n, err1 := strconv.Atoi(f[0])
	d, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || n < 0 || d <= 0 {
		return 0, 0, fmt.Errorf("bigfile: %s line 1: want two integers N ≥ 0 and D > 0, got %q", path, line)
	}
	return n, d, nil
}

// latin1ToUTF8 decodes ISO-8859-1 bytes, as the official reader does for id.txt.
func latin1ToUTF8(b []byte) string {
	ascii := true
	for _, c := range b {
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return string(b)
	}
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

// Write creates (or replaces) the BigFile in dir with the given ids and the flat len(ids)×dim
// rows. Files are written to temporary names and renamed, so a reader never sees a half-written
// directory. Ids must be unique, non-empty and free of whitespace; values must be finite.
func Write(dir string, ids []string, dim int, rows []float32) error {
	if dim <= 0 {
		return fmt.Errorf("bigfile: write %s: dim must be > 0, got %d", dir, dim)
	}
	if len(rows) != len(ids)*dim {
		return fmt.Errorf("bigfile: write %s: %d ids × dim %d needs %d values, got %d", dir, len(ids), dim, len(ids)*dim, len(rows))
	}
	seen := make(map[string]bool, len(ids))
	for i, id := range ids {
		if id == "" || strings.ContainsAny(id, " \t\r\n\v\f") {
			return fmt.Errorf("bigfile: write %s: id %d (%q) is empty or contains whitespace", dir, i, id)
		}
		if seen[id] {
			return fmt.Errorf("bigfile: write %s: id %q appears twice", dir, id)
		}
		seen[id] = true
	}
	for k, v := range rows {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("bigfile: write %s: row %d (id %q) column %d is %v", dir, k/dim, ids[k/dim], k%dim, v)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("bigfile: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(dir, FeatureFileName), func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		var b [bytesPerValue]byte
		for _, v := range rows {
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
			if _, err := bw.Write(b[:]); err != nil {
				return err
			}
		}
		return bw.Flush()
	}); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, IDFileName), func(w io.Writer) error {
		_, err := io.WriteString(w, strings.Join(ids, " ")+"\n")
		return err
	}); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, ShapeFileName), func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "%d %d\n", len(ids), dim)
		return err
	})
}

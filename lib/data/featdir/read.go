package featdir

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/npz"
	"github.com/geoalign/geoalign/lib/npy"
)

// File names of a feature directory (see the package documentation).
const (
	ArchiveFile  = "features.npz"
	TrainFile    = "train.txt"
	ValFile      = "val.txt"
	TestFile     = "test.txt"
	VideoIDsFile = "video_ids.txt"
	CaptionsFile = "captions.txt"
	IDsFile      = "ids.txt"
	ModalityFile = "modalities.txt"
	videoArray   = "video"
	videoMask    = "video_mask"
	textArray    = "text"
	wordsArray   = "words"
	wordsMask    = "words_mask"
	arraySuffix  = ".npy"
)

// Splits are the rows (videos or samples) of the three splits, each in increasing order.
type Splits struct {
	Train, Val, Test []int
	// ValCarved is set when the directory has no val.txt and Val was set aside from the training
	// split by data.CarveValidation; Note says so in words.
	ValCarved bool
	Note      string
}

// array is one float array of a feature directory, converted to float32.
type array struct {
	file  string // what errors name: DIR/name.npy or DIR/features.npz:name.npy
	shape []int
	data  []float32
}

// rowLen is the number of values of one row (the product of the dimensions after the first).
func (a *array) rowLen() int {
	n := 1
	for _, d := range a.shape[1:] {
		n *= d
	}
	return n
}

// reader reads the arrays of one directory: DIR/<name>.npy, else member <name> of DIR/features.npz.
type reader struct {
	dir     string
	archive *npz.Archive
	noNPZ   bool
}

// read returns array name; with optional, a missing array is (nil, nil). A feature array must be
// of a float dtype (integer arrays are masks, or token ids saved in place of their embeddings).
func (r *reader) read(name string, optional, feature bool) (*array, error) {
	path := filepath.Join(r.dir, name+arraySuffix)
	f, err := npy.Open(path)
	switch {
	case err == nil:
		defer f.Close()
	case errors.Is(err, os.ErrNotExist):
		if f, err = r.fromArchive(name); f == nil || err != nil {
			if err == nil && !optional {
				err = fmt.Errorf("%s: no such file (nor an array %q in %s)", path, name, filepath.Join(r.dir, ArchiveFile))
			}
			return nil, err
		}
	default:
		return nil, err
	}
	if feature && !f.Header.Dtype.IsFloat() {
		return nil, fmt.Errorf("%s: dtype %s: features must be float32 or float64 (an integer array holds ids or labels, not features: "+
			"save the features themselves, e.g. np.save(path, x.astype(np.float32)))", f.Name(), f.Header.Dtype)
	}
	a := &array{file: f.Name(), shape: f.Header.Shape}
	if len(a.shape) == 0 {
		return nil, fmt.Errorf("%s: a scalar, want an array with one row per item", a.file)
	}
	if len(a.shape) >= 2 && f.Header.FortranOrder {
		return nil, fmt.Errorf("%s: Fortran-order arrays are not supported; save np.ascontiguousarray(a)", a.file)
	}
	if a.data, err = readFloat32(f); err != nil {
		var nanErr *npy.NaNError
		if errors.As(err, &nanErr) && nanErr.Col < 0 && len(a.shape) > 1 {
			return nil, fmt.Errorf("%s: NaN in row %d (flat index %d)", a.file, nanErr.Row/a.rowLen(), nanErr.Row)
		}
		return nil, err
	}
	for i, v := range a.data {
		if math.IsInf(float64(v), 0) {
			return nil, fmt.Errorf("%s: %v in row %d (flat index %d)", a.file, v, i/max(a.rowLen(), 1), i)
		}
	}
	return a, nil
}

// fromArchive opens member name of DIR/features.npz: (nil, nil) when there is no such archive or
// member.
func (r *reader) fromArchive(name string) (*npy.File, error) {
	if r.archive == nil && !r.noNPZ {
		path := filepath.Join(r.dir, ArchiveFile)
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			r.noNPZ = true
			return nil, nil
		}
		a, err := npz.Open(path)
		if err != nil {
			return nil, err
		}
		r.archive = a
	}
	if r.archive == nil {
		return nil, nil
	}
	for _, n := range r.archive.Names() {
		if n == name {
			return r.archive.File(name)
		}
	}
	return nil, nil
}

// readFloat32 reads any supported dtype as float32 (features are float; masks may be integers).
func readFloat32(f *npy.File) ([]float32, error) {
	switch f.Header.Dtype {
	case npy.Float32:
		return npy.ReadAll[float32](f)
	case npy.Float64:
		return convert(npy.ReadAll[float64](f))
	case npy.Int32:
		return convert(npy.ReadAll[int32](f))
	case npy.Int64:
		return convert(npy.ReadAll[int64](f))
	}
	return nil, fmt.Errorf("%s: dtype %s, want float32, float64, int32 or int64", f.Name(), f.Header.Dtype)
}

func convert[T float64 | int32 | int64](x []T, err error) ([]float32, error) {
	if err != nil {
		return nil, err
	}
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out, nil
}

// checkRows reports an array whose first dimension is not the number of ids, or whose rank is
// not one of ranks.
func (a *array) checkRows(n int, idsFile string, ranks ...int) error {
	ok := false
	for _, r := range ranks {
		ok = ok || len(a.shape) == r
	}
	if !ok {
		return fmt.Errorf("%s: shape %v: want %s dimensions", a.file, a.shape, joinInts(ranks, " or "))
	}
	if a.shape[0] != n {
		return fmt.Errorf("%s: %d rows, but %s lists %d ids", a.file, a.shape[0], idsFile, n)
	}
	return nil
}

func joinInts(xs []int, sep string) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, sep)
}

// readLines reads the non-blank lines of a text file, trimmed, with their 1-based line numbers.
func readLines(path string) (lines []string, numbers []int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err // *PathError names the file
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		s := sc.Text()
		if n == 1 {
			s = data.TrimBOM(s)
		}
		if s = strings.TrimSpace(s); s != "" {
			lines, numbers = append(lines, s), append(numbers, n)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return lines, numbers, nil
}

// ReadIDs reads an ids file: one id per line, no whitespace inside an id, no duplicates, at least
// one id. Blank lines are skipped.
func ReadIDs(path string) ([]string, error) {
	ids, lines, err := readLines(path)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("%s: no ids (empty file)", path)
	}
	seen := make(map[string]int, len(ids))
	for i, id := range ids {
		if strings.ContainsAny(id, " \t") {
			return nil, fmt.Errorf("%s:%d: id %q contains whitespace", path, lines[i], id)
		}
		if prev, dup := seen[id]; dup {
			return nil, fmt.Errorf("%s:%d: id %q already listed on line %d", path, lines[i], id, prev)
		}
		seen[id] = lines[i]
	}
	return ids, nil
}

// readSplits reads train.txt, val.txt (optional) and test.txt of dir: ids known to index (read from
// idsFile), each split non-empty, no id in two splits, and check (if not nil) passing for every
// row. Without val.txt, valFraction of the training rows are carved out (data.CarveValidation).
func readSplits(dir string, index map[string]int, idsFile string, valFraction float64, check func(file string, line, row int) error) (Splits, error) {
	var s Splits
	owner := map[int]string{}
	read := func(name string) ([]int, error) {
		path := filepath.Join(dir, name)
		ids, lines, err := readLines(path)
		if err != nil {
			return nil, err
		}
		if len(ids) == 0 {
			return nil, fmt.Errorf("%s: no ids (empty split)", path)
		}
		rows := make([]int, len(ids))
		for i, id := range ids {
			row, ok := index[id]
			if !ok {
				return nil, fmt.Errorf("%s:%d: id %q is not in %s", path, lines[i], id, idsFile)
			}
			if prev, dup := owner[row]; dup {
				return nil, fmt.Errorf("%s:%d: id %q is already in %s", path, lines[i], id, prev)
			}
			owner[row] = fmt.Sprintf("%s:%d", name, lines[i])
			if check != nil {
				if err := check(path, lines[i], row); err != nil {
					return nil, err
				}
			}
			rows[i] = row
		}
		slices.Sort(rows)
		return rows, nil
	}
	var err error
	if s.Train, err = read(TrainFile); err != nil {
		return s, err
	}
	if s.Test, err = read(TestFile); err != nil {
		return s, err
	}
	if _, statErr := os.Stat(filepath.Join(dir, ValFile)); errors.Is(statErr, os.ErrNotExist) {
		keep, val, err := data.CarveValidation(len(s.Train), valFraction)
		if err != nil {
			return s, fmt.Errorf("%s: no %s, and carving one from the training split failed: %w", filepath.Join(dir, TrainFile), ValFile, err)
		}
		train := s.Train
		s.Train, s.Val = pick(train, keep), pick(train, val)
		s.ValCarved = true
		s.Note = fmt.Sprintf("no %s: validation = %d of the %d training items (fraction %g, fixed choice), trained on the other %d",
			ValFile, len(s.Val), len(train), valFraction, len(s.Train))
		return s, nil
	}
	s.Val, err = read(ValFile)
	return s, err
}

func pick(rows, idx []int) []int {
	out := make([]int, len(idx))
	for i, j := range idx {
		out[i] = rows[j]
	}
	return out
}

// indexOf maps ids to their rows.
func indexOf(ids []string) map[string]int {
	m := make(map[string]int, len(ids))
	for i, id := range ids {
		m[id] = i
	}
	return m
}

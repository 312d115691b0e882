package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/data/h5"
	"github.com/geoalign/geoalign/lib/encoders/minilm"
	"github.com/geoalign/geoalign/lib/npy"
	"github.com/geoalign/geoalign/lib/progress"
)

func init() {
	register("encode", "encode your own sentences with a pretrained text encoder (encode text -h)", runEncode)
}

const encodeUsage = `usage: geoalign encode text --model minilm [--tokens] [--ids] [--model-dir DIR] IN.txt OUT

Encodes IN.txt, one sentence per line (UTF-8; no blank line), with a pretrained text encoder:
  minilm  all-MiniLM-L6-v2 (sentence-transformers; 384-d), installed by make setup in build/minilm
          (lib/encoders/minilm/README.md)

Output, by mode and by OUT's extension:
  (default)          OUT.npy: [N, 384] float32, row i the unit-length sentence embedding of line i+1
  --tokens OUT.hdf5  the MS-SL token-feature layout: one float32 dataset [n_tokens, 384] per line,
                     the last hidden states ([CLS] and [SEP] included), named by the line's ID
                     (--ids) or by its row number 0…N-1
  --tokens OUT.npy   [N, L, 384] float32, line i's n_i token states then zeros (L the longest
                     n_i), and OUT_lengths.npy: [N] int64, the n_i

--ids: each line is "ID SENTENCE" (the MS-SL caption files, TextData/*.caption.txt): the ID, up
to the first space, names the HDF5 dataset; the .npy outputs keep the line order and drop it.
Sentences longer than 256 tokens are truncated (as sentence-transformers does).

flags:
`

// encodeWindow is how many sentences are encoded and written at a time (minilm.EncodeWindows):
// memory stays bounded by one window's outputs (at most 512 × 256 tokens × 384 float32 = 200 MB
// with --tokens).
const encodeWindow = 512

func runEncode(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		fmt.Fprint(stderr, encodeUsage)
		return exitUsage
	case args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help":
		fmt.Fprint(stderr, encodeUsage)
		return exitOK
	case args[0] != "text":
		fmt.Fprintf(stderr, "geoalign encode: unknown subcommand %q (text)\n", args[0])
		return exitUsage
	}
	fs := flag.NewFlagSet("encode text", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, encodeUsage); fs.PrintDefaults() }
	modelName := fs.String("model", "", "the text encoder: minilm")
	tokens := fs.Bool("tokens", false, "write each sentence's token states instead of its sentence embedding")
	withIDs := fs.Bool("ids", false, `each line is "ID SENTENCE" (MS-SL caption file)`)
	modelDir := fs.String("model-dir", "", "where the model's files are (default build/minilm of the checkout)")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "geoalign encode text: "+format+"\n", a...)
		return exitUsage
	}
	if fs.NArg() != 2 {
		return bad("want two arguments, IN.txt and OUT, got %d (geoalign encode text -h)", fs.NArg())
	}
	if *modelName != "minilm" {
		return bad("unknown --model %q: the one text encoder is minilm", *modelName)
	}
	in, out := fs.Arg(0), fs.Arg(1)
	ext := strings.ToLower(filepath.Ext(out))
	switch {
	case !*tokens && ext != ".npy":
		return bad("%s: sentence embeddings are written as .npy", out)
	case *tokens && ext != ".npy" && ext != ".hdf5" && ext != ".h5":
		return bad("%s: token states are written as .hdf5 (MS-SL layout) or .npy", out)
	}
	if st, err := os.Stat(filepath.Dir(out)); err != nil || !st.IsDir() {
		return bad("%s: the output folder %s does not exist", out, filepath.Dir(out))
	}
	if code, ok := checkBackend(stderr, "encode text"); !ok {
		return code
	}
	names, sentences, err := readSentences(in, *withIDs)
	if err != nil {
		return bad("%v", err)
	}
	dir := *modelDir
	if dir == "" {
		dir = minilm.DefaultDir()
	}
	m, err := minilm.Load(dir)
	if err != nil {
		return bad("%v", err)
	}
	var w encodeWriter
	switch {
	case !*tokens:
		w, err = newNPYWriter(out, []int{len(sentences), m.Dim()}, nil)
	case ext == ".npy":
		lengths := make([]int, len(sentences))
		for i, s := range sentences {
			lengths[i] = len(m.Tokenizer.Encode(s))
		}
		w, err = newNPYWriter(out, []int{len(sentences), slices.Max(lengths), m.Dim()}, lengths)
	default:
		w, err = newH5Writer(out, names, m.Dim())
	}
	if err != nil {
		fmt.Fprintf(stderr, "geoalign encode text: %v\n", err)
		return exitFailure
	}
	bar := progress.New("encode text", len(sentences))
	err = m.EncodeWindows(sentences, *tokens, encodeWindow, func(start int, res *minilm.Output) error {
		bar.Add(len(res.IDs), "")
		return w.write(start, res)
	})
	bar.Done()
	if err == nil {
		err = w.commit()
	} else {
		w.abort()
	}
	if err != nil {
		fmt.Fprintf(stderr, "geoalign encode text: %v\n", err)
		return exitFailure
	}
	what := "sentence embeddings"
	if *tokens {
		what = "token states"
	}
	fmt.Fprintf(stdout, "encode text: %d %s (%s, %d-d) of %s → %s\n", len(sentences), what, *modelName, m.Dim(), in, out)
	return exitOK
}

// readSentences reads IN: one sentence per line ("ID SENTENCE" with ids), UTF-8, no blank line,
// at least one line; a trailing \r is dropped. names are the ids, or the row numbers 0…N−1. Every
// error names the file and, where there is one, the line.
func readSentences(path string, ids bool) (names, sentences []string, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil, fmt.Errorf("%s: empty: no sentence to encode", path)
	}
	seen := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, len(b)+1)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSuffix(sc.Text(), "\r")
		if !utf8.ValidString(s) {
			return nil, nil, fmt.Errorf("%s line %d: invalid UTF-8", path, line)
		}
		if strings.TrimSpace(s) == "" {
			return nil, nil, fmt.Errorf("%s line %d: blank line (one sentence per line)", path, line)
		}
		name := fmt.Sprint(line - 1)
		if ids {
			id, rest, ok := strings.Cut(s, " ")
			switch {
			case !ok || id == "" || strings.TrimSpace(rest) == "":
				return nil, nil, fmt.Errorf("%s line %d: want \"ID SENTENCE\" (--ids)", path, line)
			case strings.ContainsAny(id, "/\x00"):
				return nil, nil, fmt.Errorf("%s line %d: ID %q holds '/' or NUL", path, line, id)
			}
			if first, dup := seen[id]; dup {
				return nil, nil, fmt.Errorf("%s line %d: ID %q already on line %d", path, line, id, first)
			}
			seen[id] = line
			name, s = id, rest
		}
		names = append(names, name)
		sentences = append(sentences, s)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return names, sentences, nil
}

// encodeWriter streams one output, window by window; nothing appears at OUT before commit.
type encodeWriter interface {
	write(start int, res *minilm.Output) error
	commit() error
	abort()
}

// npyWriter writes OUT.npy row by row: sentence embeddings [N, D], or with lengths the
// zero-padded token states [N, L, D] and OUT_lengths.npy.
type npyWriter struct {
	f       *atomicfile.File
	buf     *bufio.Writer
	shape   []int
	lengths []int  // tokens per sentence; nil for sentence embeddings
	lenPath string // OUT_lengths.npy with lengths
}

func newNPYWriter(path string, shape []int, lengths []int) (*npyWriter, error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, err
	}
	w := &npyWriter{f: f, buf: bufio.NewWriterSize(f, 1<<20), shape: shape, lengths: lengths}
	if lengths != nil {
		w.lenPath = strings.TrimSuffix(path, filepath.Ext(path)) + "_lengths.npy"
	}
	if err := npy.WriteHeader(w.buf, npy.Header{Dtype: npy.Float32, Shape: shape}); err != nil {
		f.Abort()
		return nil, err
	}
	return w, nil
}

func (w *npyWriter) write(_ int, res *minilm.Output) error {
	d := w.shape[len(w.shape)-1]
	if w.lengths == nil {
		return npyRows(w.buf, res.Sentences)
	}
	pad := make([]float32, w.shape[1]*d)
	for _, t := range res.Tokens {
		if err := npyRows(w.buf, t); err != nil {
			return err
		}
		if err := npyRows(w.buf, pad[len(t):]); err != nil {
			return err
		}
	}
	return nil
}

// npyRows appends float32 values to an .npy data section (little-endian, as npy.Write).
func npyRows(w io.Writer, x []float32) error {
	if len(x) == 0 {
		return nil
	}
	return binary.Write(w, binary.LittleEndian, x)
}

func (w *npyWriter) commit() error {
	if err := w.buf.Flush(); err != nil {
		w.abort()
		return err
	}
	if w.lengths != nil {
		n := make([]int64, len(w.lengths))
		for i, l := range w.lengths {
			n[i] = int64(l)
		}
		if err := npy.WriteFile(w.lenPath, []int{len(n)}, n); err != nil {
			w.abort()
			return err
		}
	}
	return w.f.Commit()
}

func (w *npyWriter) abort() { w.f.Abort() }

// h5Writer writes the MS-SL token layout: one dataset [n_tokens, D] per sentence, named names[i].
type h5Writer struct {
	w     *h5.Writer
	names []string
	dim   int
}

func newH5Writer(path string, names []string, dim int) (*h5Writer, error) {
	w, err := h5.Create(path)
	if err != nil {
		return nil, err
	}
	return &h5Writer{w: w, names: names, dim: dim}, nil
}

func (w *h5Writer) write(start int, res *minilm.Output) error {
	for k, t := range res.Tokens {
		if err := w.w.WriteFloat32(w.names[start+k], []int{len(t) / w.dim, w.dim}, t); err != nil {
			return err
		}
	}
	return nil
}

func (w *h5Writer) commit() error { return w.w.Close() }
func (w *h5Writer) abort()        { w.w.Abort() }

package main

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/data/h5"
	"github.com/geoalign/geoalign/lib/npy"
)

// minilmGolden reads the reference of lib/encoders/minilm (sentence-transformers on PyTorch,
// testdata/golden.py there): the sentences, their token ids and sentence embeddings.
func minilmGolden(t *testing.T) (sentences []string, ids [][]int32, emb []float32) {
	t.Helper()
	dir := filepath.Join("..", "..", "encoders", "minilm", "testdata")
	f, err := os.Open(filepath.Join(dir, "golden.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Sentences []string  `json:"sentences"`
		IDs       [][]int32 `json:"ids"`
	}
	if err := json.NewDecoder(zr).Decode(&g); err != nil {
		t.Fatal(err)
	}
	if emb, _, _, err = npy.ReadMatrix[float32](filepath.Join(dir, "golden_sentences.npy")); err != nil {
		t.Fatal(err)
	}
	return g.Sentences, g.IDs, emb
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

// geoalign encode text on five reference sentences (a Charades-STA query, a Tux Paint caption in
// English and one in Amharic, a Charades description, a tokenizer edge case): the sentence embeddings agree with
// sentence-transformers' (cosine ≥ 0.9999, issue 33), and both token layouts hold one state per
// reference token, the .npy zero-padded and equal to the HDF5 datasets.
func TestEncodeText(t *testing.T) {
	sentences, ids, emb := minilmGolden(t)
	pick := []int{0, 1000, 1805 + 10*23 - 13, 2045 + 3, len(sentences) - 17}
	dir := t.TempDir()
	var plain, withIDs strings.Builder
	for k, i := range pick {
		if strings.TrimSpace(sentences[i]) == "" || strings.ContainsAny(sentences[i], "\r\n") {
			t.Fatalf("golden sentence %d %q cannot be one line of the input", i, sentences[i])
		}
		fmt.Fprintln(&plain, sentences[i])
		fmt.Fprintf(&withIDs, "v%d#enc#%d %s\n", i, k, sentences[i])
	}
	in := filepath.Join(dir, "in.txt")
	inIDs := filepath.Join(dir, "captions.txt")
	for p, s := range map[string]string{in: plain.String(), inIDs: withIDs.String()} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	out := filepath.Join(dir, "sent.npy")
	if code, stdout, stderr := call(run, "encode", "text", "--model", "minilm", in, out); code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	got, rows, cols, err := npy.ReadMatrix[float32](out)
	if err != nil || rows != len(pick) || cols != 384 {
		t.Fatalf("%s: %d×%d, %v", out, rows, cols, err)
	}
	for k, i := range pick {
		if c := cosine(got[k*384:(k+1)*384], emb[i*384:(i+1)*384]); !(c >= 0.9999) {
			t.Errorf("line %d (golden sentence %d): cosine %.7f with sentence-transformers", k+1, i, c)
		}
	}

	outH5 := filepath.Join(dir, "tok.hdf5")
	if code, stdout, stderr := call(run, "encode", "text", "--model", "minilm", "--tokens", "--ids", inIDs, outH5); code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	outNPY := filepath.Join(dir, "tok.npy")
	if code, stdout, stderr := call(run, "encode", "text", "--model", "minilm", "--tokens", in, outNPY); code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	hf, err := h5.Open(outH5)
	if err != nil {
		t.Fatal(err)
	}
	defer hf.Close()
	padded, err := npy.Open(outNPY)
	if err != nil {
		t.Fatal(err)
	}
	all, err := npy.ReadAll[float32](padded)
	padded.Close()
	if err != nil {
		t.Fatal(err)
	}
	lengths, err := npy.ReadIndices(filepath.Join(dir, "tok_lengths.npy"))
	if err != nil {
		t.Fatal(err)
	}
	longest := 0
	for _, i := range pick {
		longest = max(longest, len(ids[i]))
	}
	if len(all) != len(pick)*longest*384 || len(lengths) != len(pick) {
		t.Fatalf("tok.npy holds %d values and tok_lengths.npy %d, want %d×%d×384 and %d", len(all), len(lengths), len(pick), longest, len(pick))
	}
	for k, i := range pick {
		name := fmt.Sprintf("v%d#enc#%d", i, k)
		x, shape, err := hf.ReadFloat32(name)
		if err != nil {
			t.Fatal(err)
		}
		n := len(ids[i])
		if len(shape) != 2 || shape[0] != n || shape[1] != 384 || lengths[k] != n {
			t.Fatalf("%s: shape %v, length %d; want [%d 384]", name, shape, lengths[k], n)
		}
		row := all[k*longest*384 : (k+1)*longest*384]
		for j, v := range row {
			if (j < n*384 && v != x[j]) || (j >= n*384 && v != 0) {
				t.Fatalf("line %d: tok.npy value %d is %g; the HDF5 dataset has %d×384 values", k+1, j, v, n)
			}
		}
	}
}

// Bad input to geoalign encode text: exit 2, one line naming the file (and line), no output.
func TestEncodeTextBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string { return writeFile(t, dir, name, content) }
	good := write("good.txt", "a person opens the door.\n")
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"missing file", []string{"--model", "minilm", filepath.Join(dir, "nope.txt")}, []string{"nope.txt", "no such file"}},
		{"empty file", []string{"--model", "minilm", write("empty.txt", "\n\n")}, []string{"empty.txt", "empty"}},
		{"invalid UTF-8", []string{"--model", "minilm", write("latin1.txt", "ok\ncaf\xe9\n")}, []string{"latin1.txt line 2", "invalid UTF-8"}},
		{"blank line", []string{"--model", "minilm", write("blank.txt", "one\ntwo\n  \nfour\n")}, []string{"blank.txt line 3", "blank line"}},
		{"unknown model", []string{"--model", "bert-large", good}, []string{`unknown --model "bert-large"`, "minilm"}},
		{"no model", []string{good}, []string{`unknown --model ""`}},
		{"ID missing", []string{"--model", "minilm", "--tokens", "--ids", write("noid.txt", "v1#enc#0 fine\njustoneword\n")}, []string{"noid.txt line 2", "ID SENTENCE"}},
		{"ID twice", []string{"--model", "minilm", "--tokens", "--ids", write("dup.txt", "v1 a b\nv2 c d\nv1 e f\n")}, []string{"dup.txt line 3", `"v1"`, "line 1"}},
		{"model files missing", []string{"--model", "minilm", "--model-dir", filepath.Join(dir, "nomodel"), good}, []string{"nomodel", "config.json", "make setup"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.npy")
			code, stdout, stderr := call(run, append(append([]string{"encode", "text"}, c.args...), out)...)
			checkBad(t, code, stdout, stderr, c.want)
			if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
				t.Errorf("output written: %v", entries)
			}
		})
	}
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"sentence embeddings as HDF5", []string{"--model", "minilm", good, filepath.Join(dir, "x.hdf5")}, []string{"x.hdf5", ".npy"}},
		{"token states as text", []string{"--model", "minilm", "--tokens", good, filepath.Join(dir, "x.txt")}, []string{"x.txt", ".hdf5"}},
		{"output folder missing", []string{"--model", "minilm", good, filepath.Join(dir, "no", "x.npy")}, []string{filepath.Join(dir, "no"), "does not exist"}},
		{"one argument", []string{"--model", "minilm", good}, []string{"two arguments"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := call(run, append([]string{"encode", "text"}, c.args...)...)
			checkBad(t, code, stdout, stderr, c.want)
		})
	}
}

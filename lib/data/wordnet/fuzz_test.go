package wordnet

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// headOf returns the first n bytes of path, or nil when it cannot be read.
func headOf(path string, n int64) []byte {
	r, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer r.Close()
	b, _ := io.ReadAll(io.LimitReader(r, n))
	return b
}

// FuzzRead parses any data.noun and index.noun contents, in memory, and builds the noun closure,
// its reduction and the mammal closure: the result is an error naming a file, or closures, never a
// panic or an endless recursion. Seeds: the hand-written miniature of testdata/tiny and, where
// Debian's wordnet-base is installed, the heads of the real files.
func FuzzRead(f *testing.F) {
	data, err := os.ReadFile("testdata/tiny/data.noun")
	if err != nil {
		f.Fatal(err)
	}
	index, err := os.ReadFile("testdata/tiny/index.noun")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data, index)
	if d, x := headOf(filepath.Join(DefaultDir, "data.noun"), 4096), headOf(filepath.Join(DefaultDir, "index.noun"), 4096); d != nil && x != nil {
		f.Add(d, x)
	}
	filter := []string{`\sentity.n.01`, `\sanimal.n.01`}
	f.Fuzz(func(t *testing.T, data, index []byte) {
		n, err := Read(bytes.NewReader(data), "data.noun", bytes.NewReader(index), "index.noun")
		if !parsed(t, err, ".noun") {
			return
		}
		c := NounClosure(n)
		if len(c.Reduction()) > c.NumEdges() {
			t.Fatalf("reduction has more edges than the closure")
		}
		for _, e := range c.Edges {
			if e.Child == e.Parent {
				t.Fatalf("closure has a self-loop at %s", c.Nodes[e.Child])
			}
		}
		MammalClosure(c, filter)
	})
}

// FuzzReadTSV: any text gives a closure or an error naming the file and line; what parses
// survives WriteTSV → ReadTSV.
func FuzzReadTSV(f *testing.F) {
	f.Add("dog.n.01\tmammal.n.01\ndog.n.01\tanimal.n.01\n\nmammal.n.01\tanimal.n.01\n")
	f.Add("a\tb\tc\n")
	f.Fuzz(func(t *testing.T, src string) {
		c, err := ReadTSV(strings.NewReader(src), "fuzz.tsv")
		if !parsed(t, err, "fuzz.tsv") {
			return
		}
		var buf bytes.Buffer
		if err := c.WriteTSV(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := ReadTSV(&buf, "back.tsv")
		if err != nil || back.NumEdges() != c.NumEdges() || back.NumNodes() != c.NumNodes() {
			t.Fatalf("round trip: %v", err)
		}
		c.Reduction()
	})
}

// FuzzParseMammalFilter: any text gives patterns that compile or an error naming the file.
func FuzzParseMammalFilter(f *testing.F) {
	raw, err := os.ReadFile("testdata/tiny/mammals_filter.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(raw))
	f.Add("\\s(\n")
	f.Fuzz(func(t *testing.T, src string) {
		ps, err := ParseMammalFilter(strings.NewReader(src), "filter.txt")
		if !parsed(t, err, "filter.txt") {
			return
		}
		c, err := ReadTSV(strings.NewReader("dog.n.01\tmammal.n.01\nmammal.n.01\tanimal.n.01\n"), "mem")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := MammalClosure(c, ps); err != nil {
			t.Fatalf("patterns %q parsed but do not compile together: %v", ps, err)
		}
	})
}

// Corrupt counts and hypernym cycles are errors naming the file (or the synset), not a panic or
// an endless recursion in NounClosure; the same inputs are seeds of FuzzRead (testdata/fuzz).
func TestCorruptCountsAndCycles(t *testing.T) {
	cases := []struct{ name, data, index, want string }{
		{"hypernym cycle", "00000001 03 n 01 entity 0 001 @ 00000002 n 0000 | a\n00000002 03 n 01 thing 0 001 @ 00000001 n 0000 | b\n",
			"entity n 1 1 @ 1 0 00000001\nthing n 1 1 @ 1 0 00000002\n", `through "@" pointers (a cycle)`},
		{"instance of itself", "00000001 03 n 01 paris 0 001 @i 00000001 n 0000 | a\n", "paris n 1 1 @i 1 0 00000001\n",
			`synset 00000001 is its own ancestor through "@i" pointers`},
		{"negative synset count", "00000001 03 n 01 entity 0 000 | a\n", "a n -1 -1\n", "index.noun:1: field synset_cnt"},
		{"pointer count overflow", "00000001 03 n 01 entity 0 4611686018427387904 | a\n", "entity n 1 0 1 0 00000001\n", "data.noun:1: field p_cnt"},
		{"lemma twice", "00000001 03 n 01 entity 0 000 | a\n", "entity n 1 0 1 0 00000001\nentity n 1 0 1 0 00000001\n", `index.noun:2: lemma "entity" appears twice`},
	}
	for _, c := range cases {
		_, err := Read(strings.NewReader(c.data), "data.noun", strings.NewReader(c.index), "index.noun")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// parsed reports whether err is nil; an error must name the file (name, or a part of its name),
// or the test fails.
func parsed(t *testing.T, err error, name string) bool {
	t.Helper()
	if err != nil && !strings.Contains(err.Error(), name) {
		t.Fatalf("error does not name the file: %v", err)
	}
	return err == nil
}

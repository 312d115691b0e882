package wordnet

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// pairsOf lists a closure as sorted "child parent" strings.
func pairsOf(c *Closure) []string {
	var out []string
	for _, e := range c.Edges {
		out = append(out, c.Nodes[e.Child]+" "+c.Nodes[e.Parent])
	}
	slices.Sort(out)
	return out
}

func loadTiny(t *testing.T) *Nouns {
	t.Helper()
	n, err := Load("testdata/tiny")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestLoadNamesLikeNLTK(t *testing.T) {
	n := loadTiny(t)
	want := map[uint32]string{
		1:  "entity.n.01",
		4:  "dog.n.01",   // first lemma "dog", first sense of "dog"
		11: "frump.n.01", // first lemma decides the name, not the "dog" sense it also is
		6:  "cat.n.02",   // second offset in index.noun's list for "cat"
		12: "cat.n.01",
		9:  "paris.n.01", // lower-cased "Paris"
		10: "left_bank.n.01",
		13: "dog_n_01.n.01",
	}
	for off, name := range want {
		if got := n.Name(off); got != name {
			t.Errorf("Name(%08d) = %q, want %q", off, got, name)
		}
	}
	dog := n.Synsets[n.ByName["dog.n.01"]]
	if !slices.Equal(dog.Words, []string{"dog", "domestic_dog", "Canis_familiaris"}) {
		t.Errorf("dog words = %v", dog.Words)
	}
	if !slices.Equal(dog.Hypernyms, []uint32{3, 5}) || len(dog.InstanceHypernyms) != 0 {
		t.Errorf("dog pointers: @ %v @i %v; the #m and + pointers must be skipped", dog.Hypernyms, dog.InstanceHypernyms)
	}
	if !strings.HasPrefix(dog.Gloss, "a member of the genus Canis") {
		t.Errorf("dog gloss = %q", dog.Gloss)
	}
	if got := n.Synsets[n.ByName["left_bank.n.01"]].InstanceHypernyms; !slices.Equal(got, []uint32{9}) {
		t.Errorf("left_bank @i = %v, want [9]", got)
	}
}

func TestNounClosureOnTinyHierarchy(t *testing.T) {
	c := NounClosure(loadTiny(t))
	// Written out by hand from testdata/tiny/data.noun.
	want := []string{
		"animal.n.01 entity.n.01",
		"cat.n.01 entity.n.01", "cat.n.01 person.n.01",
		"cat.n.02 animal.n.01", "cat.n.02 entity.n.01", "cat.n.02 mammal.n.01",
		"city.n.01 entity.n.01",
		"dog.n.01 animal.n.01", "dog.n.01 entity.n.01", "dog.n.01 mammal.n.01", "dog.n.01 pet.n.01",
		"dog_n_01.n.01 entity.n.01", "dog_n_01.n.01 person.n.01",
		"frump.n.01 entity.n.01", "frump.n.01 person.n.01",
		// The instance of an instance: "@i" is followed recursively (Paris, then city), and the
		// "@" closure of every class reached (city → entity).
		"left_bank.n.01 city.n.01", "left_bank.n.01 entity.n.01", "left_bank.n.01 paris.n.01",
		"mammal.n.01 animal.n.01", "mammal.n.01 entity.n.01",
		"paris.n.01 city.n.01", "paris.n.01 entity.n.01",
		"person.n.01 entity.n.01",
		"pet.n.01 animal.n.01", "pet.n.01 entity.n.01",
	}
	if got := pairsOf(c); !slices.Equal(got, want) {
		t.Errorf("closure:\n got %q\nwant %q", got, want)
	}
	if c.NumNodes() != 13 {
		t.Errorf("nodes = %d, want 13", c.NumNodes())
	}
	anc := c.Ancestors()
	if a := anc[c.Index()["dog.n.01"]]; a != 4 {
		t.Errorf("ancestors(dog.n.01) = %d, want 4", a)
	}
	if a := anc[c.Index()["entity.n.01"]]; a != 0 {
		t.Errorf("ancestors(entity.n.01) = %d, want 0", a)
	}
}

func TestReductionKeepsDirectLinks(t *testing.T) {
	c := NounClosure(loadTiny(t))
	var got []string
	for _, e := range c.Reduction() {
		got = append(got, c.Nodes[e.Child]+" "+c.Nodes[e.Parent])
	}
	slices.Sort(got)
	// The "@" and "@i" pointers of testdata/tiny/data.noun, by name.
	want := []string{
		"animal.n.01 entity.n.01", "cat.n.01 person.n.01", "cat.n.02 mammal.n.01",
		"city.n.01 entity.n.01", "dog.n.01 mammal.n.01", "dog.n.01 pet.n.01",
		"dog_n_01.n.01 person.n.01", "frump.n.01 person.n.01", "left_bank.n.01 paris.n.01",
		"mammal.n.01 animal.n.01", "paris.n.01 city.n.01", "person.n.01 entity.n.01", "pet.n.01 animal.n.01",
	}
	if !slices.Equal(got, want) {
		t.Errorf("reduction:\n got %q\nwant %q", got, want)
	}
}

func TestMammalClosureFollowsGrepSemantics(t *testing.T) {
	filter, err := ReadMammalFilter("testdata/tiny/mammals_filter.txt")
	if err != nil {
		t.Fatal(err)
	}
	m, err := MammalClosure(NounClosure(loadTiny(t)), filter)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"cat.n.02 mammal.n.01",
		"dog.n.01 mammal.n.01",
		// grep's "^dog.n.01" is a prefix pattern whose dots match any character, so the unrelated
		// dog_n_01.n.01 comes along — the kind of artefact behind 1,181 instead of 1,180 nodes.
		"dog_n_01.n.01 person.n.01",
	}
	if got := pairsOf(m); !slices.Equal(got, want) {
		t.Errorf("mammal closure:\n got %q\nwant %q", got, want)
	}
}

func TestParseErrorsNameFileAndLine(t *testing.T) {
	cases := []struct{ data, want string }{
		{"00000001 03 n 01 entity 0 00x | gloss\n", "bad.noun:1: field p_cnt"},
		{"  licence\n00000001 03 v 01 run 0 000 | gloss\n", `bad.noun:2: field ss_type is "v"`},
		{"00000001 03 n 02 entity 0 | gloss\n", "bad.noun:1: w_cnt says 2 words"},
		{"00000001 03 n 01 entity 0 002 @ 00000002 n 0000 | gloss\n", "bad.noun:1: p_cnt says 2 pointers"},
	}
	for _, c := range cases {
		_, err := ParseData(strings.NewReader(c.data), "bad.noun")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseData(%q) error = %v, want it to contain %q", c.data, err, c.want)
		}
	}
	if _, err := ParseIndex(strings.NewReader("dog n 2 1 @ 2 1 00000004\n"), "bad.index"); err == nil ||
		!strings.Contains(err.Error(), "bad.index:1: synset_cnt 2") {
		t.Errorf("ParseIndex short line: %v", err)
	}
	if _, err := ParseMammalFilter(strings.NewReader("\\sanimal.n.01\n\n"), "f.txt"); err == nil ||
		!strings.Contains(err.Error(), "f.txt:2: blank pattern") {
		t.Errorf("ParseMammalFilter blank line: %v", err)
	}
}

func TestTSVRoundTrip(t *testing.T) {
	c := NounClosure(loadTiny(t))
	var buf bytes.Buffer
	if err := c.WriteTSV(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadTSV(&buf, "mem")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pairsOf(back), pairsOf(c)) || !slices.Equal(back.Nodes, c.Nodes) {
		t.Error("TSV round trip changed the closure")
	}
}

// projectRoot is the module root, three levels above this package.
const projectRoot = "../../.."

// TestRealWordNetCounts checks the published sizes of the closures on Debian's WordNet 3.0
// (docs/data-sources.md §2). Skipped where wordnet-base is not installed.
func TestRealWordNetCounts(t *testing.T) {
	if _, err := os.Stat(filepath.Join(DefaultDir, "data.noun")); err != nil {
		t.Skipf("WordNet not installed (%v); apt-get install -y wordnet-base", err)
	}
	nouns, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	if got := nouns.Name(2084071); got != "dog.n.01" {
		t.Errorf("offset 02084071 is %q, want dog.n.01", got)
	}
	c := NounClosure(nouns)
	if c.NumNodes() != 82115 || c.NumEdges() != 743086 {
		t.Errorf("noun closure: %d nodes, %d edges; want 82,115 and 743,086", c.NumNodes(), c.NumEdges())
	}
	filterPath := filepath.Join(projectRoot, DefaultMammalFilter)
	if _, err := os.Stat(filterPath); err != nil {
		// Nothing staged: the copy `make data` downloads (lib/data/sources, datasets/README.md).
		filterPath = filepath.Join(projectRoot, "datasets", "cache", "sources", "wordnet", "mammals_filter.txt")
	}
	if _, err := os.Stat(filterPath); err != nil {
		t.Skipf("mammal filter neither staged nor downloaded by `make data`: %v", err)
	}
	filter, err := ReadMammalFilter(filterPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(filter) != 24 {
		t.Errorf("mammal filter has %d patterns, want the upstream 24", len(filter))
	}
	m, err := MammalClosure(c, filter)
	if err != nil {
		t.Fatal(err)
	}
	if m.NumNodes() != 1181 || m.NumEdges() != 6541 {
		t.Errorf("mammal closure: %d nodes, %d edges; want 1,181 and 6,541", m.NumNodes(), m.NumEdges())
	}
	idx := m.Index()
	for _, name := range []string{"mammal.n.01", "dog.n.01", "canine.n.02", "carnivore.n.01"} {
		if _, ok := idx[name]; !ok {
			t.Errorf("%s missing from the mammal closure", name)
		}
	}
	for _, name := range []string{"animal.n.01", "entity.n.01", "tusker.n.01"} {
		if _, ok := idx[name]; ok {
			t.Errorf("%s should have been filtered out of the mammal closure", name)
		}
	}
}

func ExampleNounClosure() {
	nouns, err := Load("testdata/tiny")
	if err != nil {
		panic(err)
	}
	c := NounClosure(nouns)
	fmt.Println(c.NumNodes(), "nodes,", c.NumEdges(), "edges")
	for _, e := range c.Edges {
		if c.Nodes[e.Child] == "dog.n.01" {
			fmt.Println("dog.n.01 is a", c.Nodes[e.Parent])
		}
	}
	// Output:
	// 13 nodes, 25 edges
	// dog.n.01 is a animal.n.01
	// dog.n.01 is a entity.n.01
	// dog.n.01 is a mammal.n.01
	// dog.n.01 is a pet.n.01
}

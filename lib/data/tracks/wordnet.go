package tracks

import (
	"os"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/data/glove"
	"github.com/geoalign/geoalign/lib/data/wordnet"
)

// WordNet track: the noun and mammal transitive closures of WordNet 3.0 (Debian wordnet-base),
// the standard hyperbolic-embedding benchmark (Nickel & Kiela 2017), written as TSV edge lists
// (wordnet.Closure.WriteTSV) so that `geoalign wordnet` and notebooks can read them without
// rebuilding. Counts are checked against docs/data-sources.md §1.
const (
	WordNetDir       = "wordnet"
	WordNetDBDir     = "/usr/share/wordnet" // Debian wordnet-base
	wordnetBuilder   = "wordnet-closures/1"
	NounClosureTSV   = "wordnet/noun_closure.tsv"
	MammalClosureTSV = "wordnet/mammal_closure.tsv"
)

// MammalFilterSource is the staged path (datasets/sources.json) of the upstream mammal filter,
// poincare-embeddings wordnet/mammals_filter.txt.
const MammalFilterSource = "wordnet/mammals_filter.txt"

// MammalFilter is the mammal filter in the staged shared data directory shared (SharedDir).
func MammalFilter(shared string) string {
	return filepath.Join(shared, filepath.FromSlash(MammalFilterSource))
}

// WordNetVocabulary adds nothing: the closures do not use GloVe.
func WordNetVocabulary(Env, map[string]bool) error { return nil }

// BuildWordNet writes the noun and mammal closures into <cache>/wordnet.
func BuildWordNet(env Env, _ *glove.Vectors, _ string) (*Manifest, error) {
	filter := env.input(MammalFilterSource)
	inputs, err := env.hashInputs([]string{
		filepath.Join(WordNetDBDir, "data.noun"), filepath.Join(WordNetDBDir, "index.noun"), filter,
	}, "Debian wordnet-base and the staged ../shared/data/wordnet")
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(env.Cache, WordNetDir)
	if m, ok := env.fresh(dir, wordnetBuilder, inputs); ok {
		return m, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	nouns, err := wordnet.Load(WordNetDBDir)
	if err != nil {
		return nil, err
	}
	nounClosure := wordnet.NounClosure(nouns)
	patterns, err := wordnet.ReadMammalFilter(filter)
	if err != nil {
		return nil, err
	}
	mammals, err := wordnet.MammalClosure(nounClosure, patterns)
	if err != nil {
		return nil, err
	}
	for rel, c := range map[string]*wordnet.Closure{NounClosureTSV: nounClosure, MammalClosureTSV: mammals} {
		if err := writeClosure(filepath.Join(env.Cache, rel), c); err != nil {
			return nil, err
		}
	}
	counts := []Count{
		{Split: "noun closure", Queries: nounClosure.NumNodes(), Items: nounClosure.NumEdges(), ItemKind: "edges", Expected: "82115/743086"},
		{Split: "mammal closure", Queries: mammals.NumNodes(), Items: mammals.NumEdges(), ItemKind: "edges", Expected: "1181/6541"},
	}
	return finish(dir, env.Cache, Manifest{Track: "wordnet", Kind: "real", Builder: wordnetBuilder, Inputs: inputs, Counts: counts,
		Provenance: "WordNet 3.0 (Princeton University; WordNet 3.0 licence) from Debian wordnet-base; closure as " +
			"facebookresearch/poincare-embeddings transitive_closure.py, mammal subset with its Makefile's grep and " +
			"mammals_filter.txt (@ 35c23220)"}, []string{NounClosureTSV, MammalClosureTSV})
}

func writeClosure(path string, c *wordnet.Closure) error {
	return atomicfile.Write(path, c.WriteTSV) // WriteTSV buffers and flushes
}

package wordnet

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/geoalign/geoalign/lib/data"
)

// MammalRoot is the synset whose hyponyms form the mammal subset.
const MammalRoot = "mammal.n.01"

// DefaultMammalFilter is the staged copy of facebookresearch/poincare-embeddings
// wordnet/mammals_filter.txt (commit 35c23220), relative to the project root.
const DefaultMammalFilter = "../shared/data/wordnet/mammals_filter.txt"

// ReadMammalFilter reads grep patterns, one per line, from path (DefaultMammalFilter when empty).
func ReadMammalFilter(path string) ([]string, error) {
	if path == "" {
		path = DefaultMammalFilter
	}
	return data.ReadFile("wordnet: mammal filter", path, ParseMammalFilter)
}

// ParseMammalFilter reads grep patterns, one per line. A blank line is an error: grep -f treats an
// empty pattern as matching every line, which would silently empty the mammal closure.
func ParseMammalFilter(r io.Reader, name string) ([]string, error) {
	sc := bufio.NewScanner(r)
	var out []string
	for lineNo := 1; sc.Scan(); lineNo++ {
		p := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(p) == "" {
			return nil, fmt.Errorf("wordnet: %s:%d: blank pattern (grep -f would match every line)", name, lineNo)
		}
		// Compiled as MammalClosure combines it, "(p)": a pattern such as \Q that quotes the
		// closing parenthesis compiles alone but would break the combination.
		if _, err := regexp.Compile("(" + p + ")"); err != nil {
			return nil, fmt.Errorf("wordnet: %s:%d: pattern %q: %w", name, lineNo, p, err)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("wordnet: reading %s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("wordnet: %s: no patterns", name)
	}
	return out, nil
}

// MammalClosure selects the mammal subset of the noun closure exactly as the upstream
// wordnet/Makefile of facebookresearch/poincare-embeddings does on noun_closure.tsv
// ("child<TAB>parent" lines), reproducing grep's semantics rather than an idealised "edges
// between mammals":
//
//	grep -e "\smammal.n.01" | cut -f1 | sed 's/\(.*\)/\^\1/g' > mammals.txt   # children of mammal.n.01
//	grep -f mammals.txt | grep -v -f mammals_filter.txt                          # prefix match, then filter
//
// The patterns are basic regular expressions: "." matches any character, so "^dog.n.01" is a
// prefix pattern in which the dots are wildcards. Parents are not restricted to mammals; the filter
// removes the generic ones (animal.n.01, organism.n.01, ...). On WordNet 3.0 this gives 1,181 nodes
// and 6,541 edges (the usually quoted 1,180 comes from the later pandas version of the script).
func MammalClosure(nouns *Closure, filter []string) (*Closure, error) {
	if len(filter) == 0 {
		return nil, fmt.Errorf("wordnet: empty mammal filter")
	}
	drop, err := regexp.Compile("(" + strings.Join(filter, ")|(") + ")")
	if err != nil {
		return nil, fmt.Errorf("wordnet: mammal filter: %w", err)
	}
	lines := make([]string, len(nouns.Edges))
	for i, e := range nouns.Edges {
		lines[i] = nouns.Nodes[e.Child] + "\t" + nouns.Nodes[e.Parent]
	}

	// Step 1: grep -e "\smammal.n.01" | cut -f1.
	// Children never contain whitespace, so "\s" can only be the tab and the pattern matches
	// exactly when the parent starts with the wildcard pattern "mammal.n.01".
	var mammals []string
	seen := map[string]bool{}
	for _, e := range nouns.Edges {
		child := nouns.Nodes[e.Child]
		if wildcardHasPrefix(nouns.Nodes[e.Parent], MammalRoot) && !seen[child] {
			seen[child] = true
			mammals = append(mammals, child)
		}
	}
	if len(mammals) == 0 {
		return nil, fmt.Errorf("wordnet: no synset has %s as hypernym", MammalRoot)
	}

	// Step 2: grep -f mammals.txt (every pattern "^name"), step 3: grep -v -f mammals_filter.txt.
	prefixes := newWildcardPrefixSet(mammals)
	pairs := map[[2]string]struct{}{}
	for _, l := range lines {
		if !prefixes.matchesPrefixOf(l) || drop.MatchString(l) {
			continue
		}
		child, parent, _ := strings.Cut(l, "\t")
		pairs[[2]string{child, parent}] = struct{}{}
	}
	return newClosure(pairs), nil
}

// wildcardPrefixSet answers "does the line start with one of the patterns", where "." in a pattern
// matches any single byte (WordNet 3.0 names are ASCII, so bytes are characters). It is the
// semantics of grep -f with patterns "^name", bucketed by first byte so that checking the 743,086
// closure lines against ~1,200 patterns takes milliseconds instead of one big alternation.
type wildcardPrefixSet struct {
	byFirst  map[byte][]string
	wildHead []string // patterns starting with "." match any first byte
}

func newWildcardPrefixSet(patterns []string) *wildcardPrefixSet {
	s := &wildcardPrefixSet{byFirst: map[byte][]string{}}
	for _, p := range patterns {
		if p == "" {
			continue
		}
		if p[0] == '.' {
			s.wildHead = append(s.wildHead, p)
		} else {
			s.byFirst[p[0]] = append(s.byFirst[p[0]], p)
		}
	}
	return s
}

func (s *wildcardPrefixSet) matchesPrefixOf(line string) bool {
	if line == "" {
		return false
	}
	for _, list := range [][]string{s.byFirst[line[0]], s.wildHead} {
		for _, p := range list {
			if wildcardHasPrefix(line, p) {
				return true
			}
		}
	}
	return false
}

func wildcardHasPrefix(line, p string) bool {
	if len(line) < len(p) {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] != '.' && p[i] != line[i] {
			return false
		}
	}
	return true
}

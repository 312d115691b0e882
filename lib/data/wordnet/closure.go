package wordnet

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// Edge is one pair of a transitive closure: Child is-a Parent, as indices into Closure.Nodes.
type Edge struct {
	Child, Parent int32
}

// Closure is a transitive closure of an is-a hierarchy: nodes sorted by name, edges sorted by
// (Child, Parent), each pair once.
type Closure struct {
	Nodes []string
	Edges []Edge
}

// NumNodes and NumEdges are the sizes quoted in the papers.
func (c *Closure) NumNodes() int { return len(c.Nodes) }
func (c *Closure) NumEdges() int { return len(c.Edges) }

// Index maps node names to their index.
func (c *Closure) Index() map[string]int32 {
	m := make(map[string]int32, len(c.Nodes))
	for i, n := range c.Nodes {
		m[n] = int32(i)
	}
	return m
}

// Ancestors returns, for every node, the number of its ancestors in the closure (its out-degree).
// In a tree this is the node's depth below the root; in WordNet's DAG it is the size of the
// hypernym cone, the natural "how specific is this concept" measure for the norm-vs-depth plot.
func (c *Closure) Ancestors() []int {
	out := make([]int, len(c.Nodes))
	for _, e := range c.Edges {
		out[e.Child]++
	}
	return out
}

// newClosure turns a set of named pairs into a Closure with sorted nodes and edges.
func newClosure(pairs map[[2]string]struct{}) *Closure {
	seen := map[string]struct{}{}
	for p := range pairs {
		seen[p[0]], seen[p[1]] = struct{}{}, struct{}{}
	}
	c := &Closure{Nodes: make([]string, 0, len(seen))}
	for n := range seen {
		c.Nodes = append(c.Nodes, n)
	}
	sort.Strings(c.Nodes)
	idx := c.Index()
	c.Edges = make([]Edge, 0, len(pairs))
	for p := range pairs {
		c.Edges = append(c.Edges, Edge{Child: idx[p[0]], Parent: idx[p[1]]})
	}
	sortEdges(c.Edges)
	return c
}

func sortEdges(e []Edge) {
	slices.SortFunc(e, func(a, b Edge) int {
		if a.Child != b.Child {
			return int(a.Child - b.Child)
		}
		return int(a.Parent - b.Parent)
	})
}

// NounClosure builds the transitive closure of the noun hierarchy as
// facebookresearch/poincare-embeddings wordnet/transitive_closure.py does with NLTK:
//
//  1. for every synset s, an edge (s, h) for every h in the closure of s over "@" (hypernym) pointers;
//  2. for every instance i (a synset with "@i" pointers), the closure C of i over "@i" pointers —
//     recursively, because some instance classes are themselves instances (following only one level
//     loses 468 of the 743,086 edges) — and edges (i, c) and (i, h) for c in C and h in the "@"
//     closure of c.
func NounClosure(n *Nouns) *Closure {
	ns := len(n.Synsets)
	hyper := make([][]int32, ns)     // "@" targets as synset indices
	instHyper := make([][]int32, ns) // "@i" targets
	for i, s := range n.Synsets {
		for _, t := range s.Hypernyms {
			hyper[i] = append(hyper[i], int32(n.ByOffset[t]))
		}
		for _, t := range s.InstanceHypernyms {
			instHyper[i] = append(instHyper[i], int32(n.ByOffset[t]))
		}
	}
	hyperClosure := newClosureMemo(hyper)
	instClosure := newClosureMemo(instHyper)

	pairs := map[[2]int32]struct{}{}
	for i := range ns {
		s := int32(i)
		for _, h := range hyperClosure.of(s) {
			pairs[[2]int32{s, h}] = struct{}{}
		}
		if len(instHyper[i]) == 0 {
			continue
		}
		for _, c := range instClosure.of(s) {
			pairs[[2]int32{s, c}] = struct{}{}
			for _, h := range hyperClosure.of(c) {
				pairs[[2]int32{s, h}] = struct{}{}
			}
		}
	}
	named := make(map[[2]string]struct{}, len(pairs))
	for p := range pairs {
		named[[2]string{n.Names[p[0]], n.Names[p[1]]}] = struct{}{}
	}
	return newClosure(named)
}

// closureMemo computes the transitive closure of a pointer relation with memoisation.
type closureMemo struct {
	next [][]int32
	memo map[int32][]int32
}

func newClosureMemo(next [][]int32) *closureMemo {
	return &closureMemo{next: next, memo: map[int32][]int32{}}
}

// of returns every node reachable from s in one or more steps, sorted, without s itself.
// WordNet's hypernym graph is acyclic, so the recursion terminates.
func (m *closureMemo) of(s int32) []int32 {
	if r, ok := m.memo[s]; ok {
		return r
	}
	set := map[int32]struct{}{}
	for _, t := range m.next[s] {
		set[t] = struct{}{}
		for _, u := range m.of(t) {
			set[u] = struct{}{}
		}
	}
	r := make([]int32, 0, len(set))
	for u := range set {
		r = append(r, u)
	}
	slices.Sort(r)
	m.memo[s] = r
	return r
}

// WriteTSV writes the closure as "child<TAB>parent" lines, the format of the upstream
// noun_closure.tsv / mammal_closure.tsv.
func (c *Closure) WriteTSV(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, e := range c.Edges {
		if _, err := fmt.Fprintf(bw, "%s\t%s\n", c.Nodes[e.Child], c.Nodes[e.Parent]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadTSV reads "child<TAB>parent" lines (as written by WriteTSV); name is used in errors.
func ReadTSV(r io.Reader, name string) (*Closure, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxLineBytes)
	pairs := map[[2]string]struct{}{}
	for lineNo := 1; sc.Scan(); lineNo++ {
		line := sc.Text()
		if line == "" {
			continue
		}
		child, parent, ok := strings.Cut(line, "\t")
		if !ok || !isNodeName(child) || !isNodeName(parent) {
			return nil, fmt.Errorf("wordnet: %s:%d: want \"child<TAB>parent\" (names without spaces or control characters), got %q", name, lineNo, line)
		}
		pairs[[2]string{child, parent}] = struct{}{}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("wordnet: reading %s: %w", name, err)
	}
	return newClosure(pairs), nil
}

// isNodeName reports whether s can be a node of a closure file: non-empty, without white space
// or control characters (WordNet's NLTK names are lemma.n.NN; a "\r" would not survive a
// write/read round trip, since line reading drops it).
func isNodeName(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
}

// Reduction returns the transitive reduction of the closure: the edges (u, v) with no w such that
// (u, w) and (w, v) are both in the closure — the direct is-a links, for drawing the hierarchy.
func (c *Closure) Reduction() []Edge {
	parents := make([][]int32, len(c.Nodes))
	for _, e := range c.Edges {
		parents[e.Child] = append(parents[e.Child], e.Parent)
	}
	for _, p := range parents {
		slices.Sort(p)
	}
	var out []Edge
	for _, e := range c.Edges {
		direct := true
		for _, w := range parents[e.Child] {
			if _, ok := slices.BinarySearch(parents[w], e.Parent); ok {
				direct = false
				break
			}
		}
		if direct {
			out = append(out, e)
		}
	}
	return out
}

package wordnet

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// DefaultDir is where Debian's wordnet-base package installs the WordNet 3.0 database.
const DefaultDir = "/usr/share/wordnet"

// Pointer symbols of noun synsets that the closures follow (man 5 wnsearch / wndb).
const (
	hypernymSymbol         = "@"
	instanceHypernymSymbol = "@i"
)

// maxLineBytes bounds one line of data.noun or index.noun. The longest data.noun line of
// WordNet 3.0 is about 13 kB (a synset with hundreds of pointers); 1 MiB leaves ample room.
const maxLineBytes = 1 << 20

// Synset is one noun synset of data.noun: the fields the closures and figures need.
type Synset struct {
	Offset            uint32   // byte offset in data.noun, the synset's identifier (e.g. 2084071 for dog.n.01)
	LexFile           int      // lexicographer file number (05 = noun.animal)
	Words             []string // lemmas as written in data.noun, in order ("dog", "domestic_dog", "Canis_familiaris")
	Hypernyms         []uint32 // targets of "@" pointers (class hypernyms)
	InstanceHypernyms []uint32 // targets of "@i" pointers (the classes an instance belongs to)
	Gloss             string   // definition and examples, after "| "
}

// Nouns is the parsed noun database with NLTK-style names.
type Nouns struct {
	Synsets  []Synset            // in data.noun order (ascending offset)
	Names    []string            // Names[i] is the NLTK name of Synsets[i], e.g. "dog.n.01"
	ByOffset map[uint32]int      // offset → index into Synsets
	ByName   map[string]int      // NLTK name → index into Synsets
	Senses   map[string][]uint32 // index.noun: lemma → synset offsets in sense order
}

// Load reads data.noun and index.noun from dir (DefaultDir when empty) and names every synset.
func Load(dir string) (*Nouns, error) {
	if dir == "" {
		dir = DefaultDir
	}
	dataPath, indexPath := filepath.Join(dir, "data.noun"), filepath.Join(dir, "index.noun")
	df, err := os.Open(dataPath)
	if err != nil {
		return nil, fmt.Errorf("wordnet: %w (install Debian's wordnet-base: apt-get install -y wordnet-base)", err)
	}
	defer df.Close()
	xf, err := os.Open(indexPath)
	if err != nil {
		return nil, fmt.Errorf("wordnet: %w", err)
	}
	defer xf.Close()
	return Read(df, dataPath, xf, indexPath)
}

// Read parses a data.noun and an index.noun stream (named dataName and indexName in errors) and
// names every synset. Any content gives Nouns whose hypernym graphs are acyclic (so NounClosure
// terminates) or an error naming the file and line, never a panic (FuzzRead).
func Read(data io.Reader, dataName string, index io.Reader, indexName string) (*Nouns, error) {
	synsets, err := ParseData(data, dataName)
	if err != nil {
		return nil, err
	}
	senses, err := ParseIndex(index, indexName)
	if err != nil {
		return nil, err
	}
	return newNouns(synsets, senses, dataName, indexName)
}

// newNouns indexes the synsets and gives each its NLTK name; dataName and indexName name the
// files in errors.
func newNouns(synsets []Synset, senses map[string][]uint32, dataName, indexName string) (*Nouns, error) {
	n := &Nouns{
		Synsets:  synsets,
		Names:    make([]string, len(synsets)),
		ByOffset: make(map[uint32]int, len(synsets)),
		ByName:   make(map[string]int, len(synsets)),
		Senses:   senses,
	}
	for i, s := range synsets {
		if _, dup := n.ByOffset[s.Offset]; dup {
			return nil, fmt.Errorf("wordnet: %s: synset offset %08d appears twice", dataName, s.Offset)
		}
		n.ByOffset[s.Offset] = i
	}
	for i, s := range synsets {
		name, err := nltkName(s, senses)
		if err != nil {
			return nil, fmt.Errorf("wordnet: %s and %s: %w", dataName, indexName, err)
		}
		if j, dup := n.ByName[name]; dup {
			return nil, fmt.Errorf("wordnet: %s and %s: synsets %08d and %08d both get the name %q", dataName, indexName, synsets[j].Offset, s.Offset, name)
		}
		n.Names[i], n.ByName[name] = name, i
	}
	for _, s := range synsets {
		for _, list := range [][]uint32{s.Hypernyms, s.InstanceHypernyms} {
			for _, t := range list {
				if _, ok := n.ByOffset[t]; !ok {
					return nil, fmt.Errorf("wordnet: %s: synset %08d points to %08d, which is not in the file", dataName, s.Offset, t)
				}
			}
		}
	}
	if err := n.checkAcyclic(hypernymSymbol, func(s Synset) []uint32 { return s.Hypernyms }); err != nil {
		return nil, fmt.Errorf("wordnet: %s: %w", dataName, err)
	}
	if err := n.checkAcyclic(instanceHypernymSymbol, func(s Synset) []uint32 { return s.InstanceHypernyms }); err != nil {
		return nil, fmt.Errorf("wordnet: %s: %w", dataName, err)
	}
	return n, nil
}

// checkAcyclic reports a cycle of the pointers (symbol) that targets selects: WordNet's hypernym
// graphs are acyclic, and NounClosure's recursion relies on it. Depth-first search with an
// explicit stack, so that a long chain cannot overflow the goroutine stack either.
func (n *Nouns) checkAcyclic(symbol string, targets func(Synset) []uint32) error {
	const (
		unvisited = iota
		onPath
		done
	)
	state := make([]byte, len(n.Synsets))
	type frame struct{ node, next int }
	for root := range n.Synsets {
		if state[root] != unvisited {
			continue
		}
		stack := []frame{{root, 0}}
		state[root] = onPath
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			ts := targets(n.Synsets[top.node])
			if top.next == len(ts) {
				state[top.node] = done
				stack = stack[:len(stack)-1]
				continue
			}
			t := n.ByOffset[ts[top.next]]
			top.next++
			switch state[t] {
			case onPath:
				return fmt.Errorf("synset %08d is its own ancestor through %q pointers (a cycle)", n.Synsets[t].Offset, symbol)
			case unvisited:
				state[t] = onPath
				stack = append(stack, frame{t, 0})
			}
		}
	}
	return nil
}

// nltkName is NLTK's synset name: the lower-cased first lemma, ".n.", and the two-digit 1-based
// position of the synset among that lemma's senses in index.noun (nltk/corpus/reader/wordnet.py,
// _synset_from_pos_and_line).
func nltkName(s Synset, senses map[string][]uint32) (string, error) {
	if len(s.Words) == 0 {
		return "", fmt.Errorf("synset %08d has no words", s.Offset)
	}
	lemma := strings.ToLower(s.Words[0])
	for k, off := range senses[lemma] {
		if off == s.Offset {
			return fmt.Sprintf("%s.n.%02d", lemma, k+1), nil
		}
	}
	return "", fmt.Errorf("synset %08d is not among the senses of %q in the index", s.Offset, lemma)
}

// Name returns the NLTK name of the synset at offset, or "" if there is none.
func (n *Nouns) Name(offset uint32) string {
	if i, ok := n.ByOffset[offset]; ok {
		return n.Names[i]
	}
	return ""
}

// isLicenceLine reports whether a wndb line belongs to the licence header (it starts with two spaces).
func isLicenceLine(line string) bool { return strings.HasPrefix(line, "  ") }

// ParseData parses a data.noun stream (man 5 wndb). Each synset line is
//
//	offset lex_filenum ss_type w_cnt word lex_id [word lex_id...] p_cnt [ptr...] | gloss
//
// with w_cnt a 2-digit hex number, lex_id 1 hex digit, p_cnt 3 decimal digits and each pointer
// "symbol offset pos source/target". Only noun synsets ("n") are accepted. name is used in errors.
func ParseData(r io.Reader, name string) ([]Synset, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxLineBytes)
	var out []Synset
	for lineNo := 1; sc.Scan(); lineNo++ {
		line := sc.Text()
		if isLicenceLine(line) || strings.TrimSpace(line) == "" {
			continue
		}
		s, err := parseDataLine(line)
		if err != nil {
			return nil, fmt.Errorf("wordnet: %s:%d: %w", name, lineNo, err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("wordnet: reading %s: %w", name, err)
	}
	return out, nil
}

func parseDataLine(line string) (Synset, error) {
	var s Synset
	body, gloss, _ := strings.Cut(line, "|")
	s.Gloss = strings.TrimSpace(gloss)
	f := strings.Fields(body)
	if len(f) < 4 {
		return s, fmt.Errorf("synset line has %d fields before the gloss, want at least 4", len(f))
	}
	off, err := strconv.ParseUint(f[0], 10, 32)
	if err != nil {
		return s, fmt.Errorf("field synset_offset %q: %w", f[0], err)
	}
	s.Offset = uint32(off)
	if s.LexFile, err = strconv.Atoi(f[1]); err != nil {
		return s, fmt.Errorf("field lex_filenum %q: %w", f[1], err)
	}
	if f[2] != "n" {
		return s, fmt.Errorf("field ss_type is %q, want \"n\" (this reader handles data.noun only)", f[2])
	}
	wCnt, err := strconv.ParseUint(f[3], 16, 8)
	if err != nil {
		return s, fmt.Errorf("field w_cnt %q (2 hex digits): %w", f[3], err)
	}
	if wCnt == 0 {
		return s, fmt.Errorf("field w_cnt is 0: a synset has at least one word")
	}
	pos := 4
	if len(f) < pos+2*int(wCnt)+1 {
		return s, fmt.Errorf("w_cnt says %d words but the line is too short", wCnt)
	}
	for k := 0; k < int(wCnt); k++ {
		s.Words = append(s.Words, f[pos])
		pos += 2 // word, lex_id
	}
	pCnt, err := strconv.ParseUint(f[pos], 10, 16) // 3 decimal digits in WordNet
	if err != nil {
		return s, fmt.Errorf("field p_cnt %q: %w", f[pos], err)
	}
	pos++
	if len(f) < pos+4*int(pCnt) {
		return s, fmt.Errorf("p_cnt says %d pointers but only %d fields follow", pCnt, len(f)-pos)
	}
	for k := 0; k < int(pCnt); k++ {
		symbol, target, tpos := f[pos], f[pos+1], f[pos+2]
		pos += 4
		if tpos != "n" || (symbol != hypernymSymbol && symbol != instanceHypernymSymbol) {
			continue
		}
		t, err := strconv.ParseUint(target, 10, 32)
		if err != nil {
			return s, fmt.Errorf("pointer %d target offset %q: %w", k+1, target, err)
		}
		if symbol == hypernymSymbol {
			s.Hypernyms = append(s.Hypernyms, uint32(t))
		} else {
			s.InstanceHypernyms = append(s.InstanceHypernyms, uint32(t))
		}
	}
	return s, nil
}

// ParseIndex parses an index.noun stream (man 5 wndb): each line is
//
//	lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
//
// and the result maps each lemma to its synset offsets in sense order. name is used in errors.
func ParseIndex(r io.Reader, name string) (map[string][]uint32, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxLineBytes)
	out := map[string][]uint32{}
	for lineNo := 1; sc.Scan(); lineNo++ {
		line := sc.Text()
		if isLicenceLine(line) || strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 {
			return nil, fmt.Errorf("wordnet: %s:%d: index line has %d fields, want at least 4", name, lineNo, len(f))
		}
		// Counts are non-negative and bounded (ParseUint, 16 bits), so the arithmetic below
		// cannot overflow or make a negative length.
		synsetCnt, err := strconv.ParseUint(f[2], 10, 16)
		if err != nil {
			return nil, fmt.Errorf("wordnet: %s:%d: field synset_cnt %q: %w", name, lineNo, f[2], err)
		}
		pCnt, err := strconv.ParseUint(f[3], 10, 16)
		if err != nil {
			return nil, fmt.Errorf("wordnet: %s:%d: field p_cnt %q: %w", name, lineNo, f[3], err)
		}
		first := 4 + int(pCnt) + 2 // skip the pointer symbols, sense_cnt and tagsense_cnt
		if len(f) != first+int(synsetCnt) {
			return nil, fmt.Errorf("wordnet: %s:%d: synset_cnt %d and p_cnt %d imply %d fields, line has %d",
				name, lineNo, synsetCnt, pCnt, first+int(synsetCnt), len(f))
		}
		offs := make([]uint32, synsetCnt)
		for k := range offs {
			v, err := strconv.ParseUint(f[first+k], 10, 32)
			if err != nil {
				return nil, fmt.Errorf("wordnet: %s:%d: synset offset %q: %w", name, lineNo, f[first+k], err)
			}
			offs[k] = uint32(v)
		}
		if _, dup := out[f[0]]; dup {
			return nil, fmt.Errorf("wordnet: %s:%d: lemma %q appears twice", name, lineNo, f[0])
		}
		out[f[0]] = offs
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("wordnet: reading %s: %w", name, err)
	}
	return out, nil
}

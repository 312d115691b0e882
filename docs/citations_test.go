package docs

import (
	"encoding/json"
	"fmt"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the module root, one level above this package.
const repoRoot = ".."

// sectionID is a section number as the documents' headings write it after "§": 3, 3.4, 3.4(a).
const sectionID = `\d+(?:\.\d+)*(?:\([a-z]\))?`

var (
	// docCitation is a citation of a document of this package: "docs/official-code.md".
	docCitation = regexp.MustCompile(`docs/([A-Za-z0-9_-]+\.md)`)
	// firstSection is the section right after a citation: " §3.2".
	firstSection = regexp.MustCompile(`^\s+§(` + sectionID + `)`)
	// nextSection continues a list or range of sections: ", §3.6", " and §1.7", "–§4.2", "–3.4(a)".
	nextSection = regexp.MustCompile(`^(?:\s*,\s*§|\s+and\s+§|–§?|-§)(` + sectionID + `)`)
	// heading is a section heading of a document: "### §3.2 Model".
	heading = regexp.MustCompile(`^#+\s+§(` + sectionID + `)\s`)
	// researchNote is a bare name of one of the research notes outside the repository.
	researchNote = regexp.MustCompile(`(?:^|[^\w/-])((?:data|toolchain|pypi)\.md)`)
)

// forbidden are the citations of documents outside the repository. "../shared/data" alone is not one:
// it is where `make data` reads the staged data from ($GEOALIGN_SHARED), a run-time default that
// comments may name; the documents beside that data are not in the repository and may not be cited.
var forbidden = []string{
	"spec §",
	"official-code spec",
	"shared/spec/",
	"shared/research/",
	"shared/papers/",
	"shared/design/",
	"shared/data/README",
}

// sections reads the "§" headings of every document of this package: file name → section → true.
func sections(t *testing.T) map[string]map[string]bool {
	t.Helper()
	files, err := filepath.Glob("*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no documents in docs/ (%v)", err)
	}
	out := map[string]map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = map[string]bool{}
		for _, line := range strings.Split(string(b), "\n") {
			if m := heading.FindStringSubmatch(line); m != nil {
				out[f][m[1]] = true
			}
		}
	}
	return out
}

// checkText returns a message for every citation in text (a comment, or a document's prose) that
// does not resolve inside the repository.
func checkText(text string, secs map[string]map[string]bool) []string {
	var bad []string
	for _, f := range forbidden {
		if strings.Contains(text, f) {
			bad = append(bad, fmt.Sprintf("cites %q, outside the repository", f))
		}
	}
	for rest := text; ; {
		i := strings.Index(rest, "../shared")
		if i < 0 {
			break
		}
		if !strings.HasPrefix(rest[i:], "../shared/data") {
			bad = append(bad, "cites ../shared (outside the repository) for something other than the staged data")
		}
		rest = rest[i+len("../shared"):]
	}
	for _, m := range researchNote.FindAllStringSubmatch(text, -1) {
		bad = append(bad, fmt.Sprintf("cites the research note %s, which is not in the repository (docs/ holds its facts)", m[1]))
	}
	for _, loc := range docCitation.FindAllStringSubmatchIndex(text, -1) {
		name := text[loc[2]:loc[3]]
		have, ok := secs[name]
		if !ok {
			bad = append(bad, fmt.Sprintf("cites docs/%s, which does not exist", name))
			continue
		}
		rest := text[loc[1]:]
		m := firstSection.FindStringSubmatchIndex(rest)
		for m != nil {
			if id := rest[m[2]:m[3]]; !have[id] {
				bad = append(bad, fmt.Sprintf("cites docs/%s §%s, which has no such section heading", name, id))
			}
			rest = rest[m[1]:]
			m = nextSection.FindStringSubmatchIndex(rest)
		}
	}
	return bad
}

// goComments returns the comments of a Go source file with the line each starts on.
func goComments(t *testing.T, path string) map[int]string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	file := fset.AddFile(path, -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, scanner.ScanComments)
	out := map[int]string{}
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.COMMENT {
			line := fset.Position(pos).Line
			// Consecutive line comments are one paragraph: a citation may wrap onto the next line.
			if prev, ok := out[line-1]; ok && strings.HasPrefix(lit, "//") {
				delete(out, line-1)
				out[line] = prev + "\n" + strings.TrimPrefix(lit, "//")
				continue
			}
			out[line] = strings.TrimPrefix(lit, "//")
		}
	}
}

// TestGoCommentsCiteInsideRepository walks every Go file under lib/ and kernel/ and checks each
// comment: no citation of a document outside the repository (../shared/spec, ../shared/research,
// ../shared/papers, "spec §"), and every "docs/<name>.md §X" names an existing document and a
// section heading it has.
func TestGoCommentsCiteInsideRepository(t *testing.T) {
	secs := sections(t)
	n := 0
	for _, dir := range []string{"lib", "kernel"} {
		err := filepath.WalkDir(filepath.Join(repoRoot, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") {
				return nil
			}
			n++
			for line, c := range goComments(t, path) {
				for _, msg := range checkText(c, secs) {
					t.Errorf("%s: comment ending on line %d %s", path, line, msg)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n < 100 {
		t.Fatalf("walked only %d Go files under lib/ and kernel/: wrong root?", n)
	}
}

// TestDocumentsCiteInsideRepository checks the hand-written documents and the notebooks' markdown
// cells the same way (the generated tables under figures/ are checked where their text is written,
// not here).
func TestDocumentsCiteInsideRepository(t *testing.T) {
	secs := sections(t)
	docs := []string{"README.md", "datasets/README.md", "kernel/README.md", "figures/REPORT.head.md",
		"figures/REPORT.limits.md", "figures/wordnet/README.md"}
	more, err := filepath.Glob(filepath.Join(repoRoot, "lib", "*", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range more {
		rel, _ := filepath.Rel(repoRoot, m)
		docs = append(docs, rel)
	}
	for _, d := range docs {
		b, err := os.ReadFile(filepath.Join(repoRoot, d))
		if err != nil {
			t.Fatal(err)
		}
		for _, msg := range checkText(string(b), secs) {
			t.Errorf("%s %s", d, msg)
		}
	}
	for _, d := range []string{"official-code.md", "toolchain.md", "data-sources.md"} {
		if _, ok := secs[d]; !ok {
			t.Errorf("docs/%s is missing", d)
		}
	}

	notebooks, err := filepath.Glob(filepath.Join(repoRoot, "notebooks", "*.ipynb"))
	if err != nil || len(notebooks) == 0 {
		t.Fatalf("no notebooks found (%v)", err)
	}
	for _, path := range notebooks {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var nb struct {
			Cells []struct {
				CellType string   `json:"cell_type"`
				Source   []string `json:"source"`
			} `json:"cells"`
		}
		if err := json.Unmarshal(b, &nb); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for i, c := range nb.Cells {
			if c.CellType != "markdown" {
				continue
			}
			for _, msg := range checkText(strings.Join(c.Source, ""), secs) {
				t.Errorf("%s: markdown cell %d %s", path, i, msg)
			}
		}
	}
}

// TestCheckText makes sure the checks can fail: each citation below is one the tests above must reject
// or accept.
func TestCheckText(t *testing.T) {
	secs := map[string]map[string]bool{
		"official-code.md": {"1": true, "1.6": true, "3.4(a)": true, "4.1": true, "4.2": true},
		"data-sources.md":  {"1": true},
	}
	for _, c := range []struct {
		text string
		bad  int
	}{
		{"GRAM protocol (docs/official-code.md §1.6)", 0},
		{"docs/official-code.md §4.1–§4.2 and §3.4(a)", 0},
		{"docs/official-code.md §4.1–4.2, §1", 0},
		{"docs/official-code.md §3.5, 100 epochs", 1},
		{"docs/official-code.md §1.6, §9.9", 1},
		{"docs/missing.md §1", 1},
		{"as the code does (spec §1.2)", 1},
		{"official-code spec §3.1", 2},
		{"see ../shared/spec/official-code.md", 2},
		{"../shared/research/data.md §2.1", 2},
		{"(../shared/papers/gare.txt)", 2},
		{"checked against data.md", 1},
		{"docs/data-sources.md §1 and toolchain.md", 1},
		{"read from $GEOALIGN_SHARED, else ../shared/data/charades", 0},
		{"../shared/data/README.md names it", 1},
	} {
		if got := checkText(c.text, secs); len(got) != c.bad {
			t.Errorf("%q: %d findings %q, want %d", c.text, len(got), got, c.bad)
		}
	}
}

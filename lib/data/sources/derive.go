package sources

import (
	"fmt"
	"regexp"
	"strings"
)

// Derivations are the rules by which a file with no upstream copy of its own is written from the
// upstream file at its URL (File.Derive). A mirror serves the derived file itself at <mirror>/<path>,
// so no rule applies there.
var Derivations = map[string]struct {
	Doc   string
	Apply func(upstream []byte) ([]byte, error)
}{
	PythonDictToTSV: {
		Doc: `the "key": "value" lines of a Python dict literal, in order, written as key<TAB>value lines`,
		Apply: func(src []byte) ([]byte, error) {
			var b strings.Builder
			for _, m := range pythonDictEntry.FindAllStringSubmatch(string(src), -1) {
				b.WriteString(m[1] + "\t" + m[2] + "\n")
			}
			if b.Len() == 0 {
				return nil, fmt.Errorf(`no "key": "value" line`)
			}
			return []byte(b.String()), nil
		},
	},
}

// PythonDictToTSV is the derivation of charades/classes.tsv from the class list of
// omarorajain/Hugging-Face-Dataset-Charades classes.py (datasets/README.md, Sources).
const PythonDictToTSV = "python-dict-to-tsv"

// pythonDictEntry is one `"key": "value",` line of a dict literal (no escaped quotes inside).
var pythonDictEntry = regexp.MustCompile(`(?m)^\s*"([^"\\]*)":\s*"([^"\\]*)",?\s*$`)

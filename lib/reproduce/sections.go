package reproduce

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/geoalign/geoalign/lib/atomicfile"
)

// A paper's figures are a sequence of named sections (Experiment.Sections: "table1", "table2",
// "wordnet-cone", …). Options.Sections runs some of them: at the full configuration the sections of
// one paper can take hours, and a researcher who needs Table 1 now — or a session that must commit
// what has finished — renders those and leaves the rest pending. The pending sections are written
// to <paper>/pending.json (SavePending) and REPORT.md names them; the claims of a partial run form
// their own, smaller Holm family, so its outcomes are provisional: adding the pending claims can
// only raise the adjusted p-values.

// Wants reports whether the figures function runs section: always when Options.Sections is empty,
// else when it names section.
func (o Options) Wants(section string) bool {
	return len(o.Sections) == 0 || slices.Contains(o.Sections, section)
}

// Skipped lists the sections (a paper's Experiment.Sections) that o does not run, in their order.
func (o Options) Skipped(sections []string) []string {
	var out []string
	for _, s := range sections {
		if !o.Wants(s) {
			out = append(out, s)
		}
	}
	return out
}

// CheckSections returns an error naming every section of selected that none of papers declares in
// its Experiment.Sections (with the sections each paper has), or nil. papers must be registered.
func CheckSections(papers, selected []string) error {
	return checkSections(papers, selected, func(e Experiment) []string { return e.Sections })
}

// CheckDataSections is CheckSections for a run on a researcher's feature directory (Options.Data):
// the sections of Experiment.DataSections.
func CheckDataSections(papers, selected []string) error {
	return checkSections(papers, selected, func(e Experiment) []string { return e.DataSections })
}

func checkSections(papers, selected []string, of func(Experiment) []string) error {
	known := map[string]bool{}
	var lists []string
	for _, p := range papers {
		e, err := Lookup(p)
		if err != nil {
			return err
		}
		for _, s := range of(e) {
			known[s] = true
		}
		if len(of(e)) > 0 {
			lists = append(lists, p+": "+strings.Join(of(e), ", "))
		} else {
			lists = append(lists, p+": (no sections: all or nothing)")
		}
	}
	var bad []string
	for _, s := range selected {
		if !known[s] {
			bad = append(bad, fmt.Sprintf("%q", s))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("unknown section %s (known: %s)", strings.Join(bad, ", "), strings.Join(lists, "; "))
	}
	return nil
}

// pendingFile is the name of a paper's list of sections not run (SavePending).
const pendingFile = "pending.json"

// Pending is a paper whose claims are not all in a report: Sections are the sections that have not
// been run (empty: none of them, the paper has no claims.json at all).
type Pending struct {
	Paper    string   `json:"paper"`
	Sections []string `json:"sections,omitempty"`
}

// SavePending records in <dir>/pending.json that the sections skipped of paper were not run by the
// figures function that wrote <dir>/claims.json, or removes that file when skipped is empty (a
// complete run). Written atomically.
func SavePending(dir, paper string, skipped []string) error {
	path := filepath.Join(dir, pendingFile)
	if len(skipped) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	b, err := json.MarshalIndent(Pending{Paper: paper, Sections: skipped}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'), 0o644)
}

// LoadPending reads every <root>/*/pending.json (ReadPending), ordered by directory.
func LoadPending(root string) ([]Pending, error) {
	files, err := filepath.Glob(filepath.Join(root, "*", pendingFile))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []Pending
	for _, f := range files {
		p, err := ReadPending(filepath.Dir(f))
		if err != nil {
			return nil, err
		}
		out = append(out, *p)
	}
	return out, nil
}

// ReadPending reads <dir>/pending.json (SavePending): nil without error when there is none (the run
// that wrote <dir> was complete). A file that cannot be read or names no section is an error naming it.
func ReadPending(dir string) (*Pending, error) {
	f := filepath.Join(dir, pendingFile)
	b, err := os.ReadFile(f)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var p Pending
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", f, err)
	}
	if p.Paper == "" || len(p.Sections) == 0 {
		return nil, fmt.Errorf("%s: field \"paper\" or \"sections\" is empty", f)
	}
	return &p, nil
}

package report

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Disagreement is one cell of a re-run table that does not agree with the committed table.
type Disagreement struct {
	File      string // the table's file, relative to the compared directories
	Row       string // the row's first cell
	Column    string
	Committed string // the committed cell
	Rerun     string // the re-run's cell
	Why       string
}

func (d Disagreement) String() string {
	return fmt.Sprintf("%s: %s / %s: committed %q, re-run %q (%s)", d.File, d.Row, d.Column, d.Committed, d.Rerun, d.Why)
}

// Comparison is the outcome of CompareDirs: how many cells were compared and which disagree.
type Comparison struct {
	Tables, Cells int
	Disagreements []Disagreement
}

// cellNumber matches a numeric cell: "54.63", "54.63 ± 6.88", "−0.5" (the optional ± part in group 3).
var cellNumber = regexp.MustCompile(`^([+-]?[0-9]+(?:\.([0-9]+))?)(?: ± ([0-9]+(?:\.[0-9]+)?))?$`)

// parseCell reads a numeric cell: its mean (or value), its std (0 when single-valued, ok false
// when not a number) and one unit of its last printed digit.
func parseCell(s string) (mean, std, unit float64, hasStd, ok bool) {
	m := cellNumber.FindStringSubmatch(strings.ReplaceAll(strings.TrimSpace(s), "−", "-"))
	if m == nil {
		return 0, 0, 0, false, false
	}
	mean, _ = strconv.ParseFloat(m[1], 64)
	unit = math.Pow(10, -float64(len(m[2])))
	if m[3] != "" {
		std, _ = strconv.ParseFloat(m[3], 64)
		hasStd = true
	}
	return mean, std, unit, hasStd, true
}

// CellsAgree says whether a re-run's cell agrees with the committed one, and why not. A "mean ± std"
// cell over n seeds agrees when the means differ by at most twice the larger standard error
// (std/√n) of the two, or by one unit of the last printed digit; a single-valued cell (a floor, a
// count) when they differ by at most one unit of the last printed digit; any other cell (a label, a
// quoted paper number) when it is the same text.
func CellsAgree(committed, rerun string, n int) (bool, string) {
	if committed == rerun {
		return true, ""
	}
	m1, s1, u1, std1, ok1 := parseCell(committed)
	m2, s2, u2, std2, ok2 := parseCell(rerun)
	if !ok1 || !ok2 || std1 != std2 {
		return false, "different text"
	}
	diff, unit := math.Abs(m1-m2), max(u1, u2)
	if std1 {
		se := max(s1, s2) / math.Sqrt(float64(max(n, 1)))
		if diff <= 2*se+1e-9 || diff <= unit+1e-9 {
			return true, ""
		}
		return false, fmt.Sprintf("|Δmean| %.4g > 2 × standard error %.4g (n = %d)", diff, se, n)
	}
	if diff <= unit+1e-9 {
		return true, ""
	}
	return false, fmt.Sprintf("|Δ| %.4g > one unit of the last digit, %g", diff, unit)
}

// CompareTables compares rerun with committed cell by cell (CellsAgree, n the committed table's
// seeds), skipping the columns that quote a paper. file names the table in the disagreements.
func CompareTables(file string, committed, rerun *Table) (cells int, out []Disagreement) {
	if len(committed.Columns) != len(rerun.Columns) || len(committed.Rows) != len(rerun.Rows) {
		return 0, []Disagreement{{File: file, Why: fmt.Sprintf("shape: committed %d rows × %d columns, re-run %d × %d",
			len(committed.Rows), len(committed.Columns), len(rerun.Rows), len(rerun.Columns))}}
	}
	n := len(committed.Provenance.Seeds)
	for r, row := range committed.Rows {
		for c, col := range committed.Columns {
			if col.Paper {
				continue
			}
			cells++
			if ok, why := CellsAgree(row[c], rerun.Rows[r][c], n); !ok {
				out = append(out, Disagreement{File: file, Row: row[0], Column: col.Name, Committed: row[c], Rerun: rerun.Rows[r][c], Why: why})
			}
		}
	}
	return cells, out
}

// CompareDirs compares every table (a JSON file Save wrote) under rerunDir with the table of the same
// relative path under committedDir. A re-run table without a committed one is a disagreement; other
// JSON files (claims, benchmarks) are not tables and are skipped.
func CompareDirs(committedDir, rerunDir string) (Comparison, error) {
	var res Comparison
	err := filepath.WalkDir(rerunDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".json" {
			return err
		}
		rerun, err := LoadTable(path)
		if err != nil || len(rerun.Columns) == 0 {
			return nil // not a table
		}
		rel, _ := filepath.Rel(rerunDir, path)
		committed, err := LoadTable(filepath.Join(committedDir, rel))
		if errors.Is(err, os.ErrNotExist) {
			res.Disagreements = append(res.Disagreements, Disagreement{File: rel, Why: "no committed table at " + filepath.Join(committedDir, rel)})
			return nil
		} else if err != nil {
			return err
		}
		res.Tables++
		cells, diffs := CompareTables(rel, committed, rerun)
		res.Cells += cells
		res.Disagreements = append(res.Disagreements, diffs...)
		return nil
	})
	return res, err
}

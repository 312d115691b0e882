package nb

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"gonum.org/v1/plot"
)

// The small configuration never writes into figures/, the committed full-run results.
func TestOutDirIsSafeByDefault(t *testing.T) {
	t.Setenv("GEOALIGN_FIGURES", "")
	t.Setenv("FULL", "")
	if got, want := OutDir(), filepath.Join(Root(), "build", "figures"); got != want {
		t.Errorf("small configuration: OutDir() = %s, want %s", got, want)
	}
	t.Setenv("FULL", "1") // figures/ has one writer, make figures: not a notebook, even at full scale
	if got, want := OutDir(), filepath.Join(Root(), "build", "figures"); got != want {
		t.Errorf("FULL=1: OutDir() = %s, want %s", got, want)
	}
	t.Setenv("GEOALIGN_FIGURES", "/elsewhere")
	if got := OutDir(); got != "/elsewhere" {
		t.Errorf("GEOALIGN_FIGURES set: OutDir() = %s", got)
	}
}

func TestTableAndPlotSaveUnderOutDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GEOALIGN_FIGURES", dir)
	tb := report.NewTable("t", report.Provenance{Data: "toy", Kind: report.Synthetic, Seeds: []int64{1}}, "a")
	tb.AddRow(1)
	Table(tb, "paper/table")
	Plot(plot.New(), "paper/figure")
	for _, f := range []string{"table.md", "table.csv", "table.json", "figure.png", "figure.svg"} {
		if _, err := os.Stat(filepath.Join(dir, "paper", f)); err != nil {
			t.Error(err)
		}
	}
}

func TestShowPanicsOnError(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Error("Show(error) did not panic")
		}
	}()
	Show(errors.New("boom"))
}

func TestMayDisplay(t *testing.T) {
	type run struct {
		Losses []float64
		Name   string
	}
	type section struct {
		Runs  []run
		Table *report.Table
	}
	for _, c := range []struct {
		v    any
		want bool
	}{{[]float64{}, false}, {run{}, false}, {[]run{}, false}, {section{}, true}, {&section{}, true}, {[]*plot.Plot{}, true}} {
		if got := mayDisplay(reflect.TypeOf(c.v)); got != c.want {
			t.Errorf("mayDisplay(%T) = %v, want %v", c.v, got, c.want)
		}
	}
}

func TestMatrixAndFloats(t *testing.T) {
	m := Matrix(tensors.FromValue([][]float32{{1, 2, 3}, {4, 5, 6}}))
	if want := [][]float64{{1, 2, 3}, {4, 5, 6}}; !reflect.DeepEqual(m, want) {
		t.Errorf("Matrix = %v, want %v", m, want)
	}
	if got := Floats(tensors.FromValue(2.5)); !reflect.DeepEqual(got, []float64{2.5}) {
		t.Errorf("Floats(scalar 2.5) = %v", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("Matrix of a rank-1 tensor did not panic")
		}
	}()
	Matrix(tensors.FromValue([]float64{1, 2}))
}

// Memo computes a value once per key and reads it back afterwards, in this process or another.
func TestMemo(t *testing.T) {
	t.Setenv("GEOALIGN_RUN_CACHE", t.TempDir())
	calls := 0
	square := func(x int) func() ([]int, error) {
		return func() ([]int, error) { calls++; return []int{x * x}, nil }
	}
	for _, c := range []struct {
		x, want, calls int
	}{{3, 9, 1}, {3, 9, 1}, {4, 16, 2}, {3, 9, 2}} {
		got := Memo("square", map[string]int{"x": c.x}, square(c.x))
		if got[0] != c.want || calls != c.calls {
			t.Errorf("Memo(square %d) = %v after %d computations, want %d after %d", c.x, got, calls, c.want, c.calls)
		}
	}
	// Another type under the same name and key cannot be decoded: it is computed again.
	if got := Memo("square", map[string]int{"x": 3}, func() (string, error) { return "nine", nil }); got != "nine" {
		t.Errorf("Memo of another type = %q", got)
	}
}

// Exec runs a graph on a store's variables: a variable created with a value is read back, and the
// inputs reach the graph.
func TestExec(t *testing.T) {
	store := model.NewStore()
	out := Exec(store, func(scope *model.Scope, x []*graph.Node) []*graph.Node {
		w := scope.Store().VariableWithValue("/w", float32(3)).NodeValue(x[0].Graph())
		return []*graph.Node{graph.Mul(x[0], w)}
	}, []float32{1, 2})
	if got := Floats(out[0]); !reflect.DeepEqual(got, []float64{3, 6}) {
		t.Errorf("Exec = %v, want [3 6]", got)
	}
}

// A paper's claims are read from figures/<paper>/claims.json as the rule wrote them; a file the
// rule could not have written is refused, naming it.
func TestClaims(t *testing.T) {
	root := t.TempDir()
	Must(os.WriteFile(filepath.Join(root, "go.mod"), []byte("module github.com/geoalign/geoalign\n"), 0o644))
	t.Setenv("GEOALIGN_ROOT", root)
	if _, err := Claims("gram"); err == nil {
		t.Error("Claims of a paper without claims.json did not fail")
	}
	c := reproduce.Describe("GRAM", "the angle", "Fig. 3", "synthetic", "85.91°")
	Must(reproduce.SaveClaims(filepath.Join(root, "figures", "gram"), []reproduce.Claim{c}))
	got, err := Claims("gram")
	if err != nil || len(got) != 1 || got[0].Claim != "the angle" {
		t.Errorf("Claims = %+v, %v", got, err)
	}
	old := filepath.Join(root, "figures", "hlformer", "claims.json")
	Must(os.MkdirAll(filepath.Dir(old), 0o755))
	Must(os.WriteFile(old, []byte(`[{"paper":"x","claim":"y","ours":"1","data":"d","verdict":"holds"}]`), 0o644))
	if _, err := Claims("hlformer"); err == nil || !strings.Contains(err.Error(), "claims.json") {
		t.Errorf("Claims of an old-rule file: %v", err)
	}
	ShowClaims("hlformer") // says so instead of panicking
}

// At the full configuration a notebook skips the sections the committed full run has not finished.
func TestUnfinished(t *testing.T) {
	root := t.TempDir()
	Must(os.WriteFile(filepath.Join(root, "go.mod"), []byte("module github.com/geoalign/geoalign\n"), 0o644))
	t.Setenv("GEOALIGN_ROOT", root)
	t.Setenv("FULL", "")
	if Unfinished("hlformer", "table2") {
		t.Error("the small configuration skipped a section")
	}
	t.Setenv("FULL", "1")
	if !Unfinished("hlformer", "table1") {
		t.Error("no claims.json: the section must count as unfinished")
	}
	dir := filepath.Join(root, "figures", "hlformer")
	Must(reproduce.SaveClaims(dir, []reproduce.Claim{reproduce.Describe("HLFormer", "a", "Fig. 1", "synthetic", "1")}))
	Must(reproduce.SavePending(dir, "hlformer", []string{"table2", "fig3"}))
	if Unfinished("hlformer", "table1") || !Unfinished("hlformer", "table2") {
		t.Errorf("pending [table2 fig3]: Unfinished(table1) = %v, Unfinished(table2) = %v", Unfinished("hlformer", "table1"), Unfinished("hlformer", "table2"))
	}
	Must(reproduce.SavePending(dir, "hlformer", nil)) // a complete run
	if Unfinished("hlformer", "table2") {
		t.Error("a complete run left table2 unfinished")
	}
}

// A section without findings shows its artifacts and nothing else: no empty output for its nil
// []reproduce.Claim (outside a notebook Show prints what it would display).
func TestShowSectionWithoutFindings(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	Show(&reproduce.Section{Title: "table1"})
	os.Stdout = stdout
	w.Close()
	out, _ := io.ReadAll(r)
	if len(out) != 0 {
		t.Errorf("Show(section without artifacts or findings) printed %q, want nothing", out)
	}
}

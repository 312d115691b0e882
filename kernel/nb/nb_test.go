package nb

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/geoalign/geoalign/lib/report"
	"gonum.org/v1/plot"
)

// The small configuration never writes into figures/, the committed full-run results.
func TestOutDirIsSafeByDefault(t *testing.T) {
	t.Setenv("GEOALIGN_FIGURES", "")
	t.Setenv("FULL", "")
	if got, want := OutDir(), filepath.Join(Root(), "build", "figures"); got != want {
		t.Errorf("small configuration: OutDir() = %s, want %s", got, want)
	}
	t.Setenv("FULL", "1")
	if got, want := OutDir(), filepath.Join(Root(), "figures"); got != want {
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

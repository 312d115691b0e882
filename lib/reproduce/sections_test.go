package reproduce

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSections(t *testing.T) {
	all := []string{"table1", "table2", "fig3"}
	if o := (Options{}); !o.Wants("table2") || o.Skipped(all) != nil {
		t.Errorf("no selection must run every section: Wants = %v, Skipped = %v", o.Wants("table2"), o.Skipped(all))
	}
	o := Options{Sections: []string{"fig3", "table1"}}
	if o.Wants("table2") || !o.Wants("table1") {
		t.Error("Wants does not follow Sections")
	}
	if got := o.Skipped(all); !reflect.DeepEqual(got, []string{"table2"}) {
		t.Errorf("Skipped = %v, want [table2]", got)
	}

	dir := t.TempDir()
	paper := filepath.Join(dir, "hlformer")
	if err := SavePending(paper, "hlformer", []string{"table2", "fig3"}); err != nil {
		t.Fatal(err)
	}
	got, err := LoadPending(dir)
	if err != nil || len(got) != 1 || got[0].Paper != "hlformer" || !reflect.DeepEqual(got[0].Sections, []string{"table2", "fig3"}) {
		t.Fatalf("LoadPending = %+v, %v", got, err)
	}
	// A complete run removes the record; a second removal is not an error.
	for range 2 {
		if err := SavePending(paper, "hlformer", nil); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := LoadPending(dir); err != nil || len(got) != 0 {
		t.Fatalf("after a complete run LoadPending = %+v, %v", got, err)
	}
	// A record that names no section is an error naming the file and the field.
	os.WriteFile(filepath.Join(paper, pendingFile), []byte(`{"paper": "hlformer"}`), 0o644)
	if _, err := LoadPending(dir); err == nil || !strings.Contains(err.Error(), filepath.Join("hlformer", pendingFile)) || !strings.Contains(err.Error(), "sections") {
		t.Errorf("empty pending.json: err = %v", err)
	}
}

func TestCheckSections(t *testing.T) {
	Register(Experiment{Paper: "sectioned-test", Figures: func(Options) error { return nil }, Sections: []string{"table1", "fig2"}})
	defer delete(experiments, "sectioned-test")
	if err := CheckSections([]string{"sectioned-test"}, []string{"fig2"}); err != nil {
		t.Error(err)
	}
	err := CheckSections([]string{"sectioned-test"}, []string{"fig2", "fig9"})
	if err == nil || !strings.Contains(err.Error(), `"fig9"`) || !strings.Contains(err.Error(), "sectioned-test: table1, fig2") {
		t.Errorf("unknown section: err = %v", err)
	}
}

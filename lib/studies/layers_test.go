package studies_test

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/geoalign/geoalign"

// The models layer holds model, loss wiring and scoring only: no package it depends on, directly or
// through the module's own packages, may be a plotting, table or data-track package (issue 18,
// architecture: "models never hold plots, tables, tracks").
func TestModelsImportNoExperiments(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	forbidden := func(path string) bool {
		return strings.HasPrefix(path, "gonum.org/v1/plot") || path == module+"/lib/report" ||
			path == module+"/lib/data/tracks" || strings.HasPrefix(path, module+"/lib/studies")
	}
	for _, pkg := range []string{"lib/models/gram", "lib/models/gare", "lib/models/hlformer"} {
		seen := map[string]bool{}
		var walk func(path string, chain []string)
		walk = func(path string, chain []string) {
			if seen[path] {
				return
			}
			seen[path] = true
			chain = append(chain, path)
			if forbidden(path) {
				t.Errorf("%s depends on %s (%s)", pkg, path, strings.Join(chain, " → "))
				return
			}
			if !strings.HasPrefix(path, module+"/") {
				return // outside the module: only the import itself is checked
			}
			p, err := build.ImportDir(filepath.Join(root, strings.TrimPrefix(path, module+"/")), 0)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			for _, imp := range p.Imports {
				walk(imp, chain)
			}
		}
		walk(module+"/"+pkg, nil)
		if len(seen) < 5 {
			t.Fatalf("%s: only %d packages walked; the walk is broken", pkg, len(seen))
		}
	}
}

// Package checkout finds the geoalign checkout a program runs in: the directory of the go.mod
// that declares module github.com/geoalign/geoalign. Notebooks (GoNB runs each cell in the
// notebook's directory, notebooks/), tests (run in their package's directory) and commands run
// from anywhere below it all find the same root, so paths such as datasets/cache, build/ and
// figures/ are written once, relative to it.
package checkout

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Module is the module path that marks the checkout's go.mod.
const Module = "github.com/geoalign/geoalign"

// Root returns the checkout's root directory. It searches upwards from $GONB_DIR (the notebook's
// directory, set by GoNB in every cell's environment) and then from the working directory, for a
// go.mod declaring Module; another module's go.mod on the way (e.g. kernel/tools) is passed over.
func Root() (string, error) {
	var starts []string
	if d := os.Getenv("GONB_DIR"); d != "" {
		starts = append(starts, d)
	}
	if d, err := os.Getwd(); err == nil {
		starts = append(starts, d)
	}
	for _, start := range starts {
		if root, ok := search(start); ok {
			return root, nil
		}
	}
	return "", fmt.Errorf("checkout: no go.mod of module %s above %s", Module, strings.Join(starts, " or "))
}

// Path returns filepath.Join(Root(), elem...).
func Path(elem ...string) (string, error) {
	root, err := Root()
	if err != nil {
		return "", err
	}
	return filepath.Join(append([]string{root}, elem...)...), nil
}

// search walks from dir up to the file system's root.
func search(dir string) (string, bool) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for {
		if modulePath(filepath.Join(dir, "go.mod")) == Module {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// modulePath is the path on the `module` line of a go.mod file, or "" when the file is missing
// or has none.
func modulePath(gomod string) string {
	f, err := os.Open(gomod)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

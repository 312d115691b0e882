package main

import (
	"strings"
	"testing"
)

// An unknown --text encoder is bad input: exit 2 naming the flag, before anything runs.
func TestReproduceUnknownText(t *testing.T) {
	for name, m := range map[string]func() (int, string, string){
		"reproduce": func() (int, string, string) { return call(runReproduce, "--text", "bert", "--data", "synthetic") },
		"figures":   func() (int, string, string) { return call(runFigures, "--text", "bert", "--data", "synthetic") },
	} {
		code, _, errOut := m()
		if code != exitUsage || !strings.Contains(errOut, "--text") || !strings.Contains(errOut, "bert") {
			t.Errorf("%s --text bert: exit %d, stderr %q; want 2 naming --text", name, code, errOut)
		}
	}
}

package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// The README's promise (issue 31, finding 9): `geoalign metrics` with the options `eval --scores`
// prints computes exactly eval's text→video metrics, and its video→text ones when the ground truth
// is the diagonal (GRAM: MdR by torch.median's lower median on an even count); for GARE (several
// captions per video) metrics prints text→video only.
func TestEvalAgreesWithMetrics(t *testing.T) {
	gramRunDir, _, _ := smallGRAMRun(t, 1) // 8 test tuples: an even count, where the median rule matters
	dir := t.TempDir()
	gareData := filepath.Join(dir, "gare")
	writeToyTextVideo(t, gareData, 48, 8, 16)
	gareRunDir := filepath.Join(dir, "gare-run")
	if code, _, errOut := call(trainMain, "gare", "--data", gareData, "--config", writeConfig(t, dir, gareTestConfig), "--epochs", "1", "--quiet",
		"--out", gareRunDir); code != 0 {
		t.Fatalf("train gare: exit %d: %s", code, errOut)
	}
	for _, c := range []struct {
		name, run string
		v2t       bool // metrics reproduces video→text too
		flags     []string
	}{
		{"gram", gramRunDir, true, []string{"--median lower"}},
		{"gare", gareRunDir, false, []string{"--query-video"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			scores := filepath.Join(t.TempDir(), "s.npy")
			code, out, errOut := call(evalMain, "--run", c.run, "--json", "--scores", scores)
			if code != 0 {
				t.Fatalf("eval: exit %d: %s", code, errOut)
			}
			_, cmd, ok := strings.Cut(errOut, "the same metrics: geoalign metrics ")
			if !ok {
				t.Fatalf("eval printed no metrics command: %s", errOut)
			}
			cmd, _, _ = strings.Cut(cmd, "\n")
			cmd, _, _ = strings.Cut(cmd, " (") // the note after the command
			for _, f := range c.flags {
				if !strings.Contains(cmd, f) {
					t.Errorf("command %q lacks %s", cmd, f)
				}
			}
			code, mout, merr := call(metricsMain, strings.Fields(cmd)...)
			if code != 0 {
				t.Fatalf("metrics %s: exit %d: %s", cmd, code, merr)
			}
			var e, m map[string]json.RawMessage
			if err := json.Unmarshal([]byte(out), &e); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(mout), &m); err != nil {
				t.Fatal(err)
			}
			if string(e["t2v"]) != string(m["t2v"]) {
				t.Errorf("t2v: eval %s, metrics %s", e["t2v"], m["t2v"])
			}
			if c.v2t && (len(e["v2t"]) == 0 || string(e["v2t"]) != string(m["v2t"])) {
				t.Errorf("v2t: eval %s, metrics %s", e["v2t"], m["v2t"])
			}
			if !c.v2t && (len(e["v2t"]) == 0 || len(m["v2t"]) != 0 && string(m["v2t"]) != "null") {
				t.Errorf("v2t: eval %s (want one), metrics %s (want none)", e["v2t"], m["v2t"])
			}
		})
	}
}

package main

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/data/sources"
	"github.com/geoalign/geoalign/lib/data/tracks"
)

// geoalignWith runs this test binary as geoalign (TestMain's GEOALIGN_TEST_MAIN) with env added,
// for what a process sets up once: the backend.
func geoalignWith(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "GEOALIGN_TEST_MAIN=1"), env...)
	out, err := cmd.CombinedOutput()
	code := 0
	if e, ok := err.(*exec.ExitError); ok {
		code = e.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, string(out)
}

// noTrace fails the test when out holds a Go panic or goroutine dump.
func noTrace(t *testing.T, out string) {
	t.Helper()
	if strings.Contains(out, "panic") || strings.Contains(out, "goroutine") {
		t.Errorf("a stack trace instead of a sentence:\n%s", out)
	}
}

// Every bad environment is one sentence and exit 2 (issue 49, item 4).
func TestBadEnvironmentIsOneSentence(t *testing.T) {
	t.Run("unknown GOMLX_BACKEND", func(t *testing.T) {
		code, out := geoalignWith(t, []string{"GOMLX_BACKEND=bogus"}, "version")
		noTrace(t, out)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if code != 2 || len(lines) != 1 || !strings.Contains(out, `GOMLX_BACKEND="bogus"`) ||
			!strings.Contains(out, "valid backends are go, ") || !strings.Contains(out, "xla") {
			t.Errorf("exit %d, output:\n%s\nwant exit 2 and one line naming the valid backends", code, out)
		}
	})
	t.Run("PJRT plugin that does not exist", func(t *testing.T) {
		plugin := filepath.Join(t.TempDir(), "absent.so")
		code, out := geoalignWith(t, []string{"GOMLX_BACKEND=xla:" + plugin, "GOMLX_NO_AUTO_INSTALL=1"}, "version")
		noTrace(t, out)
		if code != 2 || !strings.Contains(out, plugin) || !strings.Contains(out, "no such file") {
			t.Errorf("exit %d, output:\n%s\nwant exit 2 naming %s", code, out, plugin)
		}
	})
	t.Run("PJRT plugin that is not one", func(t *testing.T) {
		plugin := filepath.Join(t.TempDir(), "notaplugin.so")
		os.WriteFile(plugin, []byte("not a shared library\n"), 0o644)
		code, out := geoalignWith(t, []string{"GOMLX_BACKEND=xla:" + plugin, "GOMLX_NO_AUTO_INSTALL=1"}, "version")
		noTrace(t, out)
		if code != 2 || !strings.Contains(out, "geoalign version: ") || !strings.Contains(out, "failed to load PJRT plugin") {
			t.Errorf("exit %d, output:\n%s\nwant exit 2 saying the plugin does not load", code, out)
		}
	})
	t.Run("GEOALIGN_SHARED not a directory", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "absent")
		t.Setenv(tracks.SharedEnv, bad)
		for _, args := range [][]string{{"version"}, {"data", "build", "-only", "wordnet"}} {
			code, stdout, stderr := call(run, args...)
			want := "geoalign " + args[0] + ": GEOALIGN_SHARED=" + bad + " is not a directory: point it at the staged data (datasets/README.md) or unset it\n"
			if code != 2 || stdout != "" || stderr != want {
				t.Errorf("geoalign %v: exit %d, stdout %q, stderr %q; want exit 2 and %q", args, code, stdout, stderr, want)
			}
		}
	})
	// A missing build/minilm names `make setup`: geoalign encode text (TestEncodeBadInput, "model
	// files missing") and the minilm track (lib/data/tracks TestBuildMiniLMOnTinyFixture).
}

// A binary built without GOEXPERIMENT=simd warns on the Go backend, and only there.
func TestSIMDWarning(t *testing.T) {
	if w := simdWarning(false, "go"); !strings.Contains(w, "without GOEXPERIMENT=simd") || !strings.Contains(w, "slower") {
		t.Errorf("no SIMD on the Go backend: %q", w)
	}
	for _, c := range []struct {
		simd   bool
		config string
	}{{true, "go"}, {false, "xla:cpu"}, {true, "xla:cpu"}} {
		if w := simdWarning(c.simd, c.config); w != "" {
			t.Errorf("simdWarning(%v, %q) = %q, want none", c.simd, c.config, w)
		}
	}
}

// Offline with nothing staged, `geoalign data build` exits 2 with one message that lists every
// missing file with its URL and where to place it, and writes nothing but the empty cache.
func TestDataBuildOfflineListsMissingSources(t *testing.T) {
	down := httptest.NewServer(nil)
	down.Close() // a mirror nobody answers at: offline
	t.Setenv(sources.MirrorEnv, down.URL)
	cache := t.TempDir()
	code, _, stderr := call(run, "data", "build", "-only", "wordnet,digits", "-cache", cache, "-shared", filepath.Join(t.TempDir(), "absent"))
	if code != 2 {
		t.Fatalf("exit %d, want 2:\n%s", code, stderr)
	}
	for _, want := range []string{
		"source file(s) could not be had",
		filepath.Join(cache, "sources"),
		"wordnet/mammals_filter.txt  ← " + down.URL + "/wordnet/mammals_filter.txt",
		"charades/charades_sta_train.txt  ← " + down.URL + "/charades/charades_sta_train.txt",
		"fsdd/recordings/<name>  (3000 files, 0_george_0.wav … 9_yweweler_9.wav; every name in datasets/sources.json)  ← " + down.URL + "/fsdd/recordings/<name>",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the message lacks %q:\n%s", want, stderr)
		}
	}
	noTrace(t, stderr)
}

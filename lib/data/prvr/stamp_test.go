package prvr

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/geoalign/geoalign/lib/data/bigfile"
)

// The stamp is stable while the files are, and changes when one is rewritten with the same size
// (as a rebuild would) or truncated; a missing file is an error naming it.
func TestStamp(t *testing.T) {
	l := writeCollection(t, t.TempDir(), toyCaptions, "")
	a, err := l.Stamp("test")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := l.Stamp("test", "test"); b != a || len(a) != 16 {
		t.Fatalf("stamp %q then %q, want the same 16 hex digits", a, b)
	}
	bin := filepath.Join(l.FeatureDir(), bigfile.FeatureFileName)
	raw, _ := os.ReadFile(bin)
	raw[0] ^= 0xff
	if err := os.WriteFile(bin, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Second) // file systems with coarse timestamps
	os.Chtimes(bin, later, later)
	b, err := l.Stamp("test")
	if err != nil || b == a {
		t.Fatalf("stamp after rewriting feature.bin: %q (%v), was %q", b, err, a)
	}
	if err := os.Truncate(bin, int64(len(raw)-4)); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(bin, later, later)
	if c, err := l.Stamp("test"); err != nil || c == b {
		t.Fatalf("stamp after truncating feature.bin: %q (%v), was %q", c, err, b)
	}
	if _, err := l.Stamp("train"); err == nil || !strings.Contains(err.Error(), "toytrain.caption.txt") {
		t.Fatalf("missing split: %v, want an error naming toytrain.caption.txt", err)
	}
}

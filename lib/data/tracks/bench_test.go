package tracks

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/geoalign/geoalign/lib/data/prvr"
)

// BenchmarkLoadCharadesSTA loads the full Charades-STA PRVR track (both splits) from the built
// cache, the acceptance target "seconds, not minutes". Skipped until `make data` has run.
func BenchmarkLoadCharadesSTA(b *testing.B) {
	cache := filepath.Join("..", "..", "..", "datasets", "cache")
	l := CharadesLayout(cache, CharadesSTACollection)
	if _, err := os.Stat(filepath.Join(cache, CharadesDir, ManifestName)); err != nil {
		b.Skip("run `make data` first")
	}
	for b.Loop() {
		for _, split := range []string{"train", "test"} {
			if _, err := prvr.Load(l, split); err != nil {
				b.Fatal(err)
			}
		}
	}
}

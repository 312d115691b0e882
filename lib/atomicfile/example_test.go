package atomicfile_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/atomicfile"
)

func Example() {
	dir, _ := os.MkdirTemp("", "atomicfile")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "results.csv")

	// Bytes in memory:
	if err := atomicfile.WriteFile(path, []byte("name,value\n"), 0o644); err != nil {
		fmt.Println(err)
	}
	// A streaming writer; if it fails, results.csv keeps its previous content.
	err := atomicfile.Write(path, func(w io.Writer) error {
		_, err := fmt.Fprintln(w, "name,value\nalpha,1")
		return err
	})
	fmt.Println(err)
	b, _ := os.ReadFile(path)
	fmt.Print(string(b))
	// Output:
	// <nil>
	// name,value
	// alpha,1
}

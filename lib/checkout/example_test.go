package checkout_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/checkout"
)

// Tests run in their package's directory, lib/checkout: the root is two levels up.
func ExampleRoot() {
	root, err := checkout.Root()
	if err != nil {
		panic(err)
	}
	wd, _ := os.Getwd()
	fmt.Println(filepath.Join(root, "lib", "checkout") == wd)
	// Output: true
}

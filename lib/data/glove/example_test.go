package glove_test

import (
	"fmt"

	"github.com/geoalign/geoalign/lib/data/glove"
)

func ExampleTokenize() {
	fmt.Println(glove.Tokenize("A person's opening the door."))
	// Output: [a person s opening the door]
}

// Command backendinfo prints, as one JSON object, the GoMLX backend that GOMLX_BACKEND selects
// (lib/backend.Describe: name, description, SIMD, Go version), or exits 1 with the backend's error.
// make bench (lib/bench/run.py) runs it once per geoalign backend before measuring: it checks that the
// backend loads (the XLA-CPU column says "not run: <error>" otherwise) and gives the table's header
// the backend's own description (for XLA, the PJRT plugin's platform and version).
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/geoalign/geoalign/lib/backend"
)

func main() {
	info, err := backend.Describe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "backendinfo:", err)
		os.Exit(1)
	}
	if err := json.NewEncoder(os.Stdout).Encode(info); err != nil {
		fmt.Fprintln(os.Stderr, "backendinfo:", err)
		os.Exit(1)
	}
}

package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/geoalign/geoalign/lib/backend"
)

func init() {
	register("version", "print the GoMLX backend, SIMD status and Go runtime", runVersion)
}

func runVersion(args []string) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print as JSON")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	info, err := backend.Describe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "geoalign version:", err)
		return 1
	}
	if *asJSON {
		out, _ := json.MarshalIndent(info, "", "  ")
		fmt.Println(string(out))
		return 0
	}
	fmt.Println("geoalign:", info)
	return 0
}

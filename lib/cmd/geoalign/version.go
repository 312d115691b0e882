package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/geoalign/geoalign/lib/backend"
)

func init() {
	register("version", "print the GoMLX backend, SIMD status and Go runtime", runVersion)
}

func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print as JSON")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	info, err := backend.Describe()
	if err != nil {
		fmt.Fprintln(stderr, "geoalign version:", err)
		return exitUsage // GOMLX_BACKEND unset or unusable
	}
	if *asJSON {
		out, _ := json.MarshalIndent(info, "", "  ")
		fmt.Fprintln(stdout, string(out))
		return exitOK
	}
	fmt.Fprintln(stdout, "geoalign:", info)
	return exitOK
}

package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/geoalign/geoalign/lib/backend"
)

func init() {
	register("version", "print the GoMLX backend, SIMD status, Go runtime and, under XLA, the PJRT plugin", runVersion)
}

func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("version", stderr)
	asJSON := fs.Bool("json", false, "print as JSON")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	info, err := backend.Describe()
	if err != nil {
		fmt.Fprintln(stderr, "geoalign version:", err)
		return exitUsage // GOMLX_BACKEND unset or unusable
	}
	plugin, err := backend.DescribePJRT() // nil unless GOMLX_BACKEND=xla:…
	if err != nil {
		fmt.Fprintln(stderr, "geoalign version:", err)
		return exitUsage
	}
	if *asJSON {
		out, _ := json.MarshalIndent(struct {
			backend.Info
			PJRT *backend.PJRT `json:"pjrt,omitempty"`
		}{info, plugin}, "", "  ")
		fmt.Fprintln(stdout, string(out))
		return exitOK
	}
	fmt.Fprintln(stdout, "geoalign:", info)
	if plugin != nil {
		fmt.Fprintln(stdout, "geoalign:", *plugin)
	}
	return exitOK
}

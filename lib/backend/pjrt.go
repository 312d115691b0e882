package backend

import "fmt"

// PJRT describes the PJRT plugin behind an "xla:" backend: what `geoalign version` prints and
// what `make gpu-check` records. See docs/xla.md for how the project installs its plugins.
type PJRT struct {
	Plugin          string `json:"plugin"`           // the plugin's file
	APIVersion      string `json:"api_version"`      // PJRT C API version the plugin reports, "major.minor"
	Platform        string `json:"platform"`         // platform its client reports (e.g. "cpu", "cuda")
	PlatformVersion string `json:"platform_version"` // and that platform's version string
	Devices         int    `json:"devices"`          // addressable devices of the client
}

// String formats the PJRT on one line.
func (p PJRT) String() string {
	return fmt.Sprintf("PJRT plugin %s, C API %s, platform %s (%s), %d device(s)",
		p.Plugin, p.APIVersion, p.Platform, p.PlatformVersion, p.Devices)
}

//go:build !noxla

package backend

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gomlx/compute"
	"github.com/gomlx/go-xla/pjrt"

	"github.com/geoalign/geoalign/lib/backend/xlacache" // also wraps the "xla" backend: compile once
)

// DescribePJRT loads the plugin that GOMLX_BACKEND names and asks it for its API version and
// platform. It returns nil, nil when the backend is not "xla:…". It opens a client of its own, so it
// is meant for `geoalign version` and one-off checks, not for a process that also trains.
func DescribePJRT() (*PJRT, error) {
	config := os.Getenv(compute.ConfigEnvVar)
	name, ok := strings.CutPrefix(config, "xla:")
	if !ok {
		return nil, nil
	}
	if err := xlacache.Install(name); err != nil { // before go-xla loads the plugin itself
		return nil, err
	}
	name, _, _ = strings.Cut(name, ",") // options follow the plugin after commas
	plugin, err := pjrt.GetPlugin(name)
	if err != nil {
		return nil, fmt.Errorf("%s=%s: %w", compute.ConfigEnvVar, config, err)
	}
	major, minor := plugin.Version()
	path := plugin.Path()
	if filepath.IsAbs(name) { // a plugin registered by xlacache reports no path of its own
		path = name
	}
	info := &PJRT{Plugin: path, APIVersion: fmt.Sprintf("%d.%d", major, minor)}
	client, err := plugin.NewClient(nil)
	if err != nil {
		return info, fmt.Errorf("%s: creating a client: %w", plugin.Path(), err)
	}
	defer client.Destroy()
	info.Platform, info.PlatformVersion = client.Platform(), client.PlatformVersion()
	info.Devices = len(client.AddressableDevices())
	return info, nil
}

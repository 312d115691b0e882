//go:build !noxla

package backend

import (
	"fmt"
	"os"
	"strings"

	"github.com/gomlx/compute"
	"github.com/gomlx/go-xla/pjrt"
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
	name, _, _ = strings.Cut(name, ",") // options follow the plugin after commas
	plugin, err := pjrt.GetPlugin(name)
	if err != nil {
		return nil, fmt.Errorf("%s=%s: %w", compute.ConfigEnvVar, config, err)
	}
	major, minor := plugin.Version()
	info := &PJRT{Plugin: plugin.Path(), APIVersion: fmt.Sprintf("%d.%d", major, minor)}
	client, err := plugin.NewClient(nil)
	if err != nil {
		return info, fmt.Errorf("%s: creating a client: %w", plugin.Path(), err)
	}
	defer client.Destroy()
	info.Platform, info.PlatformVersion = client.Platform(), client.PlatformVersion()
	info.Devices = len(client.AddressableDevices())
	return info, nil
}

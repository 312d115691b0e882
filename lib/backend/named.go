package backend

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gomlx/compute"
)

// CPUPluginFile is where `make setup` installs XLA's CPU PJRT plugin, relative to the repository
// root (kernel/pjrt.sh; the Makefile's PJRT_CPU_PLUGIN).
const CPUPluginFile = "build/pjrt/pjrt_c_api_cpu_plugin.so"

// RepoRoot returns the repository root: the nearest directory at or above the working directory
// that holds go.mod.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("backend: no go.mod at or above the working directory")
		}
		dir = parent
	}
}

// CPUPlugin returns the absolute path of the XLA CPU PJRT plugin of this checkout
// (RepoRoot/CPUPluginFile), or an error that says to run `make setup` when it is missing.
func CPUPlugin() (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	path := filepath.Join(root, CPUPluginFile)
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("backend: XLA's CPU PJRT plugin %s is missing: run make setup", path)
	}
	return path, nil
}

// XLACPUConfig is the backend configuration of XLA on the plugin at path ("xla:" + path): an
// absolute path, so go-xla loads it directly and never tries to download a plugin.
func XLACPUConfig(path string) string { return "xla:" + path }

// NewNamed creates a new backend from a configuration string, as GOMLX_BACKEND would give it
// ("go", "xla:/abs/path/pjrt_c_api_cpu_plugin.so"), whatever GOMLX_BACKEND says: for code that
// runs two backends side by side (lib/parity). Unlike New, every call creates a backend of its
// own; the caller finalizes it (Backend.Finalize) when done.
func NewNamed(config string) (compute.Backend, error) {
	b, err := compute.NewWithConfig(config)
	if err != nil {
		return nil, fmt.Errorf("backend %q: %w", config, err)
	}
	return b, nil
}

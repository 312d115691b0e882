package backend

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/gomlx/compute"
	_ "github.com/gomlx/gomlx/backends/default" // registers "go" and, where supported, "xla"
)

// ErrUnset is returned by New when GOMLX_BACKEND is not set.
var ErrUnset = fmt.Errorf("%s is not set: export %s=go for the pure-Go CPU backend "+
	"(the Makefile and the notebook kernel do this), or %s=xla:cuda on a GPU machine",
	compute.ConfigEnvVar, compute.ConfigEnvVar, compute.ConfigEnvVar)

var (
	sharedOnce    sync.Once
	sharedBackend compute.Backend
	sharedErr     error
)

// New returns the process-wide backend selected by GOMLX_BACKEND, creating it on first use.
// Backends hold device resources, so every caller in a process shares one.
func New() (compute.Backend, error) {
	sharedOnce.Do(func() {
		if _, ok := os.LookupEnv(compute.ConfigEnvVar); !ok {
			sharedErr = ErrUnset
			return
		}
		if err := checkName(os.Getenv(compute.ConfigEnvVar)); err != nil {
			sharedErr = err
			return
		}
		sharedBackend, sharedErr = compute.New()
	})
	return sharedBackend, sharedErr
}

// checkName returns an error naming the registered backends when config (GOMLX_BACKEND's
// "<name>[:<options>]") names none of them: compute.New panics on an unknown name.
func checkName(config string) error {
	name, _, _ := strings.Cut(config, ":")
	valid := compute.List()
	if slices.Contains(valid, name) {
		return nil
	}
	sort.Strings(valid)
	return fmt.Errorf("%s=%q names no backend of this build: the valid backends are %s (%s=go for the pure-Go CPU backend, %s=xla:cpu or xla:<PJRT plugin path> for XLA)",
		compute.ConfigEnvVar, config, strings.Join(valid, ", "), compute.ConfigEnvVar, compute.ConfigEnvVar)
}

// MustNew is New that panics on error: for notebooks, commands and tests.
func MustNew() compute.Backend {
	b, err := New()
	if err != nil {
		panic(err)
	}
	return b
}

// Info describes the running configuration: which backend, whether SIMD was compiled in,
// and the Go runtime. It is what `geoalign version` prints and what every results file records.
type Info struct {
	Config      string `json:"config"`      // value of GOMLX_BACKEND
	Name        string `json:"name"`        // backend name reported by GoMLX
	Description string `json:"description"` // backend description reported by GoMLX
	SIMD        bool   `json:"simd"`        // built with GOEXPERIMENT=simd
	GoVersion   string `json:"go_version"`
	GOMAXPROCS  int    `json:"gomaxprocs"`
	GOARCH      string `json:"goarch"`
	CPU         string `json:"cpu"` // the CPU's widest SIMD instruction set (InstructionSet)
}

// Describe returns the Info of the shared backend (creating it if needed).
func Describe() (Info, error) {
	b, err := New()
	info := Info{
		Config:     os.Getenv(compute.ConfigEnvVar),
		SIMD:       SIMD,
		GoVersion:  runtime.Version(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		GOARCH:     runtime.GOARCH,
		CPU:        InstructionSet(),
	}
	if err != nil {
		return info, err
	}
	info.Name = b.Name()
	info.Description = b.Description()
	return info, nil
}

// String formats the Info on one line.
func (i Info) String() string {
	simd := "off (build with GOEXPERIMENT=simd: 15-35x faster)"
	if i.SIMD {
		simd = "on"
	}
	return fmt.Sprintf("backend %s (%s; GOMLX_BACKEND=%q), SIMD %s, %s %s, CPU %s, GOMAXPROCS=%d",
		i.Name, i.Description, i.Config, simd, i.GoVersion, i.GOARCH, i.CPU, i.GOMAXPROCS)
}

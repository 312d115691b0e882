//go:build !noxla

package xlacache

/*
#cgo LDFLAGS: -ldl
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/gomlx/compute"
	"github.com/gomlx/go-xla/compute/xla"
	"github.com/gomlx/go-xla/pjrt"
)

// The "xla" backend constructor is wrapped: it registers the caching table for the plugin its
// configuration names, then creates go-xla's backend as before. This package's init runs after
// go-xla's (which it imports), so this registration replaces go-xla's.
func init() {
	compute.Register(xla.BackendName, func(config string) (compute.Backend, error) {
		if err := Install(config); err != nil { // the cache is an optimisation: go-xla loads the plugin
			fmt.Fprintf(os.Stderr, "%v: compiling without the cache\n", err)
		}
		return xla.New(config)
	})
}

var (
	installMu sync.Mutex
	installed *Plugin // the one plugin this process caches for
)

// Install makes the plugin named by an "xla" backend configuration (GOMLX_BACKEND without its
// "xla:" prefix: an absolute path to a CPU plugin, options after commas) compile through the cache.
// It does nothing for other plugins, and nothing the second time. It must run before go-xla loads
// the plugin: the backend constructor (which, if Install fails, says so on stderr and lets go-xla
// load the plugin uncached) and lib/backend.DescribePJRT call it.
func Install(config string) error {
	name, _, _ := strings.Cut(config, ",")
	if !filepath.IsAbs(name) || !strings.Contains(strings.ToLower(filepath.Base(name)), "cpu") {
		return nil
	}
	installMu.Lock()
	defer installMu.Unlock()
	if installed != nil {
		return nil // done before; a second CPU plugin in one process compiles uncached
	}
	file, err := PluginFile(name)
	if err != nil {
		return fmt.Errorf("xlacache: %w", err)
	}
	cpath := C.CString(name)
	defer C.free(unsafe.Pointer(cpath))
	var cerr *C.char
	api := C.shim_open(cpath, &cerr)
	if api == nil {
		defer C.free(unsafe.Pointer(cerr))
		return fmt.Errorf("xlacache: %s: %s", name, C.GoString(cerr))
	}
	if err := pjrt.RegisterPreloadedPlugin(name, uintptr(unsafe.Pointer(api))); err != nil {
		return fmt.Errorf("xlacache: registering %s with go-xla: %w", name, err)
	}
	installed = &Plugin{Path: name, File: file}
	return nil
}

// xlacacheCompile is the plugin's PJRT_Client_Compile as go-xla sees it (shim.c).
//
//export xlacacheCompile
func xlacacheCompile(args *C.PJRT_Client_Compile_Args) *C.PJRT_Error {
	program := args.program
	format := C.GoStringN(program.format, C.int(program.format_size))
	code := unsafe.Slice((*byte)(unsafe.Pointer(program.code)), int(program.code_size))
	options := unsafe.Slice((*byte)(unsafe.Pointer(args.compile_options)), int(args.compile_options_size))
	key := Key(*installed, format, code, options)
	defer lockKey(key)()

	if payload, fromDisk := lookup(key); payload != nil {
		start := time.Now()
		if exec, err := deserialize(args.client, payload, args); err == nil {
			args.executable = exec
			seconds, event := since(start), "reused"
			count(func(s *Stats) {
				if fromDisk {
					s.Loads++
					event = "loaded"
				} else {
					s.Reuses++
				}
				s.LoadSeconds += seconds
			})
			logEvent(event, seconds, key, len(payload))
			if fromDisk {
				remember(key, payload)
			}
			return nil
		}
		forget(key)
		count(func(s *Stats) { s.Rejected++ })
		logEvent("rejected", 0, key, len(payload))
	}

	start := time.Now()
	if e := C.shim_compile(args); e != nil {
		return e // the plugin's own error, for go-xla to report
	}
	compiled := time.Now()
	payload, err := serialize(args.executable)
	if err == nil {
		keep(key, payload)
	}
	seconds := since(start)
	count(func(s *Stats) { s.Compiles++; s.CompileSeconds += seconds })
	logEvent("compiled", compiled.Sub(start).Seconds(), key, len(payload))
	logEvent("stored", since(compiled), key, len(payload)) // serialized, kept in memory and on disk
	if err != nil {
		fmt.Fprintf(os.Stderr, "xlacache: not cached: %v\n", err)
	}
	return nil
}

func serialize(exec *C.PJRT_LoadedExecutable) ([]byte, error) {
	var bytes *C.char
	var size C.size_t
	var cerr *C.char
	C.shim_serialize(exec, &bytes, &size, &cerr)
	if bytes == nil {
		defer C.free(unsafe.Pointer(cerr))
		return nil, fmt.Errorf("%s", C.GoString(cerr))
	}
	defer C.free(unsafe.Pointer(bytes))
	return C.GoBytes(unsafe.Pointer(bytes), C.int(size)), nil
}

func deserialize(client *C.PJRT_Client, payload []byte, args *C.PJRT_Client_Compile_Args) (*C.PJRT_LoadedExecutable, error) {
	cpayload := C.CBytes(payload)
	defer C.free(cpayload)
	var cerr *C.char
	exec := C.shim_deserialize(client, (*C.char)(cpayload), C.size_t(len(payload)),
		args.compile_options, args.compile_options_size, &cerr)
	if exec == nil {
		defer C.free(unsafe.Pointer(cerr))
		return nil, fmt.Errorf("%s", C.GoString(cerr))
	}
	return exec, nil
}

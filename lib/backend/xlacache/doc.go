// Package xlacache compiles each XLA program once per process and once per machine.
//
// XLA compiles every new program (docs/xla.md §2.1): HLFormer's training step takes ≈ 55 s on the
// CPU plugin, and the seeds of a study, a sweep or a notebook cell run again compile that same
// program again. This package sits under GoMLX and go-xla, at the one call where a program is
// compiled: it loads the plugin itself, copies the plugin's PJRT_Api table with its
// PJRT_Client_Compile entry replaced by a caching one, and registers that table with go-xla
// (pjrt.RegisterPreloadedPlugin) under the name GOMLX_BACKEND gives the plugin, so that go-xla,
// GoMLX and every model above them run unchanged (docs/xla.md §5 says why this route).
//
// The caching compile keys a program by its fingerprint (Key: the program's bytes and format, the
// serialized compile options, the plugin's path and file identity, the host CPU, XLA_FLAGS). A program
// seen before in this process is loaded from its serialized executable kept in memory; one
// compiled by an earlier process is loaded from the persistent cache Dir ($GEOALIGN_XLA_CACHE, or
// build/xla-cache of the checkout; "off" turns it off); any other is compiled by the plugin, then
// serialized (PJRT_Executable_Serialize) and kept in both. Loading is
// PJRT_Executable_DeserializeAndLoad with the program's own compile options. An entry on disk
// carries its key and the sha256 of its payload: a damaged, truncated or foreign entry, or one the
// plugin refuses to load, is ignored (Stats.Rejected), the program compiled again and the entry
// rewritten, atomically (lib/atomicfile).
//
// A loaded executable is a new PJRT executable: go-xla owns and destroys it as it does a compiled
// one, so sharing needs no reference counting, concurrent executions are independent, and buffer
// donation (an option of each execution, the aliasing itself part of the program and so of the
// key) is unaffected.
//
// Only CPU plugins are cached (the plugin's path or name contains "cpu", go-xla's own test): a GPU
// executable depends on the device model, which the key does not name, and the route was not
// tested on a GPU. Read Stats for the counters (lib/train writes them into each run's history).
//
// pjrt_c_api.h is go-xla v0.4.13's copy of the PJRT C API header (API 0.104, Apache-2.0), unchanged:
// the table layout go-xla itself uses; shim.c is the C half.
package xlacache

// shim.h: the C half of the compile cache (doc.go). The plugin's PJRT_Api table is copied and its
// PJRT_Client_Compile entry replaced by one that calls back into Go (xlacacheCompile); the other
// helpers call the plugin's own entries.
#ifndef GEOALIGN_XLACACHE_SHIM_H_
#define GEOALIGN_XLACACHE_SHIM_H_

#include <stdlib.h>
#include "pjrt_c_api.h"

// shim_open dlopens the plugin at path, copies its API table with PJRT_Client_Compile replaced,
// and returns the copy (NULL and *err set, malloc'd, on failure).
const PJRT_Api* shim_open(const char* path, char** err);

// shim_compile calls the plugin's own PJRT_Client_Compile.
PJRT_Error* shim_compile(PJRT_Client_Compile_Args* args);

// shim_serialize serializes a loaded executable: *bytes (malloc'd, the caller frees) and *size, or
// NULL and *err (malloc'd) on failure.
void shim_serialize(PJRT_LoadedExecutable* exec, char** bytes, size_t* size, char** err);

// shim_deserialize loads a serialized executable on client with the given compile options; NULL and
// *err (malloc'd) on failure.
PJRT_LoadedExecutable* shim_deserialize(PJRT_Client* client, const char* bytes, size_t size,
                                        const char* options, size_t options_size, char** err);

#endif

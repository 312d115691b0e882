//go:build !noxla

#include <dlfcn.h>
#include <string.h>
#include "shim.h"
#include "_cgo_export.h"

// ARGS declares v, a zeroed T with its struct_size set: the arguments of a PJRT call.
#define ARGS(T, v)     \
  T v;                 \
  memset(&v, 0, sizeof v); \
  v.struct_size = T##_STRUCT_SIZE

static const PJRT_Api* real_api;  // the plugin's own table
static PJRT_Api* shim_api;        // its copy, PJRT_Client_Compile replaced

static char* dup_message(const char* prefix, const char* msg, size_t n) {
  size_t p = strlen(prefix);
  char* out = malloc(p + n + 1);
  memcpy(out, prefix, p);
  memcpy(out + p, msg, n);
  out[p + n] = 0;
  return out;
}

// take_error turns a PJRT_Error into a malloc'd message and destroys it.
static char* take_error(PJRT_Error* e, const char* prefix) {
  ARGS(PJRT_Error_Message_Args, m);
  m.error = e;
  real_api->PJRT_Error_Message(&m);
  char* out = dup_message(prefix, m.message, m.message_size);
  ARGS(PJRT_Error_Destroy_Args, d);
  d.error = e;
  real_api->PJRT_Error_Destroy(&d);
  return out;
}

static PJRT_Error* caching_compile(PJRT_Client_Compile_Args* args) { return xlacacheCompile(args); }

typedef const PJRT_Api* (*get_api_fn)(void);

const PJRT_Api* shim_open(const char* path, char** err) {
  if (shim_api != NULL) {
    return shim_api;  // Go calls this once per process (sync.Once)
  }
  void* h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
  if (h == NULL) {
    const char* e = dlerror();
    *err = dup_message("dlopen: ", e, strlen(e));
    return NULL;
  }
  get_api_fn get = (get_api_fn)dlsym(h, "GetPjrtApi");
  if (get == NULL) {
    *err = dup_message("", "no GetPjrtApi symbol", 20);
    return NULL;
  }
  const PJRT_Api* api = get();
  if (api == NULL || api->struct_size < sizeof(PJRT_Api)) {
    // An older table than this header's: go-xla would read past it too (docs/xla.md §1.1).
    *err = dup_message("", "the plugin's PJRT_Api table is older than go-xla's", 51);
    return NULL;
  }
  // Copy the whole table, the entries newer than this header included.
  PJRT_Api* copy = malloc(api->struct_size);
  memcpy(copy, api, api->struct_size);
  copy->PJRT_Client_Compile = caching_compile;
  real_api = api;
  shim_api = copy;
  return copy;
}

PJRT_Error* shim_compile(PJRT_Client_Compile_Args* args) { return real_api->PJRT_Client_Compile(args); }

void shim_serialize(PJRT_LoadedExecutable* loaded, char** bytes, size_t* size, char** err) {
  *bytes = NULL;
  ARGS(PJRT_LoadedExecutable_GetExecutable_Args, g);
  g.loaded_executable = loaded;
  PJRT_Error* e = real_api->PJRT_LoadedExecutable_GetExecutable(&g);
  if (e != NULL) {
    *err = take_error(e, "PJRT_LoadedExecutable_GetExecutable: ");
    return;
  }
  ARGS(PJRT_Executable_Serialize_Args, s);
  s.executable = g.executable;
  e = real_api->PJRT_Executable_Serialize(&s);
  if (e != NULL) {
    *err = take_error(e, "PJRT_Executable_Serialize: ");
  } else {
    *bytes = malloc(s.serialized_bytes_size > 0 ? s.serialized_bytes_size : 1);
    memcpy(*bytes, s.serialized_bytes, s.serialized_bytes_size);
    *size = s.serialized_bytes_size;
    if (s.serialized_executable_deleter != NULL) {
      s.serialized_executable_deleter(s.serialized_executable);
    }
  }
  ARGS(PJRT_Executable_Destroy_Args, d);
  d.executable = g.executable;
  e = real_api->PJRT_Executable_Destroy(&d);
  if (e != NULL) {
    free(take_error(e, ""));
  }
}

PJRT_LoadedExecutable* shim_deserialize(PJRT_Client* client, const char* bytes, size_t size,
                                        const char* options, size_t options_size, char** err) {
  ARGS(PJRT_Executable_DeserializeAndLoad_Args, a);
  a.client = client;
  a.serialized_executable = bytes;
  a.serialized_executable_size = size;
  a.overridden_serialized_compile_options = options;
  a.overridden_serialized_compile_options_size = options_size;
  PJRT_Error* e = real_api->PJRT_Executable_DeserializeAndLoad(&a);
  if (e != NULL) {
    *err = take_error(e, "PJRT_Executable_DeserializeAndLoad: ");
    return NULL;
  }
  return a.loaded_executable;
}

/* Finding and loading backend plugins (vc-backend-<name>.so).
 *
 * Search order: each directory of VYRE_CONFORM_BACKEND_PATH (colon
 * separated), the directory of the running binary, then the install
 * directory compiled in. */
#ifndef VC_PLUGIN_H
#define VC_PLUGIN_H

#include "backends/backend.h"
#include "harness/base/error.h"

typedef struct vc_plugin {
  void *handle;
  const vc_backend *ops;
  char path[4096]; /* the file that was loaded */
} vc_plugin;

/* Loads the plugin for backend `name` ("opencl", ...). On failure err says
   every place looked at and why each failed (dlerror text, ABI mismatch). */
int vc_plugin_load(const char *name, vc_plugin *out, vc_error *err);
/* Loads a plugin from an explicit file. */
int vc_plugin_load_file(const char *path, vc_plugin *out, vc_error *err);
void vc_plugin_unload(vc_plugin *p);
/* Names of the backends the project builds, in a fixed order. */
extern const char *const vc_plugin_names[];
extern const unsigned vc_plugin_name_count;

#endif

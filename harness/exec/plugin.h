/* Finding and loading backend plugins (vc-backend-<name>.so).
 *
 * Search order: each directory of VYRE_CONFORM_BACKEND_PATH (colon
 * separated), the directory of the running binary, then the install
 * directory compiled in. */
#ifndef VC_PLUGIN_H
#define VC_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>

#include "backends/backend.h"
#include "harness/base/error.h"

typedef struct vc_plugin {
  void *handle;
  const vc_backend *ops;
  char path[4096]; /* the file that was loaded */
} vc_plugin;

#define VC_PLUGIN_MAX_DIRS 8u
#define VC_PLUGIN_MAX_FOUND 32u

/* The backends the search path offers: the <name> of every file
   vc-backend-<name>.so (letters, digits, '-' and '_'), each once, sorted.
   The harness knows no backend by name; this is how it learns them. */
typedef struct vc_plugin_found {
  unsigned ndirs, n, nnot;
  char dirs[VC_PLUGIN_MAX_DIRS][4096]; /* the search path, in order */
  char names[VC_PLUGIN_MAX_FOUND][64];
  /* backends the build left out: a vc-backend-<name>.not-built record on
     the path and no plugin file of that name anywhere on it, sorted */
  char not_built[VC_PLUGIN_MAX_FOUND][64];
} vc_plugin_found;

/* Scans the search path; a directory that cannot be read offers nothing. */
void vc_plugin_find(vc_plugin_found *out);
/* "cuda, opencl, vulkan", or "none" when nothing was found. */
void vc_plugin_found_text(const vc_plugin_found *f, char *buf, size_t n);
/* Both: the names the search path offers now, for help and usage texts. */
void vc_plugin_names(char *buf, size_t n);

/* Why backend `name` was not built: the first line of the first
   vc-backend-<name>.not-built on the search path (the build writes one
   beside the plugins for each plugin it leaves out) into reason; false
   when there is none. */
bool vc_plugin_not_built(const char *name, char *reason, size_t n);

/* Loads the plugin for backend `name`. On failure err says which backends
   the search path offers and every place looked at and why each failed
   (not found, dlerror text, ABI mismatch), and why the build left it out
   when it did. */
int vc_plugin_load(const char *name, vc_plugin *out, vc_error *err);
/* Loads a plugin from an explicit file. */
int vc_plugin_load_file(const char *path, vc_plugin *out, vc_error *err);
void vc_plugin_unload(vc_plugin *p);

#endif

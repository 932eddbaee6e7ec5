#include "harness/exec/plugin.h"

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/exec/fault.h"

#ifndef VC_INSTALL_PLUGIN_DIR
#define VC_INSTALL_PLUGIN_DIR "/usr/local/lib/vyre-conform"
#endif

int vc_plugin_load_file(const char *path, vc_plugin *out, vc_error *err) {
  memset(out, 0, sizeof *out);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) return vc_fail(err, VC_ERR_NO_DRIVER, "cannot load %s: %s", path, dlerror());
  vc_backend_entry_fn entry;
  /* POSIX guarantees that a data pointer from dlsym converts to a function pointer. */
  *(void **)(&entry) = dlsym(h, VC_BACKEND_ENTRY);
  if (!entry) {
    dlclose(h);
    return vc_fail(err, VC_ERR_ABI, "%s: no entry point %s", path, VC_BACKEND_ENTRY);
  }
  const vc_backend *ops = entry();
  if (!ops || ops->abi_version != VC_BACKEND_ABI_VERSION ||
      ops->struct_size != sizeof(vc_backend)) {
    unsigned v = ops ? ops->abi_version : 0, sz = ops ? ops->struct_size : 0;
    dlclose(h);
    return vc_fail(err, VC_ERR_ABI,
                   "%s: plugin ABI version %u (table of %u bytes), this harness needs %u (%zu "
                   "bytes); rebuild the plugin",
                   path, v, sz, VC_BACKEND_ABI_VERSION, sizeof(vc_backend));
  }
  out->handle = h;
  out->ops = vc_fault_wrap(ops); /* itself, unless a driver fault is planted */
  snprintf(out->path, sizeof out->path, "%s", path);
  return 0;
}

static int self_dir(char *buf, size_t n) {
  ssize_t len = readlink("/proc/self/exe", buf, n - 1);
  if (len <= 0) return -1;
  buf[len] = '\0';
  char *slash = strrchr(buf, '/');
  if (!slash) return -1;
  *slash = '\0';
  return 0;
}

/* The search path (plugin.h): up to six directories of the variable, the
   binary's, the install directory. */
static void search_path(vc_plugin_found *f) {
  f->ndirs = 0;
  const char *env = getenv("VYRE_CONFORM_BACKEND_PATH");
  for (const char *p = env ? env : ""; *p && f->ndirs < VC_PLUGIN_MAX_DIRS - 2;) {
    const char *colon = strchr(p, ':');
    size_t n = colon ? (size_t)(colon - p) : strlen(p);
    if (n && n < sizeof f->dirs[0]) {
      memcpy(f->dirs[f->ndirs], p, n);
      f->dirs[f->ndirs++][n] = '\0';
    }
    p += n + (colon ? 1 : 0);
  }
  if (self_dir(f->dirs[f->ndirs], sizeof f->dirs[0]) == 0) f->ndirs++;
  snprintf(f->dirs[f->ndirs++], sizeof f->dirs[0], "%s", VC_INSTALL_PLUGIN_DIR);
}

#define PREFIX "vc-backend-"
#define SUFFIX ".so"
#define NOT_BUILT ".not-built"

/* A backend's name: letters, digits, '-' and '_' (never a path). */
static bool name_ok(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isalnum((unsigned char)s[i]) && s[i] != '-' && s[i] != '_') return false;
  return n > 0;
}

/* The <name> of vc-backend-<name><suffix> into name, or false. */
static bool plugin_name(const char *file, const char *suffix, char *name, size_t cap) {
  size_t len = strlen(file), pre = strlen(PREFIX), suf = strlen(suffix);
  if (len <= pre + suf || strncmp(file, PREFIX, pre) != 0 || strcmp(file + len - suf, suffix))
    return false;
  size_t n = len - pre - suf;
  if (n >= cap || !name_ok(file + pre, n)) return false;
  memcpy(name, file + pre, n);
  name[n] = '\0';
  return true;
}

/* Into a sorted list of names, once. */
static void add_name(char (*names)[64], unsigned *n, const char *name) {
  unsigned at = 0;
  while (at < *n && strcmp(names[at], name) < 0) at++;
  if ((at < *n && strcmp(names[at], name) == 0) || *n == VC_PLUGIN_MAX_FOUND) return;
  memmove(names[at + 1], names[at], (*n - at) * sizeof names[0]);
  snprintf(names[at], sizeof names[0], "%s", name);
  (*n)++;
}

static bool has_name(const vc_plugin_found *f, const char *name) {
  for (unsigned i = 0; i < f->n; i++)
    if (strcmp(f->names[i], name) == 0) return true;
  return false;
}

void vc_plugin_find(vc_plugin_found *out) {
  memset(out, 0, sizeof *out);
  search_path(out);
  unsigned nrec = 0;
  char records[VC_PLUGIN_MAX_FOUND][64];
  for (unsigned i = 0; i < out->ndirs; i++) {
    DIR *d = opendir(out->dirs[i]);
    if (!d) continue;
    struct dirent *ent;
    char name[sizeof out->names[0]];
    while ((ent = readdir(d))) {
      if (plugin_name(ent->d_name, SUFFIX, name, sizeof name)) add_name(out->names, &out->n, name);
      if (plugin_name(ent->d_name, NOT_BUILT, name, sizeof name)) add_name(records, &nrec, name);
    }
    closedir(d);
  }
  /* a plugin file anywhere on the path outranks a record of not building it */
  for (unsigned r = 0; r < nrec; r++)
    if (!has_name(out, records[r])) add_name(out->not_built, &out->nnot, records[r]);
}

bool vc_plugin_not_built(const char *name, char *reason, size_t n) {
  vc_plugin_found f;
  search_path(&f);
  if (!n || !name_ok(name, strlen(name))) return false;
  for (unsigned i = 0; i < f.ndirs; i++) {
    char path[sizeof f.dirs[0] + 96];
    snprintf(path, sizeof path, "%s/" PREFIX "%s" NOT_BUILT, f.dirs[i], name);
    FILE *fp = fopen(path, "r");
    if (!fp) continue;
    if (!fgets(reason, (int)n, fp)) reason[0] = '\0';
    fclose(fp);
    reason[strcspn(reason, "\n")] = '\0';
    if (!reason[0]) snprintf(reason, n, "no reason recorded in %s", path);
    return true;
  }
  return false;
}

void vc_plugin_found_text(const vc_plugin_found *f, char *buf, size_t n) {
  size_t u = 0;
  buf[0] = '\0';
  for (unsigned i = 0; i < f->n && u < n; i++)
    u += (size_t)snprintf(buf + u, n - u, "%s%s", i ? ", " : "", f->names[i]);
  if (!f->n) snprintf(buf, n, "none");
}

void vc_plugin_names(char *buf, size_t n) {
  vc_plugin_found f;
  vc_plugin_find(&f);
  vc_plugin_found_text(&f, buf, n);
}

int vc_plugin_load(const char *name, vc_plugin *out, vc_error *err) {
  vc_plugin_found f;
  search_path(&f);
  char tried[2048] = "";
  size_t used = 0;
  vc_errcode worst = VC_ERR_NO_DRIVER;
  bool any_file = false;
  if (!name_ok(name, strlen(name))) {
    snprintf(tried, sizeof tried, " nowhere: a backend's name is letters, digits, '-' and '_'");
    f.ndirs = 0;
  }
  for (unsigned i = 0; i < f.ndirs; i++) {
    char path[sizeof f.dirs[0] + 64];
    snprintf(path, sizeof path, "%s/" PREFIX "%s" SUFFIX, f.dirs[i], name);
    if (access(path, F_OK) != 0) {
      used += (size_t)snprintf(tried + used, used < sizeof tried ? sizeof tried - used : 0,
                               "\n  %s: not found", path);
      continue;
    }
    any_file = true;
    vc_error e;
    vc_error_clear(&e);
    if (vc_plugin_load_file(path, out, &e) == 0) return 0;
    if (e.code == VC_ERR_ABI) worst = VC_ERR_ABI;
    used += (size_t)snprintf(tried + used, used < sizeof tried ? sizeof tried - used : 0,
                             "\n  %s", e.msg);
  }
  char names[VC_PLUGIN_MAX_FOUND * 66];
  vc_plugin_find(&f);
  vc_plugin_found_text(&f, names, sizeof names);
  char why[512];
  if (any_file || !vc_plugin_not_built(name, why, sizeof why))
    return vc_fail(err, worst,
                   "no usable plugin for backend '%s' (backends found: %s); looked at:%s", name,
                   names, tried);
  /* no plugin file of the name at all, and the build says why */
  return vc_fail(err, worst,
                 "no usable plugin for backend '%s': not built: %s (backends found: %s); looked "
                 "at:%s",
                 name, why, names, tried);
}

void vc_plugin_unload(vc_plugin *p) {
  if (p->handle) dlclose(p->handle);
  memset(p, 0, sizeof *p);
}

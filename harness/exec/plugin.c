#include "harness/exec/plugin.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/exec/fault.h"

#ifndef VC_INSTALL_PLUGIN_DIR
#define VC_INSTALL_PLUGIN_DIR "/usr/local/lib/vyre-conform"
#endif

const char *const vc_plugin_names[] = {"vulkan", "cuda", "opencl"};
const unsigned vc_plugin_name_count = 3;

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

int vc_plugin_load(const char *name, vc_plugin *out, vc_error *err) {
  char dirs[8][PATH_MAX];
  unsigned ndirs = 0;
  const char *env = getenv("VYRE_CONFORM_BACKEND_PATH");
  if (env && *env) {
    const char *p = env;
    while (*p && ndirs < 6) {
      const char *colon = strchr(p, ':');
      size_t n = colon ? (size_t)(colon - p) : strlen(p);
      if (n && n < PATH_MAX) {
        memcpy(dirs[ndirs], p, n);
        dirs[ndirs++][n] = '\0';
      }
      p += n + (colon ? 1 : 0);
    }
  }
  if (self_dir(dirs[ndirs], PATH_MAX) == 0) ndirs++;
  snprintf(dirs[ndirs++], PATH_MAX, "%s", VC_INSTALL_PLUGIN_DIR);

  char tried[2048] = "";
  size_t used = 0;
  vc_errcode worst = VC_ERR_NO_DRIVER;
  for (unsigned i = 0; i < ndirs; i++) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/vc-backend-%s.so", dirs[i], name);
    if (access(path, F_OK) != 0) {
      used += (size_t)snprintf(tried + used, used < sizeof tried ? sizeof tried - used : 0,
                               "\n  %s: not found", path);
      continue;
    }
    vc_error e;
    vc_error_clear(&e);
    if (vc_plugin_load_file(path, out, &e) == 0) return 0;
    if (e.code == VC_ERR_ABI) worst = VC_ERR_ABI;
    used += (size_t)snprintf(tried + used, used < sizeof tried ? sizeof tried - used : 0,
                             "\n  %s", e.msg);
  }
  return vc_fail(err, worst, "no usable plugin for backend '%s'; looked at:%s", name, tried);
}

void vc_plugin_unload(vc_plugin *p) {
  if (p->handle) dlclose(p->handle);
  memset(p, 0, sizeof *p);
}

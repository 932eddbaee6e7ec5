/* vyre-conform backends: every plugin, whether it loads, and its devices. */
#include <stdio.h>
#include <string.h>

#include "harness/cli/args.h"
#include "harness/cli/commands.h"
#include "harness/base/exitcodes.h"
#include "harness/exec/plugin.h"

static const char help[] =
    "usage: vyre-conform backends [--backend B]\n"
    "\n"
    "For each backend plugin found (a file vc-backend-NAME.so): the file it\n"
    "was loaded from or why it could not be, then each device with its\n"
    "identity, or the exact reason there is none (no loader, no ICD, no\n"
    "driver, no device). Plugins are searched in $VYRE_CONFORM_BACKEND_PATH,\n"
    "next to the vyre-conform binary, then in the install directory; the\n"
    "first file of a name is the one used. A backend the build left out (the\n"
    "CUDA one where the CUDA toolkit was not found at configure time) is listed\n"
    "as not built, with the reason the build recorded beside the plugins\n"
    "(vc-backend-NAME.not-built).\n"
    "\n"
    "Exit status: 0 at least one device is usable; 3 none is.\n";

static void print_device(const vc_backend *be, uint32_t i) {
  vc_error e;
  vc_error_clear(&e);
  vc_dev *dev = NULL;
  if (be->open(i, NULL, &dev, &e)) {
    printf("  device %u: cannot open: %s\n", i, e.msg);
    return;
  }
  vc_device_info in;
  memset(&in, 0, sizeof in);
  if (be->describe(dev, &in, &e)) {
    printf("  device %u: cannot describe: %s\n", i, e.msg);
  } else {
    printf("  device %u: %s\n", i, in.device_name);
    printf("    api %s %s, driver %s %s, vendor 0x%04x device 0x%04x\n", in.api, in.api_version,
           in.driver_name, in.driver_version, in.vendor_id, in.device_id);
    if (in.uuid[0]) printf("    uuid %s\n", in.uuid);
    printf("    %u compute units, workgroup <= %u, shared <= %llu B, buffer <= %llu B\n",
           in.compute_units, in.max_workgroup_invocations,
           (unsigned long long)in.max_shared_bytes, (unsigned long long)in.max_buffer_bytes);
    printf("    device timestamps: %s; co-residency promised: %s; float: %s\n",
           in.timestamps ? "yes" : "no (host-only timing)", in.cooperative ? "yes" : "no",
           in.float_env[0] ? in.float_env : "-");
  }
  be->close(dev);
}

int vc_cmd_backends(int argc, char **argv) {
  if (vc_wants_help(argc, argv)) {
    char names[2048];
    vc_plugin_found f;
    vc_plugin_find(&f);
    vc_plugin_found_text(&f, names, sizeof names);
    printf("%s\nBackends found: %s.\n", help, names);
    for (unsigned b = 0; b < f.nnot; b++)
      printf("%s%s%s", b ? ", " : "Not built: ", f.not_built[b], b + 1 == f.nnot ? ".\n" : "");
    return VC_EXIT_OK;
  }
  vc_opt opts[] = {VC_OPT("backend", true, false)};
  vc_args a;
  vc_error e;
  vc_error_clear(&e);
  if (vc_args_parse(argc, argv, opts, 1, &a, &e) || a.npos) {
    vc_args_free(opts, 1, &a);
    return vc_usage_error("backends", a.npos ? "backends takes no PATH" : e.msg);
  }
  vc_opt *only = vc_args_get(opts, 1, "backend");
  vc_plugin_found found;
  vc_plugin_find(&found);
  if (!found.n && !only) {
    printf("no backend plugin (vc-backend-NAME.so) found; looked in:\n");
    for (unsigned d = 0; d < found.ndirs; d++) printf("  %s\n", found.dirs[d]);
  }
  uint32_t usable = 0;
  /* --backend NAME: that one, found or not (then the error says where it was looked for) */
  for (unsigned b = 0; b < (only ? 1 : found.n); b++) {
    const char *name = only ? only->value : found.names[b];
    vc_plugin p;
    vc_error_clear(&e);
    if (vc_plugin_load(name, &p, &e)) {
      printf("%s: not loaded: %s\n", name, e.msg);
      continue;
    }
    printf("%s: %s\n", name, p.path);
    if (p.ops->compile_offline)
      printf("  compiles without a device (vyre-conform compile): %s\n",
             p.ops->offline_ext ? p.ops->offline_ext : "bin");
    uint32_t n = 0;
    if (p.ops->device_count(&n, &e)) {
      printf("  no devices: %s\n", e.msg);
    } else {
      if (!n) printf("  no devices\n");
      for (uint32_t i = 0; i < n; i++) print_device(p.ops, i);
      usable += n;
    }
    vc_plugin_unload(&p);
  }
  for (unsigned b = 0; !only && b < found.nnot; b++) {
    char why[512];
    if (vc_plugin_not_built(found.not_built[b], why, sizeof why))
      printf("%s: not built: %s\n", found.not_built[b], why);
  }
  vc_args_free(opts, 1, &a);
  return usable ? VC_EXIT_OK : VC_EXIT_NO_BACKEND;
}

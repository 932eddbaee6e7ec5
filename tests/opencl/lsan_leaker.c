/* lsan_leaker [leak]: builds and runs one kernel on PoCL through the OpenCL
 * plugin, so that PoCL and LLVM do what makes LeakSanitizer report them
 * (with an empty PoCL cache), releases everything of its own, and with
 * "leak" then loses 4242 bytes of its own. lsan_own_leak.sh runs it under
 * the suppressions the sanitizer tests use (ci/lsan.supp): the first run
 * must pass, the second must report exactly that one leak. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/exec/plugin.h"
#include "harness/lang/parse.h"

static void *kept;

/* noinline: the report must name this function, ours. */
__attribute__((noinline)) static void leak_on_purpose(void) {
  kept = malloc(4242);
  memset(kept, 1, 4242);
  kept = NULL;
}

static const char triple[] = "(program triple (workgroup 16) (grid 4)\n"
                             "  (buffer out u32 64 write)\n"
                             "  (entry (let g (global_id x))\n"
                             "    (store out g (add (mul g 3u) 1u))))\n";

static int run_kernel(vc_error *err) {
  vc_plugin plugin;
  int rc = vc_plugin_load_file(VC_BINARY_DIR "/vc-backend-opencl.so", &plugin, err);
  if (rc) return rc;
  const vc_backend *be = plugin.ops;
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse("triple.vyre", triple, strlen(triple), &d);
  vc_diags_free(&d);
  vc_dev *dev = NULL;
  vc_kern *kern = NULL;
  vc_buf *buf = NULL;
  uint32_t out[64];
  uint64_t ns[1];
  uint32_t count = 0;
  vc_kernel_desc k = {VC_KERNEL_SEGMENT, p, NULL, "triple"};
  rc = p ? 0 : vc_fail(err, VC_ERR_USAGE, "triple does not parse");
  if (!rc) rc = be->open(0, NULL, &dev, err);
  if (!rc) rc = be->compile(dev, &k, &kern, NULL, err);
  if (!rc) rc = be->alloc(dev, sizeof out, &buf, err);
  if (!rc) rc = be->launch(dev, kern, &buf, 1, err);
  if (!rc) rc = be->finish(dev, ns, 1, &count, err);
  if (!rc) rc = be->download(dev, buf, out, sizeof out, err);
  if (rc == 0 && out[63] != 63u * 3u + 1u) rc = vc_fail(err, VC_ERR_USAGE, "wrong bytes");
  if (buf) be->free_buffer(dev, buf);
  if (kern) be->free_kernel(dev, kern);
  if (dev) be->close(dev);
  vc_program_free(p);
  vc_plugin_unload(&plugin);
  return rc;
}

int main(int argc, char **argv) {
  vc_error err;
  vc_error_clear(&err);
  if (run_kernel(&err)) {
    fprintf(stderr, "lsan_leaker: %s\n", err.msg);
    return 3;
  }
  if (argc > 1 && strcmp(argv[1], "leak") == 0) leak_on_purpose();
  return 0;
}

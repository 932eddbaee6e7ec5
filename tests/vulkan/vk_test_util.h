/* Shared by the Vulkan tests: the plugin, its first device, the test
 * programs, and running a program through the plugin the way the harness
 * runs a segment kernel. */
#ifndef VC_VK_TEST_UTIL_H
#define VC_VK_TEST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/exec/plugin.h"
#include "harness/model/program.h"

#define VKT_PLUGIN VC_BINARY_DIR "/vc-backend-vulkan.so"
#define VKT_PROGRAMS VC_SOURCE_DIR "/tests/vulkan/programs"

/* The test programs, one per semantic rule (tests/vulkan/programs/NAME.vyre). */
extern const char *const vkt_program_names[];
extern const unsigned vkt_program_count;

/* Loads the plugin; on failure prints why and returns -1 (a cmocka setup). */
int vkt_load(vc_plugin *plugin);
/* Parses tests/vulkan/programs/NAME.vyre; NULL (with the diagnostics
   printed) when it does not parse. */
vc_program *vkt_parse(const char *name);
/* Parses .vyre text given inline. */
vc_program *vkt_parse_text(const char *name, const char *text);

/* Buffer contents of one run: data[i] holds program buffer i. */
typedef struct vkt_buffers {
  uint32_t n;
  uint32_t **data;
} vkt_buffers;

/* Every buffer with its initial contents (vc_inputs_fill). */
int vkt_buffers_init(const vc_program *p, vkt_buffers *b);
void vkt_buffers_free(vkt_buffers *b);

/* Compiles p as one segment kernel, uploads its inputs (write buffers are
   zeroed on the device), launches once, finishes and downloads every
   buffer. Returns a vc_errcode; err says why. */
int vkt_run_device(const vc_backend *ops, vc_dev *dev, const vc_program *p, vkt_buffers *out,
                   vc_error *err);

/* Calls fn on every native case (.vyre file) directly in dir, parsed and
   split (tests/native/native_util.h), in name order; fails the running
   test when dir holds fewer than min. */
struct native_case;
void vkt_native_each(const char *dir, size_t min, void (*fn)(struct native_case *c, void *ctx),
                     void *ctx);

/* Compares the outputs (write and read_write buffers) of a device run with
   the expected ones by the rules of docs/semantics.md: bits, except that
   any NaN equals any NaN and (expect (ulp B N)) allows N units. Returns
   false and writes the first difference into why. */
bool vkt_outputs_equal(const vc_program *p, const vkt_buffers *expected, const vkt_buffers *actual,
                       char *why, size_t n);

#endif

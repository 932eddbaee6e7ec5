/* Two dispatches recorded into one submission need a pipeline barrier
 * between them (compute writes made visible to the next dispatch's reads
 * and writes). lavapipe runs the dispatches of a command buffer in order
 * and finishes each before the next, so no program's bytes can show a
 * missing barrier there (docs/detection.md, no-dispatch-barrier); a GPU
 * overlaps them. So this test counts, on lavapipe, the compute-to-compute
 * buffer barriers the plugin records while it records the second launch:
 * vkCmdPipelineBarrier is wrapped at link time (-Wl,--wrap). */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/vulkan/vk_internal.h"
#include "harness/lang/parse.h"

void __real_vkCmdPipelineBarrier(VkCommandBuffer cb, VkPipelineStageFlags src,
                                 VkPipelineStageFlags dst, VkDependencyFlags dep, uint32_t nmem,
                                 const VkMemoryBarrier *mem, uint32_t nbuf,
                                 const VkBufferMemoryBarrier *buf, uint32_t nimg,
                                 const VkImageMemoryBarrier *img);
void __wrap_vkCmdPipelineBarrier(VkCommandBuffer cb, VkPipelineStageFlags src,
                                 VkPipelineStageFlags dst, VkDependencyFlags dep, uint32_t nmem,
                                 const VkMemoryBarrier *mem, uint32_t nbuf,
                                 const VkBufferMemoryBarrier *buf, uint32_t nimg,
                                 const VkImageMemoryBarrier *img);

static unsigned compute_barriers; /* compute -> compute, with memory made visible */

void __wrap_vkCmdPipelineBarrier(VkCommandBuffer cb, VkPipelineStageFlags src,
                                 VkPipelineStageFlags dst, VkDependencyFlags dep, uint32_t nmem,
                                 const VkMemoryBarrier *mem, uint32_t nbuf,
                                 const VkBufferMemoryBarrier *buf, uint32_t nimg,
                                 const VkImageMemoryBarrier *img) {
  if ((src & VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT) && (dst & VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT) &&
      nmem + nbuf > 0)
    compute_barriers++;
  __real_vkCmdPipelineBarrier(cb, src, dst, dep, nmem, mem, nbuf, buf, nimg, img);
}

static const char prog_text[] =
    "(program twice (workgroup 64) (grid 1)\n"
    "  (buffer a u32 64 read_write)\n"
    "  (entry\n"
    "    (let i (global_id x))\n"
    "    (store a i (add (load a (xor i 1u)) 1u))))\n";

static void barrier_between_dispatches(void **state) {
  (void)state;
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse("twice.vyre", prog_text, strlen(prog_text), &d);
  vc_diags_free(&d);
  assert_non_null(p);
  vc_error err = {0};
  vc_dev *dev = NULL;
  if (vk_open(0, NULL, &dev, &err)) fail_msg("open: %s", err.msg);
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "segment 0"};
  vc_kern *kern = NULL;
  vc_compile_info info = {0};
  if (vk_compile(dev, &k, &kern, &info, &err)) fail_msg("compile: %s", err.msg);
  free(info.log);
  vc_buf *buf = NULL;
  if (vk_alloc(dev, vc_buffer_bytes(&p->buffers[0]), &buf, &err)) fail_msg("alloc: %s", err.msg);
  if (vk_zero(dev, buf, &err)) fail_msg("zero: %s", err.msg);
  if (vk_launch(dev, kern, &buf, 1, &err)) fail_msg("launch: %s", err.msg);
  unsigned before = compute_barriers;
  if (vk_launch(dev, kern, &buf, 1, &err)) fail_msg("launch: %s", err.msg);
  unsigned between = compute_barriers - before;
  uint32_t count = 0;
  if (vk_finish(dev, NULL, 0, &count, &err)) fail_msg("finish: %s", err.msg);
  assert_true(between >= 1);
  vk_free_buffer(dev, buf);
  vk_free_kernel(dev, kern);
  vk_close(dev);
  vc_program_free(p);
}

int main(void) {
  /* lavapipe keeps an allocation in a static until it is unloaded; the
     loader unloads it at vkDestroyInstance, and LeakSanitizer, which runs
     at exit, then sees it unreferenced in a module it can no longer name
     (so no suppression by library name can match it). Kept loaded, the
     allocation stays reachable and our own leaks are still reported. */
  (void)dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE);
  const struct CMUnitTest tests[] = {cmocka_unit_test(barrier_between_dispatches)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}

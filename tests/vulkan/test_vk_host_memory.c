/* host_alloc's memory on lavapipe: a mapped host-visible buffer that upload
 * and download copy straight from and to with one vkCmdCopyBuffer (wrapped
 * at link time, -Wl,--wrap, to see its buffers), never through the staging
 * buffer, exact for odd sizes, 0 bytes and more than the staging buffer
 * holds, and ordered after the launches recorded before them; memory from
 * elsewhere still goes through staging; with host-memory=malloc
 * host_alloc's memory does too. */
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

void __real_vkCmdCopyBuffer(VkCommandBuffer cb, VkBuffer src, VkBuffer dst, uint32_t n,
                            const VkBufferCopy *regions);
void __wrap_vkCmdCopyBuffer(VkCommandBuffer cb, VkBuffer src, VkBuffer dst, uint32_t n,
                            const VkBufferCopy *regions);

static unsigned copies;
static VkBuffer last_src, last_dst;

void __wrap_vkCmdCopyBuffer(VkCommandBuffer cb, VkBuffer src, VkBuffer dst, uint32_t n,
                            const VkBufferCopy *regions) {
  copies++;
  last_src = src;
  last_dst = dst;
  __real_vkCmdCopyBuffer(cb, src, dst, n, regions);
}

static vc_dev *base; /* open for the whole file */

static vc_dev *open_dev(const char *options) {
  vc_error err = {0};
  vc_dev *dev = NULL;
  if (vk_open(0, options, &dev, &err)) fail_msg("open: %s", err.msg);
  return dev;
}

static void fill(unsigned char *p, uint64_t n, unsigned seed) {
  for (uint64_t i = 0; i < n; i++) p[i] = (unsigned char)(i * 167 + seed + (i >> 11));
}

static void direct_round_trips(void **state) {
  (void)state;
  vc_dev *dev = base;
  const uint64_t sizes[] = {0, 1, 7, 4093, 65537, (uint64_t)VK_STAGING_MAX + 5};
  vc_error e = {0};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    uint64_t n = sizes[s];
    unsigned char *in = NULL, *out = NULL;
    assert_int_equal(vk_host_alloc(dev, n, (void **)&in, &e), 0);
    assert_int_equal(vk_host_alloc(dev, n + 8, (void **)&out, &e), 0);
    assert_int_equal((uintptr_t)in % 4, 0);
    fill(in, n, (unsigned)s);
    memset(out, 0xee, n + 8);
    vc_buf *b = NULL;
    assert_int_equal(vk_alloc(dev, n ? n : 4, &b, &e), 0);
    unsigned before = copies;
    assert_int_equal(vk_upload(dev, b, in, n, &e), 0);
    assert_int_equal(copies - before, n ? 1 : 0);
    if (n) {
      assert_true(last_src == vk_host_find(dev, in, n)->buffer);
      assert_true(last_dst == b->buffer);
    }
    before = copies;
    /* into the middle of a mapped region: still direct */
    assert_int_equal(vk_download(dev, b, out + 4, n, &e), 0);
    assert_int_equal(copies - before, n ? 1 : 0);
    if (n) assert_true(last_dst == vk_host_find(dev, out + 4, n)->buffer);
    if (n && memcmp(in, out + 4, n) != 0)
      fail_msg("round trip of %llu bytes differs", (unsigned long long)n);
    for (int i = 0; i < 4; i++) assert_int_equal(out[i], 0xee);
    for (int i = 0; i < 4; i++) assert_int_equal(out[n + 4 + (uint64_t)i], 0xee);
    assert_true(dev->staging == VK_NULL_HANDLE); /* never needed */
    vk_free_buffer(dev, b);
    vk_host_free(dev, in);
    vk_host_free(dev, out);
  }
  assert_int_equal(dev->nhosts, 0);
  /* memory from malloc: through staging, in two chunks here */
  uint64_t n = (uint64_t)VK_STAGING_MAX + 5;
  unsigned char *plain = malloc(n), *back = malloc(n);
  assert_non_null(plain);
  assert_non_null(back);
  fill(plain, n, 3);
  vc_buf *b = NULL;
  assert_int_equal(vk_alloc(dev, n, &b, &e), 0);
  unsigned before = copies;
  assert_int_equal(vk_upload(dev, b, plain, n, &e), 0);
  assert_int_equal(copies - before, 2);
  assert_true(last_src == dev->staging);
  assert_int_equal(vk_download(dev, b, back, n, &e), 0);
  assert_memory_equal(plain, back, n);
  vk_free_buffer(dev, b);
  free(plain);
  free(back);
  /* what close finds still allocated it gives back (ASan would say
     otherwise) */
  vc_dev *other = open_dev(NULL);
  void *left = NULL;
  assert_int_equal(vk_host_alloc(other, 100, &left, &e), 0);
  assert_int_equal(other->nhosts, 1);
  vk_close(other);
}

static const char add_one[] =
    "(program add_one (workgroup 64) (grid 4)\n"
    "  (buffer a u32 256 read_write)\n"
    "  (entry (let i (global_id x)) (store a i (add (load a i) 1u))))\n";

/* upload, two launches, download, with no finish between: the download
   sees both launches, the upload was seen by the first. */
static void ordered_with_launches(void **state) {
  (void)state;
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse("add_one.vyre", add_one, strlen(add_one), &d);
  vc_diags_free(&d);
  assert_non_null(p);
  vc_dev *dev = base;
  vc_error e = {0};
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "segment 0"};
  vc_kern *kern = NULL;
  vc_compile_info info = {0};
  if (vk_compile(dev, &k, &kern, &info, &e)) fail_msg("compile: %s", e.msg);
  free(info.log);
  uint32_t *host = NULL;
  assert_int_equal(vk_host_alloc(dev, 1024, (void **)&host, &e), 0);
  for (uint32_t i = 0; i < 256; i++) host[i] = i * 7;
  vc_buf *b = NULL;
  assert_int_equal(vk_alloc(dev, 1024, &b, &e), 0);
  assert_int_equal(vk_upload(dev, b, host, 1024, &e), 0);
  memset(host, 0, 1024); /* the upload has returned: the device has its own copy */
  assert_int_equal(vk_launch(dev, kern, &b, 1, &e), 0);
  assert_int_equal(vk_launch(dev, kern, &b, 1, &e), 0);
  assert_int_equal(vk_download(dev, b, host, 1024, &e), 0);
  for (uint32_t i = 0; i < 256; i++) assert_int_equal(host[i], i * 7 + 2);
  uint32_t count = 0;
  assert_int_equal(vk_finish(dev, NULL, 0, &count, &e), 0);
  vk_free_buffer(dev, b);
  vk_host_free(dev, host);
  vk_free_kernel(dev, kern);
  vc_program_free(p);
}

static void malloc_option(void **state) {
  (void)state;
  vc_dev *dev = open_dev("host-memory=malloc");
  vc_error e = {0};
  const uint64_t n = 65537;
  unsigned char *in = NULL, *out = NULL;
  assert_int_equal(vk_host_alloc(dev, n, (void **)&in, &e), 0);
  assert_int_equal(vk_host_alloc(dev, n, (void **)&out, &e), 0);
  assert_null(vk_host_find(dev, in, n));
  fill(in, n, 9);
  vc_buf *b = NULL;
  assert_int_equal(vk_alloc(dev, n, &b, &e), 0);
  assert_int_equal(vk_upload(dev, b, in, n, &e), 0);
  assert_true(last_src == dev->staging);
  assert_int_equal(vk_download(dev, b, out, n, &e), 0);
  assert_true(last_dst == dev->staging);
  assert_memory_equal(in, out, n);
  vk_free_buffer(dev, b);
  vk_host_free(dev, in);
  vk_host_free(dev, out);
  vk_close(dev);
  vc_dev *bad = NULL;
  assert_int_equal(vk_open(0, "host-memory=pinned", &bad, &e), VC_ERR_USAGE);
  assert_null(bad);
  assert_non_null(strstr(e.msg, "host-memory"));
}

static void above_the_allocation_limit(void **state) {
  (void)state;
  vc_dev *dev = base;
  vc_error e = {0};
  void *p = NULL;
  assert_int_equal(vk_host_alloc(dev, dev->max_alloc + 1, &p, &e), VC_ERR_LIMIT);
  assert_null(p);
  assert_non_null(strstr(e.msg, "is above maxMemoryAllocationSize"));
}

static int setup(void **state) {
  (void)state;
  base = open_dev(NULL);
  return base ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  vk_close(base);
  return 0;
}

int main(void) {
  /* kept loaded, as in test_vk_dispatch_barrier.c: lavapipe's static
     allocation stays reachable instead of lying in a module LeakSanitizer
     can no longer name once the loader unloads it */
  (void)dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(direct_round_trips),
      cmocka_unit_test(ordered_with_launches),
      cmocka_unit_test(malloc_option),
      cmocka_unit_test(above_the_allocation_limit),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

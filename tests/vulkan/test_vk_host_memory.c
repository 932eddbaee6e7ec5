/* host_alloc's memory on lavapipe: a mapped host-visible buffer that upload
 * and download copy straight from and to with one vkCmdCopyBuffer (wrapped
 * at link time, -Wl,--wrap, to see its buffers), never through the staging
 * buffer, exact for odd sizes, 0 bytes and more than the staging buffer
 * holds; memory from elsewhere still goes through staging; with
 * host-memory=malloc host_alloc's memory does too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/vulkan/vk_internal.h"

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
  vc_dev *dev = open_dev(NULL);
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
  /* what close finds still allocated it gives back (ASan and the
     validation of lavapipe would say otherwise) */
  void *left = NULL;
  assert_int_equal(vk_host_alloc(dev, 100, &left, &e), 0);
  vk_close(dev);
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
  vc_dev *dev = open_dev(NULL);
  vc_error e = {0};
  void *p = NULL;
  assert_int_equal(vk_host_alloc(dev, dev->max_alloc + 1, &p, &e), VC_ERR_LIMIT);
  assert_null(p);
  assert_non_null(strstr(e.msg, "is above maxMemoryAllocationSize"));
  vk_close(dev);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(direct_round_trips),
      cmocka_unit_test(malloc_option),
      cmocka_unit_test(above_the_allocation_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* host_alloc's memory on PoCL: a CL_MEM_ALLOC_HOST_PTR buffer mapped once,
 * whose pointer upload and download hand to clEnqueueWriteBuffer and
 * clEnqueueReadBuffer; exact for odd sizes, 0 bytes and large ones; given
 * back (unmapped, released) by host_free and by close; host-memory=malloc
 * gives malloc memory instead. The plugin's OpenCL calls are seen through
 * functions of the same names in this executable (exported, so the
 * dynamic linker binds the plugin's calls to them), which count and pass
 * each call on to the ICD loader. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include "harness/exec/plugin.h"

#define PLUGIN VC_BINARY_DIR "/vc-backend-opencl.so"

static void *loader;
static unsigned host_ptr_buffers, maps, unmaps, writes_mapped, reads_mapped, released;
static void *mapped[64];
static size_t mapped_bytes[64];

static void *real(const char *name) {
  if (!loader) loader = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  void *f = loader ? dlsym(loader, name) : NULL;
  if (!f) {
    fprintf(stderr, "no %s in libOpenCL.so.1\n", name);
    abort();
  }
  return f;
}

#define REAL(type, name)                                                                     \
  static type real_##name;                                                                   \
  if (!real_##name) {                                                                        \
    void *f_ = real(#name);                                                                  \
    memcpy(&real_##name, &f_, sizeof f_);                                                    \
  }

static bool in_mapped(const void *p, size_t n) {
  const char *c = p;
  for (int i = 0; i < 64; i++)
    if (mapped[i] && c >= (char *)mapped[i] && c + n <= (char *)mapped[i] + mapped_bytes[i])
      return true;
  return false;
}

typedef cl_mem (*create_fn)(cl_context, cl_mem_flags, size_t, void *, cl_int *);
CL_API_ENTRY cl_mem CL_API_CALL clCreateBuffer(cl_context c, cl_mem_flags f, size_t n, void *h,
                                               cl_int *st) {
  REAL(create_fn, clCreateBuffer);
  if (f & CL_MEM_ALLOC_HOST_PTR) host_ptr_buffers++;
  return real_clCreateBuffer(c, f, n, h, st);
}

typedef void *(*map_fn)(cl_command_queue, cl_mem, cl_bool, cl_map_flags, size_t, size_t, cl_uint,
                        const cl_event *, cl_event *, cl_int *);
CL_API_ENTRY void *CL_API_CALL clEnqueueMapBuffer(cl_command_queue q, cl_mem m, cl_bool b,
                                                  cl_map_flags f, size_t off, size_t n,
                                                  cl_uint ne, const cl_event *w, cl_event *e,
                                                  cl_int *st) {
  REAL(map_fn, clEnqueueMapBuffer);
  void *p = real_clEnqueueMapBuffer(q, m, b, f, off, n, ne, w, e, st);
  maps++;
  for (int i = 0; p && i < 64; i++)
    if (!mapped[i]) {
      mapped[i] = p;
      mapped_bytes[i] = n;
      break;
    }
  return p;
}

typedef cl_int (*unmap_fn)(cl_command_queue, cl_mem, void *, cl_uint, const cl_event *,
                           cl_event *);
CL_API_ENTRY cl_int CL_API_CALL clEnqueueUnmapMemObject(cl_command_queue q, cl_mem m, void *p,
                                                        cl_uint ne, const cl_event *w,
                                                        cl_event *e) {
  REAL(unmap_fn, clEnqueueUnmapMemObject);
  unmaps++;
  for (int i = 0; i < 64; i++)
    if (mapped[i] == p) mapped[i] = NULL;
  return real_clEnqueueUnmapMemObject(q, m, p, ne, w, e);
}

typedef cl_int (*release_fn)(cl_mem);
CL_API_ENTRY cl_int CL_API_CALL clReleaseMemObject(cl_mem m) {
  REAL(release_fn, clReleaseMemObject);
  released++;
  return real_clReleaseMemObject(m);
}

typedef cl_int (*write_fn)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void *,
                           cl_uint, const cl_event *, cl_event *);
CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool b,
                                                     size_t off, size_t n, const void *p,
                                                     cl_uint ne, const cl_event *w,
                                                     cl_event *e) {
  REAL(write_fn, clEnqueueWriteBuffer);
  if (in_mapped(p, n)) writes_mapped++;
  return real_clEnqueueWriteBuffer(q, m, b, off, n, p, ne, w, e);
}

typedef cl_int (*read_fn)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *, cl_uint,
                          const cl_event *, cl_event *);
CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool b,
                                                    size_t off, size_t n, void *p, cl_uint ne,
                                                    const cl_event *w, cl_event *e) {
  REAL(read_fn, clEnqueueReadBuffer);
  if (in_mapped(p, n)) reads_mapped++;
  return real_clEnqueueReadBuffer(q, m, b, off, n, p, ne, w, e);
}

static vc_plugin plugin;
static const vc_backend *be;

static int setup(void **state) {
  (void)state;
  vc_error err = {0};
  if (vc_plugin_load_file(PLUGIN, &plugin, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return -1;
  }
  be = plugin.ops;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  vc_plugin_unload(&plugin);
  return 0;
}

static vc_dev *open_dev(const char *options) {
  vc_dev *dev = NULL;
  vc_error e = {0};
  if (be->open(0, options, &dev, &e)) fail_msg("open: %s", e.msg);
  return dev;
}

static void mapped_round_trips(void **state) {
  (void)state;
  vc_dev *dev = open_dev(NULL);
  const uint64_t sizes[] = {0, 1, 7, 4093, 65537, (64u << 20) + 5};
  vc_error e = {0};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    uint64_t n = sizes[s];
    unsigned before_buffers = host_ptr_buffers, before_maps = maps;
    unsigned char *in = NULL, *out = NULL;
    assert_int_equal(be->host_alloc(dev, n, (void **)&in, &e), 0);
    assert_int_equal(be->host_alloc(dev, n + 8, (void **)&out, &e), 0);
    assert_int_equal(host_ptr_buffers - before_buffers, 2);
    assert_int_equal(maps - before_maps, 2);
    assert_int_equal((uintptr_t)in % 4, 0);
    for (uint64_t i = 0; i < n; i++) in[i] = (unsigned char)(i * 173 + s + (i >> 10));
    memset(out, 0xee, n + 8);
    vc_buf *b = NULL;
    assert_int_equal(be->alloc(dev, n ? n : 4, &b, &e), 0);
    unsigned w0 = writes_mapped, r0 = reads_mapped;
    assert_int_equal(be->upload(dev, b, in, n, &e), 0);
    assert_int_equal(be->download(dev, b, out + 4, n, &e), 0);
    assert_int_equal(writes_mapped - w0, n ? 1 : 0);
    assert_int_equal(reads_mapped - r0, n ? 1 : 0);
    if (n && memcmp(in, out + 4, n) != 0)
      fail_msg("round trip of %llu bytes differs", (unsigned long long)n);
    for (int i = 0; i < 4; i++) assert_int_equal(out[i], 0xee);
    for (int i = 0; i < 4; i++) assert_int_equal(out[n + 4 + (uint64_t)i], 0xee);
    be->free_buffer(dev, b);
    unsigned u0 = unmaps, rel0 = released;
    be->host_free(dev, in);
    be->host_free(dev, out);
    assert_int_equal(unmaps - u0, 2);
    assert_int_equal(released - rel0, 2);
  }
  /* what close finds still allocated it gives back */
  void *left = NULL;
  assert_int_equal(be->host_alloc(dev, 100, &left, &e), 0);
  unsigned u0 = unmaps;
  be->close(dev);
  assert_int_equal(unmaps - u0, 1);
}

static void malloc_option(void **state) {
  (void)state;
  vc_dev *dev = open_dev("host-memory=malloc");
  vc_error e = {0};
  unsigned before = host_ptr_buffers;
  unsigned char *p = NULL;
  assert_int_equal(be->host_alloc(dev, 4099, (void **)&p, &e), 0);
  assert_int_equal(host_ptr_buffers, before);
  assert_false(in_mapped(p, 4099));
  for (int i = 0; i < 4099; i++) p[i] = (unsigned char)i;
  vc_buf *b = NULL;
  assert_int_equal(be->alloc(dev, 4099, &b, &e), 0);
  assert_int_equal(be->upload(dev, b, p, 4099, &e), 0);
  memset(p, 0, 4099);
  assert_int_equal(be->download(dev, b, p, 4099, &e), 0);
  for (int i = 0; i < 4099; i++) assert_int_equal(p[i], (unsigned char)i);
  be->free_buffer(dev, b);
  be->host_free(dev, p);
  be->close(dev);
  vc_dev *bad = NULL;
  assert_int_equal(be->open(0, "host-memory=pinned", &bad, &e), VC_ERR_USAGE);
  assert_null(bad);
  assert_non_null(strstr(e.msg, "host-memory"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(mapped_round_trips),
      cmocka_unit_test(malloc_option),
  };
  int rc = cmocka_run_group_tests(tests, setup, teardown);
  if (loader) dlclose(loader);
  return rc;
}

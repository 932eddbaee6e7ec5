/* The oracle's in-process backend table (oracles/oracle_backend.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/model/inputs.h"
#include "oracle_util.h"
#include "oracles/oracle_backend.h"

static const char segment_program[] =
    "(program seg (workgroup 8) (grid 4)\n"
    " (buffer in u32 32 read (init (random 3))) (buffer acc u32 32 read_write (init iota))\n"
    " (buffer out u32 32 write) (buffer cnt u32 1 read_write) (shared t u32 8)\n"
    " (entry (store t (local_id x) (load in (global_id x))) (barrier workgroup)\n"
    "  (store out (global_id x) (add (load acc (global_id x)) (load t (sub 7u (local_id x)))))\n"
    "  (atomic add cnt 0u (load acc (global_id x)))))";

/* Runs p through the table: upload inputs, launch, download every buffer. */
static void run_on_table(const vc_backend *be, vc_dev *dev, const vc_program *p, uint32_t **host,
                         const char *label) {
  vc_error err = {0};
  vc_kernel_desc k = {VC_KERNEL_SEGMENT, p, NULL, label};
  vc_kern *kern = NULL;
  vc_compile_info info;
  assert_int_equal(be->compile(dev, &k, &kern, &info, &err), 0);
  assert_null(info.log);
  vc_buf *bufs[8];
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    uint64_t bytes = vc_buffer_bytes(&p->buffers[i]);
    assert_int_equal(be->alloc(dev, bytes, &bufs[i], &err), 0);
    vc_inputs_fill(&p->buffers[i], host[i]);
    if (p->buffers[i].access == VC_WRITE) assert_int_equal(be->zero(dev, bufs[i], &err), 0);
    else assert_int_equal(be->upload(dev, bufs[i], host[i], bytes, &err), 0);
  }
  assert_int_equal(be->launch(dev, kern, bufs, p->nbuffers, &err), 0);
  uint64_t ns[4];
  uint32_t count = 99;
  assert_int_equal(be->finish(dev, ns, 4, &count, &err), 0);
  assert_int_equal(count, 0);
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    assert_int_equal(be->download(dev, bufs[i], host[i], vc_buffer_bytes(&p->buffers[i]), &err), 0);
    be->free_buffer(dev, bufs[i]);
  }
  be->free_kernel(dev, kern);
}

static uint32_t **host_buffers(const vc_program *p) {
  uint32_t **h = calloc(p->nbuffers, sizeof *h);
  assert_non_null(h);
  for (uint32_t i = 0; i < p->nbuffers; i++) assert_non_null(h[i] = calloc(p->buffers[i].count, 4));
  return h;
}

static void free_host(const vc_program *p, uint32_t **h) {
  for (uint32_t i = 0; i < p->nbuffers; i++) free(h[i]);
  free(h);
}

static void table_and_device(void **state) {
  (void)state;
  const vc_backend *be = vc_oracle_backend();
  assert_int_equal(be->abi_version, VC_BACKEND_ABI_VERSION);
  assert_int_equal(be->struct_size, sizeof(vc_backend));
  assert_string_equal(be->name, "oracle");
  vc_error err = {0};
  uint32_t n = 0;
  assert_int_equal(be->device_count(&n, &err), 0);
  assert_int_equal(n, 1);
  vc_dev *dev = NULL;
  assert_int_equal(be->open(1, NULL, &dev, &err), VC_ERR_NO_DEVICE);
  assert_int_equal(be->open(0, "order=sideways", &dev, &err), VC_ERR_USAGE);
  assert_non_null(strstr(err.msg, "order=sideways"));
  assert_int_equal(be->open(0, "colour=blue", &dev, &err), VC_ERR_USAGE);
  assert_int_equal(be->open(0, "order=shuffle,seed=5,checks=off", &dev, &err), 0);
  vc_device_info *info = calloc(1, sizeof *info);
  assert_non_null(info);
  assert_int_equal(be->describe(dev, info, &err), 0);
  assert_string_equal(info->api, "oracle");
  assert_int_equal(info->max_workgroup_invocations, VC_MAX_WORKGROUP_INVOCATIONS);
  assert_false(info->timestamps);
  free(info);
  be->close(dev);
}

static void native_kernels_are_unsupported(void **state) {
  (void)state;
  const vc_backend *be = vc_oracle_backend();
  vc_error err = {0};
  vc_dev *dev = NULL;
  assert_int_equal(be->open(0, NULL, &dev, &err), 0);
  vc_program *p = vt_parse(segment_program);
  vc_native_desc nd = {0};
  vc_kernel_desc k = {VC_KERNEL_NATIVE, p, &nd, "native"};
  vc_kern *kern = (vc_kern *)&err; /* must be reset */
  assert_int_equal(be->compile(dev, &k, &kern, NULL, &err), VC_ERR_UNSUPPORTED);
  assert_null(kern);
  assert_non_null(strstr(err.msg, "native"));
  char *src = NULL;
  assert_int_equal(be->emit(&k, dev, &src, &err), VC_ERR_UNSUPPORTED);
  k.kind = VC_KERNEL_SEGMENT;
  assert_int_equal(be->emit(&k, dev, &src, &err), 0);
  assert_non_null(strstr(src, "bar"));
  free(src);
  assert_int_equal(be->native_stats(dev, NULL, NULL, &err), VC_ERR_UNSUPPORTED);
  vc_program_free(p);
  be->close(dev);
}

/* A launch gives exactly what vc_oracle_run gives. */
static void launch_matches_direct_run(void **state) {
  (void)state;
  vt_run direct;
  vt_exec(&direct, segment_program, NULL);
  const vc_backend *be = vc_oracle_backend();
  vc_error err = {0};
  vc_dev *dev = NULL;
  assert_int_equal(be->open(0, NULL, &dev, &err), 0);
  uint32_t **host = host_buffers(direct.p);
  run_on_table(be, dev, direct.p, host, "segment 0");
  for (uint32_t i = 0; i < direct.p->nbuffers; i++)
    assert_memory_equal(host[i], direct.bufs[i], (size_t)direct.p->buffers[i].count * 4);
  vc_oracle_report rep;
  assert_int_equal(vc_oracle_backend_report(dev, &rep), 0);
  assert_int_equal(rep.ops, direct.rep.ops);
  assert_int_equal(rep.segments, 1);
  for (int k = 0; k < VC_ISSUE_COUNT; k++) assert_int_equal(rep.issues[k].count, 0);
  free_host(direct.p, host);
  be->close(dev);
  vt_done(&direct);
}

/* Issues of several launches add up; the first keeps its kernel's label. */
static void report_merges_launches(void **state) {
  (void)state;
  vc_program *racy = vt_parse("(program r (grid 2) (buffer out u32 1 write)\n"
                              " (entry (store out 0u (group_id x))))");
  vc_program *oob = vt_parse("(program o (buffer out u32 1 write) (entry (store out 1u 0u)))");
  const vc_backend *be = vc_oracle_backend();
  vc_error err = {0};
  vc_dev *dev = NULL;
  assert_int_equal(be->open(0, NULL, &dev, &err), 0);
  uint32_t **h1 = host_buffers(racy), **h2 = host_buffers(oob);
  run_on_table(be, dev, racy, h1, "segment 0");
  run_on_table(be, dev, oob, h2, "segment 1");
  run_on_table(be, dev, racy, h1, "segment 2");
  vc_oracle_report rep;
  assert_int_equal(vc_oracle_backend_report(dev, &rep), 0);
  assert_int_equal(rep.segments, 3);
  assert_int_equal(rep.issues[VC_ISSUE_RACE].count, 2);
  assert_int_equal(rep.issues[VC_ISSUE_OOB].count, 1);
  assert_non_null(strstr(rep.issues[VC_ISSUE_RACE].msg, "segment 0: data race on out[0]"));
  assert_non_null(strstr(rep.issues[VC_ISSUE_OOB].msg, "segment 1: out-of-bounds store to out[1]"));
  char why[256];
  assert_true(vc_oracle_invalid(racy, &rep, why, sizeof why));
  assert_int_equal(vc_oracle_backend_report(NULL, &rep), VC_ERR_USAGE);
  free_host(racy, h1);
  free_host(oob, h2);
  vc_program_free(racy);
  vc_program_free(oob);
  be->close(dev);
}

static void bad_bindings_are_refused(void **state) {
  (void)state;
  vc_program *p = vt_parse(segment_program);
  const vc_backend *be = vc_oracle_backend();
  vc_error err = {0};
  vc_dev *dev = NULL;
  assert_int_equal(be->open(0, NULL, &dev, &err), 0);
  vc_kernel_desc k = {VC_KERNEL_SEGMENT, p, NULL, "segment 0"};
  vc_kern *kern = NULL;
  assert_int_equal(be->compile(dev, &k, &kern, NULL, &err), 0);
  vc_buf *bufs[4];
  for (int i = 0; i < 4; i++) assert_int_equal(be->alloc(dev, i == 2 ? 64 : 128, &bufs[i], &err), 0);
  assert_int_equal(be->launch(dev, kern, bufs, 3, &err), VC_ERR_USAGE); /* too few */
  assert_int_equal(be->launch(dev, kern, bufs, 4, &err), VC_ERR_USAGE); /* out is too small */
  assert_non_null(strstr(err.msg, "64 bytes"));
  uint32_t words[64] = {0};
  assert_int_equal(be->upload(dev, bufs[2], words, 256, &err), VC_ERR_USAGE);
  assert_int_equal(be->download(dev, bufs[0], words, 129, &err), VC_ERR_USAGE);
  for (int i = 0; i < 4; i++) be->free_buffer(dev, bufs[i]);
  be->free_kernel(dev, kern);
  be->close(dev);
  vc_program_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(table_and_device),
      cmocka_unit_test(native_kernels_are_unsupported),
      cmocka_unit_test(launch_matches_direct_run),
      cmocka_unit_test(report_merges_launches),
      cmocka_unit_test(bad_bindings_are_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

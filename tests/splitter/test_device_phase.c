/* The device phase (harness/exec/modes.h, vc_device_gate) of each mode:
 * entered once, after the mode's device buffers and host copies are made,
 * left before they are given back, every copy, clear, launch and finish
 * inside it; on an error inside it too, the gate left and nothing leaked.
 * The oracle backend with recording entries (a fake inside a unit test);
 * native kernels are stand-ins that launch nothing, since only the order of
 * the calls is looked at there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/exec/modes.h"
#include "harness/exec/reference.h"
#include "harness/lang/parse.h"
#include "harness/split/split.h"
#include "oracles/oracle_backend.h"

static const vc_backend *oracle;
static vc_backend wrapped;
static bool in_phase;
static uint32_t enters, leaves, inside, outside_bad, memory_calls, launches, fail_launch;
static int live_bufs;
static char stand_in_byte;
static vc_kern *const stand_in = (vc_kern *)&stand_in_byte; /* the native kernel */

static void device_op(void) {
  if (in_phase) inside++;
  else outside_bad++;
}

static void memory_op(void) {
  memory_calls++;
  if (in_phase) outside_bad++;
}

static int gate_enter(void *ctx, vc_error *err) {
  (void)ctx;
  (void)err;
  assert_false(in_phase);
  in_phase = true;
  enters++;
  return 0;
}

static void gate_leave(void *ctx) {
  (void)ctx;
  assert_true(in_phase);
  in_phase = false;
  leaves++;
}

static int r_alloc(vc_dev *dev, uint64_t bytes, vc_buf **buf, vc_error *err) {
  memory_op();
  int rc = oracle->alloc(dev, bytes, buf, err);
  live_bufs += rc == 0;
  return rc;
}

static void r_free_buffer(vc_dev *dev, vc_buf *buf) {
  memory_op();
  live_bufs--;
  oracle->free_buffer(dev, buf);
}

static int r_host_alloc(vc_dev *dev, uint64_t bytes, void **p, vc_error *err) {
  (void)dev;
  memory_op();
  *p = malloc(bytes ? bytes : 4);
  return *p ? 0 : vc_fail(err, VC_ERR_NOMEM, "test: malloc");
}

static void r_host_free(vc_dev *dev, void *p) {
  (void)dev;
  memory_op();
  free(p);
}

static int r_upload(vc_dev *dev, vc_buf *buf, const void *src, uint64_t bytes, vc_error *err) {
  device_op();
  return oracle->upload(dev, buf, src, bytes, err);
}

static int r_download(vc_dev *dev, vc_buf *buf, void *dst, uint64_t bytes, vc_error *err) {
  device_op();
  return oracle->download(dev, buf, dst, bytes, err);
}

static int r_zero(vc_dev *dev, vc_buf *buf, vc_error *err) {
  device_op();
  return oracle->zero(dev, buf, err);
}

static int r_compile(vc_dev *dev, const vc_kernel_desc *d, vc_kern **k, vc_compile_info *ci,
                     vc_error *err) {
  assert_false(in_phase); /* compiles come before the phase */
  if (d->kind != VC_KERNEL_NATIVE) return oracle->compile(dev, d, k, ci, err);
  *k = stand_in;
  return 0;
}

static void r_free_kernel(vc_dev *dev, vc_kern *k) {
  if (k != stand_in) oracle->free_kernel(dev, k);
}

static int r_launch(vc_dev *dev, vc_kern *k, vc_buf *const *bufs, uint32_t n, vc_error *err) {
  device_op();
  if (++launches == fail_launch) return vc_fail(err, VC_ERR_DEVICE, "test: launch refused");
  return k == stand_in ? 0 : oracle->launch(dev, k, bufs, n, err);
}

static int r_finish(vc_dev *dev, uint64_t *ns, uint32_t cap, uint32_t *count, vc_error *err) {
  device_op();
  return oracle->finish(dev, ns, cap, count, err);
}

static int r_native_stats(vc_dev *dev, vc_kern *k, vc_native_stats *st, vc_error *err) {
  (void)dev;
  (void)err;
  assert_ptr_equal(k, stand_in);
  device_op();
  memset(st, 0, sizeof *st);
  return 0;
}

static const char text[] =
    "(program ph (workgroup 4) (grid 2)\n"
    "  (buffer a u32 8 read (init iota))\n"
    "  (buffer b u32 8 read_write)\n"
    "  (buffer o u32 8 write)\n"
    "  (entry (let i (global_id x))\n"
    "    (store b i (add (load a i) 5u))\n"
    "    (let t (mul (load b i) 3u))\n"
    "    (barrier grid)\n"
    "    (store o i (add (load b (sub 7u i)) t))))\n";

static void run_mode(vc_mode m, uint32_t fail_at, int want_rc) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse("ph.vyre", text, strlen(text), &d);
  vc_diags_free(&d);
  assert_non_null(p);
  vc_error e;
  vc_error_clear(&e);
  vc_split *s = NULL;
  assert_int_equal(vc_split_program(p, &s, &e), 0);
  vc_reference ref;
  vc_oracle_opts o = {0};
  assert_int_equal(vc_reference_run(p, &o, &ref, &e), 0);
  vc_dev *dev = NULL;
  assert_int_equal(wrapped.open(0, NULL, &dev, &e), 0);
  in_phase = false;
  enters = leaves = inside = outside_bad = memory_calls = launches = 0;
  fail_launch = fail_at;
  live_bufs = 0;
  vc_exec x;
  vc_exec_init(&x, &wrapped, dev, p, s);
  x.gate = (vc_device_gate){gate_enter, gate_leave, NULL};
  vc_mode_out mo;
  assert_int_equal(vc_exec_run(&x, m, (const uint32_t *const *)ref.inputs, &mo, &e), want_rc);
  assert_int_equal(enters, 1);
  assert_int_equal(leaves, 1);
  assert_false(in_phase);
  assert_true(inside > 0);
  assert_true(memory_calls > 0);
  assert_int_equal(outside_bad, 0); /* no device op outside, no memory op inside */
  assert_int_equal(live_bufs, 0);
  vc_mode_out_free(&mo);
  vc_exec_free(&x);
  wrapped.close(dev);
  vc_reference_free(&ref);
  vc_split_free(s);
  vc_program_free(p);
}

static void host_split(void **state) {
  (void)state;
  run_mode(VC_MODE_HOST_SPLIT, 0, 0);
}

static void resident_split(void **state) {
  (void)state;
  run_mode(VC_MODE_RESIDENT_SPLIT, 0, 0);
}

static void native(void **state) {
  (void)state;
  run_mode(VC_MODE_NATIVE, 0, 0);
}

static void a_failed_launch_leaves_the_phase(void **state) {
  (void)state;
  run_mode(VC_MODE_HOST_SPLIT, 2, VC_ERR_DEVICE);
  run_mode(VC_MODE_RESIDENT_SPLIT, 1, VC_ERR_DEVICE);
  run_mode(VC_MODE_NATIVE, 1, VC_ERR_DEVICE);
}

int main(void) {
  oracle = vc_oracle_backend();
  wrapped = *oracle;
  wrapped.alloc = r_alloc;
  wrapped.free_buffer = r_free_buffer;
  wrapped.host_alloc = r_host_alloc;
  wrapped.host_free = r_host_free;
  wrapped.upload = r_upload;
  wrapped.download = r_download;
  wrapped.zero = r_zero;
  wrapped.compile = r_compile;
  wrapped.free_kernel = r_free_kernel;
  wrapped.launch = r_launch;
  wrapped.finish = r_finish;
  wrapped.native_stats = r_native_stats;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(host_split),
      cmocka_unit_test(resident_split),
      cmocka_unit_test(native),
      cmocka_unit_test(a_failed_launch_leaves_the_phase),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

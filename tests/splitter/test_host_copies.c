/* Host-split's host copies come from the plugin's host_alloc when it has
 * one (backends/backend.h, ABI version 4): the oracle backend with a
 * recording host_alloc beside it (a fake inside a unit test) must see every
 * upload and download of host-split from and to its memory, every such
 * allocation given back, and outputs the caller frees with free() that
 * agree with the oracle's; without the entries, malloc as before. A failed
 * host_alloc is an error naming the buffer, with nothing leaked. */
#include <setjmp.h>
#include <stdarg.h>
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

#define MAX_HOST 64

/* The recording wrapper around the oracle backend. */
static const vc_backend *oracle;
static vc_backend wrapped;
static void *live[MAX_HOST];
static uint64_t live_bytes[MAX_HOST];
static uint32_t allocs, frees, fail_at; /* fail_at: the nth host_alloc fails (0: none) */
static uint32_t copies_ours, copies_other;

static bool ours(const void *p, uint64_t bytes) {
  const char *c = p;
  for (int i = 0; i < MAX_HOST; i++)
    if (live[i] && c >= (char *)live[i] && c + bytes <= (char *)live[i] + live_bytes[i])
      return true;
  return false;
}

static int rec_host_alloc(vc_dev *dev, uint64_t bytes, void **p, vc_error *err) {
  (void)dev;
  *p = NULL;
  if (++allocs == fail_at)
    return vc_fail(err, VC_ERR_NOMEM, "test: host_alloc number %u refused", allocs);
  for (int i = 0; i < MAX_HOST; i++)
    if (!live[i]) {
      live[i] = malloc(bytes ? bytes : 4);
      if (!live[i]) return vc_fail(err, VC_ERR_NOMEM, "test: malloc");
      memset(live[i], 0xa5, bytes); /* the harness must fill every byte itself */
      live_bytes[i] = bytes;
      *p = live[i];
      return 0;
    }
  return vc_fail(err, VC_ERR_NOMEM, "test: more than %d host allocations", MAX_HOST);
}

static void rec_host_free(vc_dev *dev, void *p) {
  (void)dev;
  for (int i = 0; i < MAX_HOST; i++)
    if (live[i] && live[i] == p) {
      free(live[i]);
      live[i] = NULL;
      frees++;
      return;
    }
  fail_msg("host_free of memory host_alloc did not give");
}

static int rec_upload(vc_dev *dev, vc_buf *buf, const void *src, uint64_t bytes, vc_error *err) {
  if (ours(src, bytes)) copies_ours++;
  else copies_other++;
  return oracle->upload(dev, buf, src, bytes, err);
}

static int rec_download(vc_dev *dev, vc_buf *buf, void *dst, uint64_t bytes, vc_error *err) {
  if (ours(dst, bytes)) copies_ours++;
  else copies_other++;
  return oracle->download(dev, buf, dst, bytes, err);
}

static void reset(void) {
  allocs = frees = fail_at = copies_ours = copies_other = 0;
}

/* Two segments through a read_write buffer, an output written in each, a
   read-only input: uploads and downloads both ways, sizes not a power of 2. */
static const char text[] =
    "(program hc (workgroup 7) (grid 3)\n"
    "  (buffer a u32 21 read (init iota))\n"
    "  (buffer b u32 21 read_write)\n"
    "  (buffer o u32 21 write)\n"
    "  (entry (let i (global_id x))\n"
    "    (store b i (add (load a i) 5u))\n"
    "    (let t (mul (load b i) 3u))\n"
    "    (barrier grid)\n"
    "    (store o i (add (load b (sub 20u i)) t))))\n";

typedef struct fixture {
  vc_program *p;
  vc_split *s;
  vc_reference ref;
} fixture;

static void fixture_make(fixture *f) {
  vc_diags d;
  vc_diags_init(&d);
  f->p = vc_parse("hc.vyre", text, strlen(text), &d);
  vc_diags_print(&d, stderr);
  vc_diags_free(&d);
  assert_non_null(f->p);
  vc_error e;
  vc_error_clear(&e);
  assert_int_equal(vc_split_program(f->p, &f->s, &e), 0);
  assert_true(f->s->nsegs == 2);
  assert_true(f->s->nbuffers > f->s->nuser); /* a spill buffer (t) too */
  vc_oracle_opts o = {0};
  assert_int_equal(vc_reference_run(f->p, &o, &f->ref, &e), 0);
}

static void fixture_free(fixture *f) {
  vc_reference_free(&f->ref);
  vc_split_free(f->s);
  vc_program_free(f->p);
}

static int run_host_split(const vc_backend *be, fixture *f, vc_mode_out *mo, vc_error *e) {
  vc_dev *dev = NULL;
  assert_int_equal(be->open(0, NULL, &dev, e), 0);
  vc_exec x;
  vc_exec_init(&x, be, dev, f->p, f->s);
  int rc = vc_exec_run(&x, VC_MODE_HOST_SPLIT, (const uint32_t *const *)f->ref.inputs, mo, e);
  vc_exec_free(&x);
  be->close(dev);
  return rc;
}

static void outputs_agree(const fixture *f, const vc_mode_out *mo) {
  for (uint32_t i = 0; i < f->s->nuser; i++) {
    if (!vc_split_is_output(f->s, i)) continue;
    assert_non_null(mo->outputs[i]);
    assert_memory_equal(mo->outputs[i], f->ref.outputs[i], vc_buffer_bytes(&f->s->buffers[i]));
  }
}

static void copies_use_backend_memory(void **state) {
  (void)state;
  fixture f;
  fixture_make(&f);
  reset();
  vc_mode_out mo;
  vc_error e;
  vc_error_clear(&e);
  assert_int_equal(run_host_split(&wrapped, &f, &mo, &e), 0);
  outputs_agree(&f, &mo);
  assert_int_equal(allocs, f.s->nbuffers); /* one host copy per plan buffer */
  assert_int_equal(frees, allocs);
  assert_true(copies_ours > 0);
  assert_int_equal(copies_other, 0);
  vc_mode_out_free(&mo); /* free() of each output: ASan says if it was not malloc's */
  fixture_free(&f);
}

static void without_entries_malloc(void **state) {
  (void)state;
  fixture f;
  fixture_make(&f);
  reset();
  vc_backend plain = wrapped;
  plain.host_alloc = NULL;
  plain.host_free = NULL;
  vc_mode_out mo;
  vc_error e;
  vc_error_clear(&e);
  assert_int_equal(run_host_split(&plain, &f, &mo, &e), 0);
  outputs_agree(&f, &mo);
  assert_int_equal(allocs, 0);
  assert_int_equal(copies_ours, 0);
  assert_true(copies_other > 0);
  vc_mode_out_free(&mo);
  fixture_free(&f);
}

static void failed_host_alloc(void **state) {
  (void)state;
  fixture f;
  fixture_make(&f);
  reset();
  fail_at = 2;
  vc_mode_out mo;
  vc_error e;
  vc_error_clear(&e);
  assert_int_equal(run_host_split(&wrapped, &f, &mo, &e), VC_ERR_NOMEM);
  assert_string_equal(e.msg, "host copy of b (84 bytes): test: host_alloc number 2 refused");
  assert_int_equal(frees, 1); /* the one given before */
  for (int i = 0; i < MAX_HOST; i++) assert_null(live[i]);
  vc_mode_out_free(&mo);
  fixture_free(&f);
}

int main(void) {
  oracle = vc_oracle_backend();
  wrapped = *oracle;
  wrapped.host_alloc = rec_host_alloc;
  wrapped.host_free = rec_host_free;
  wrapped.upload = rec_upload;
  wrapped.download = rec_download;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(copies_use_backend_memory),
      cmocka_unit_test(without_entries_malloc),
      cmocka_unit_test(failed_host_alloc),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

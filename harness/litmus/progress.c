/* The forward-progress checks of the native grid barrier (progress.h). */
#include "harness/litmus/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/clock.h"
#include "harness/exec/modes.h"
#include "harness/litmus/parse_text.h"
#include "harness/split/split.h"

static const char *const check_names[] = {
#define VC_X(id, name, what) name,
    VC_PROGRESS_CHECK_TABLE(VC_X)
#undef VC_X
};
static const char *const check_whats[] = {
#define VC_X(id, name, what) what,
    VC_PROGRESS_CHECK_TABLE(VC_X)
#undef VC_X
};

const char *vc_progress_check_name(vc_progress_check c) { return check_names[c]; }
const char *vc_progress_check_what(vc_progress_check c) { return check_whats[c]; }
int vc_progress_check_from_name(const char *name) {
  for (int i = 0; i < VC_PROGRESS_CHECK_COUNT; i++)
    if (!strcmp(check_names[i], name)) return i;
  return -1;
}

void vc_progress_opts_default(vc_progress_opts *o) {
  memset(o, 0, sizeof *o);
  o->trials[VC_PROGRESS_CORESIDENT] = 16;
  o->trials[VC_PROGRESS_OVER] = 2;
  o->barriers = 16;
  o->workgroup = 64;
  o->groups = 1024;
}

int vc_progress_opts_check(const vc_progress_opts *o, vc_error *err) {
  if (o->barriers < 1 || o->barriers > 256)
    return vc_fail(err, VC_ERR_USAGE, "--progress-barriers must be 1 to 256, not %u", o->barriers);
  if (o->workgroup < 1 || o->workgroup > 1024)
    return vc_fail(err, VC_ERR_USAGE, "--progress-workgroup must be 1 to 1024, not %u",
                   o->workgroup);
  if (o->groups < 1 || o->groups > 65535)
    return vc_fail(err, VC_ERR_USAGE, "--progress-groups must be 1 to 65535, not %u", o->groups);
  if ((uint64_t)o->groups * o->workgroup > (1u << 24))
    return vc_fail(err, VC_ERR_USAGE,
                   "--progress-groups times --progress-workgroup is over 2^24 invocations");
  return 0;
}

const char *vc_progress_verdict(const vc_progress_row *r) {
  if (r->errored) return "error";
  if (r->unsupported) return "unsupported";
  if (r->hung) return "FAIL";
  if (r->check == VC_PROGRESS_OVER)
    return r->released || r->wrong ? "FAIL" : r->inconclusive ? "inconclusive" : "detected";
  return r->gave_up || r->wrong || r->refused ? "FAIL" : "pass";
}

void vc_progress_program(const vc_progress_opts *o, vc_strbuf *out) {
  const uint64_t n = (uint64_t)o->groups * o->workgroup;
  vc_sb_printf(out,
               "(program litmus_progress\n"
               "  (doc \"forward progress: %u grid barriers, each after every invocation counts "
               "itself in\")\n"
               "  (workgroup %u)\n  (grid %u)\n"
               "  (buffer count u32 %u read_write (init zero))\n"
               "  (buffer seen u32 %llu write)\n"
               "  (entry\n    (let gid (global_id x))\n    (var ok 0u)\n",
               o->barriers, o->workgroup, o->groups, o->barriers, (unsigned long long)n);
  for (uint32_t b = 0; b < o->barriers; b++)
    vc_sb_printf(out,
                 "    (atomic add count %uu 1u)\n    (barrier grid)\n"
                 "    (set ok (add ok (eq (load count %uu) %lluu)))\n",
                 b, b, (unsigned long long)n);
  vc_sb_puts(out, "    (store seen gid ok)))\n");
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Are the bytes what every barrier holding gives? count[b] = invocations,
   seen[g] = barriers. */
static bool bytes_right(const vc_progress_opts *o, const vc_mode_out *mo) {
  const uint32_t *count = mo->outputs[0], *seen = mo->outputs[1];
  const uint64_t n = (uint64_t)o->groups * o->workgroup;
  if (!count || !seen) return false;
  for (uint32_t b = 0; b < o->barriers; b++)
    if (count[b] != n) return false;
  for (uint64_t g = 0; g < n; g++)
    if (seen[g] != o->barriers) return false;
  return true;
}

/* One launch into row, its time into *took; VC_ERR_TIMEOUT ends the check. */
static int trial(vc_exec *x, const vc_progress_opts *o, const uint32_t *const *inputs,
                 vc_progress_row *row, uint64_t *took_out, vc_error *err) {
  vc_mode_out mo;
  memset(&mo, 0, sizeof mo);
  uint64_t t0 = vc_now_ns();
  vc_error e;
  vc_error_clear(&e);
  int rc = vc_exec_run(x, VC_MODE_NATIVE, inputs, &mo, &e);
  uint64_t took = vc_now_ns() - t0;
  if (rc == 0 && mo.compile_ns < took) took -= mo.compile_ns; /* the first launch compiles */
  if (took > row->slowest_ns) row->slowest_ns = took;
  *took_out = took;
  if (rc == 0) {
    const vc_native_stats *st = &mo.native;
    if (!row->ran || st->participants < row->participants_min)
      row->participants_min = st->participants;
    if (st->participants > row->participants_max) row->participants_max = st->participants;
    row->barriers = st->barriers;
    row->ran++;
    if (st->untrustworthy) {
      if (!row->gave_up || took < row->shortest_give_up_ns) row->shortest_give_up_ns = took;
      row->gave_up++;
      if (!row->why[0]) snprintf(row->why, sizeof row->why, "%s", st->note);
    } else if (bytes_right(o, &mo)) {
      row->released++;
    } else {
      row->wrong++;
    }
  } else if (rc == VC_ERR_TIMEOUT) {
    row->ran++;
    row->hung++;
    snprintf(row->why, sizeof row->why, "%s", e.msg);
  } else if (rc == VC_ERR_LIMIT) {
    row->ran++;
    row->refused++;
    if (!row->why[0]) snprintf(row->why, sizeof row->why, "%s", e.msg);
    rc = 0;
  } else if (rc == VC_ERR_INTERNAL || rc == VC_ERR_NOMEM) {
    *err = e;
  } else {
    row->unsupported = rc == VC_ERR_UNSUPPORTED;
    row->errored = !row->unsupported;
    snprintf(row->why, sizeof row->why, "%s", e.msg);
    rc = 0; /* the row says so */
  }
  vc_mode_out_free(&mo);
  if (rc == VC_ERR_TIMEOUT) *err = e;
  return rc;
}

int vc_progress_run(const vc_backend *be, vc_dev *dev, vc_progress_check check,
                    const vc_progress_opts *o, vc_progress_row *row, vc_error *err) {
  memset(row, 0, sizeof *row);
  row->check = check;
  row->trials = o->trials[check];
  int rc = vc_progress_opts_check(o, err);
  if (rc) return rc;
  vc_strbuf text;
  vc_sb_init(&text);
  vc_progress_program(o, &text);
  vc_program *p = vc_litmus_parse_text("progress", vc_sb_str(&text), err);
  vc_sb_free(&text);
  if (!p) return VC_ERR_INTERNAL;
  vc_split *s = NULL;
  uint32_t *in[2] = {NULL, NULL};
  uint64_t *times = calloc(row->trials ? row->trials : 1, sizeof *times);
  if (!times) rc = vc_fail(err, VC_ERR_NOMEM, "progress: out of memory for %u launches", row->trials);
  if (!rc) rc = vc_split_program(p, &s, err);
  for (uint32_t i = 0; !rc && i < 2; i++)
    if (!(in[i] = calloc(1, vc_buffer_bytes(&p->buffers[i]))))
      rc = vc_fail(err, VC_ERR_NOMEM, "progress: out of memory for buffer %s", p->buffers[i].name);
  if (!rc) {
    vc_exec x;
    vc_exec_init(&x, be, dev, p, s);
    uint64_t t0 = vc_now_ns();
    uint32_t n = 0;
    for (uint32_t t = 0; !rc && t < row->trials && !row->unsupported && !row->errored; t++)
      if (!(rc = trial(&x, o, (const uint32_t *const *)in, row, &times[n], err))) n++;
    row->wall_ns = vc_now_ns() - t0;
    vc_exec_free(&x);
    qsort(times, n, sizeof *times, cmp_u64);
    row->median_ns = n ? times[n / 2] : 0;
  }
  free(times);
  free(in[0]);
  free(in[1]);
  vc_split_free(s);
  vc_program_free(p);
  return rc;
}

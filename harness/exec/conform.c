#include "harness/exec/conform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/lang/corpus.h"
#include "harness/model/digest.h"
#include "harness/exec/compare_selfcheck.h"
#include "harness/exec/diverge.h"
#include "harness/lang/parse.h"
#include "harness/exec/plan_check.h"
#include "harness/exec/reference.h"
#include "harness/exec/judge.h"
#include "harness/model/verdict.h"
#include "harness/split/validate.h"

void vc_program_info_of(const vc_program *p, uint32_t segments, const char *source_digest,
                        char *tags_buf, size_t tags_len, vc_program_info *info) {
  memset(info, 0, sizeof *info);
  info->name = p->name;
  info->path = p->path;
  info->source_digest = source_digest;
  info->segments = segments;
  info->barriers = segments ? segments - 1 : 0;
  info->invocations = vc_program_invocations(p);
  info->workgroups = vc_program_workgroups(p);
  for (uint32_t i = 0; i < p->nbuffers; i++) info->buffer_bytes += vc_buffer_bytes(&p->buffers[i]);
  size_t used = 0;
  tags_buf[0] = '\0';
  for (uint32_t i = 0; i < p->ntags && used < tags_len; i++)
    used += (size_t)snprintf(tags_buf + used, tags_len - used, "%s%s", i ? " " : "", p->tags[i]);
  info->tags = tags_buf;
  info->timeout_s = vc_program_timeout_s(p);
}

static const char *const phase_names[] = {
#define VC_X(e, n) n,
    VC_PHASE_TABLE(VC_X)
#undef VC_X
};

const char *vc_phase_name(vc_phase p) {
  return (unsigned)p < VC_PHASE_COUNT ? phase_names[p] : "?";
}

int vc_phase_from_name(const char *name) {
  for (int i = 0; name && i < VC_PHASE_COUNT; i++)
    if (strcmp(phase_names[i], name) == 0) return i;
  return -1;
}

static void phase(const vc_conform_sink *sink, vc_phase ph) {
  if (sink->phase_start) sink->phase_start(sink->ctx, ph);
}

/* Reports the same status for every selected mode and repeat. */
static void report_all(const vc_conform_opts *o, const vc_conform_sink *sink, vc_status st,
                       const char *reason) {
  for (uint32_t m = 0; m < o->nmodes; m++)
    for (uint32_t r = 0; r < o->repeat; r++) {
      vc_result res;
      memset(&res, 0, sizeof res);
      res.mode = vc_mode_name(o->modes[m]);
      res.repeat = r;
      res.status = st;
      snprintf(res.reason, sizeof res.reason, "%s", reason);
      sink->result(sink->ctx, &res);
    }
}

/* A step before the device modes failed: the failure is that step's, and
   the modes, which cannot be judged without it, are not run (harness/model/verdict.c
   decides both). */
static void report_phase(const vc_conform_opts *o, const vc_conform_sink *sink, vc_phase ph,
                         const char *reason) {
  vc_result res;
  memset(&res, 0, sizeof res);
  res.mode = vc_phase_name(ph);
  vc_verdict_step_error(reason, &res);
  sink->result(sink->ctx, &res);
  for (uint32_t m = 0; m < o->nmodes; m++)
    for (uint32_t r = 0; r < o->repeat; r++) {
      memset(&res, 0, sizeof res);
      res.mode = vc_mode_name(o->modes[m]);
      res.repeat = r;
      vc_verdict_after_step(vc_phase_name(ph), VC_ST_ERROR, &res);
      sink->result(sink->ctx, &res);
    }
}

/* A file that could not become a program still gets a record under its name. */
static void report_unparsed(const char *path, const char *digest, const vc_conform_opts *o,
                            const vc_conform_sink *sink, vc_status st, const char *reason) {
  char name[256];
  vc_corpus_file_name(path, name, sizeof name);
  vc_program_info info;
  memset(&info, 0, sizeof info);
  info.name = name;
  info.path = path;
  info.source_digest = digest;
  info.tags = "";
  sink->program(sink->ctx, &info);
  report_all(o, sink, st, reason);
}

static void first_diag(const vc_diags *d, char *out, size_t n) {
  if (!d->count) {
    snprintf(out, n, "unknown parse failure");
    return;
  }
  snprintf(out, n, "%s:%u:%u: %s%s", d->items[0].file, d->items[0].loc.line, d->items[0].loc.col,
           d->items[0].msg, d->count > 1 ? " (and more)" : "");
}

static void inject_flip(const vc_program *p, const vc_conform_opts *o, vc_mode m, vc_mode_out *mo) {
  if (!o->flip_mode || strcmp(o->flip_mode, vc_mode_name(m)) != 0) return;
  int b = vc_program_find_buffer(p, o->flip_buffer);
  if (b < 0 || !mo->outputs[b] || o->flip_index >= p->buffers[b].count) return;
  mo->outputs[b][o->flip_index] ^= 1u;
}

/* Returns VC_ERR_TIMEOUT when a launch did not finish in time: the device
   may still be busy with it, so nothing more runs on it. */
/* What each repeat is compared with: the oracle's outputs in that repeat's
   order of workgroups and invocations, and whether they differ from repeat
   0's (then the program's bytes depend on scheduling). */
typedef struct oracle_runs {
  uint32_t ***expected;   /* [repeat][buffer] */
  bool *order_dependent;
  vc_reference *reordered; /* [repeat]: its own reference run, from repeat 1 */
  bool *cached;            /* [repeat]: its reference came from the reference cache */
  uint32_t passes;
} oracle_runs;

static int run_modes(const vc_program *p, const vc_split *split, uint32_t *const *inputs,
                     const oracle_runs *orc, const vc_backend *be, vc_dev *dev,
                     const vc_conform_opts *o, const vc_conform_sink *sink) {
  vc_exec x;
  vc_exec_init(&x, be, dev, p, split);
  x.gate = o->gate;
  bool stuck = false;
  for (uint32_t mi = 0; mi < o->nmodes; mi++) {
    vc_mode m = o->modes[mi];
    for (uint32_t rep = 0; rep < o->repeat; rep++) {
      vc_result r;
      memset(&r, 0, sizeof r);
      r.mode = vc_mode_name(m);
      r.repeat = rep;
      r.reference_cached = orc->cached[rep];
      /* The modes after a stuck launch get no result here: the caller runs
         them on a freshly opened device. */
      if (stuck) break;
      if (sink->mode_start) sink->mode_start(sink->ctx, m, rep);
      vc_mode_out mo;
      vc_error e;
      vc_error_clear(&e);
      int rc = vc_exec_run(&x, m, (const uint32_t *const *)inputs, &mo, &e);
      r.wall_ns = mo.wall_ns;
      r.device_ns = mo.device_ns;
      r.compile_ns = mo.compile_ns;
      r.cache_hits = mo.cache_hits;
      r.bytes_up = mo.bytes_up;
      r.bytes_down = mo.bytes_down;
      r.launches = mo.launches;
      r.passes = mo.passes;
      r.segs = mo.segs;
      r.nsegs = mo.nsegs;
      if (m == VC_MODE_NATIVE) {
        r.participants = mo.native.participants;
        r.virtual_per_participant = mo.native.virtual_per_participant;
        r.device_barriers = mo.native.barriers;
      }
      if (rc) {
        vc_verdict_error(&e, &r);
        stuck = e.code == VC_ERR_TIMEOUT;
      } else {
        inject_flip(p, o, m, &mo);
        vc_output_digest(p, (const uint32_t *const *)mo.outputs, r.output_digest);
        vc_verdict_judge(p, orc->expected[rep], &mo, orc->passes,
                         o->flushes_denormals ? inputs : NULL, &r);
        if (orc->order_dependent[rep]) {
          r.nondeterministic = true;
          size_t used = strlen(r.reason);
          snprintf(r.reason + used, sizeof r.reason - used,
                   "%sthe oracle's bytes in this repeat's order differ from repeat 1's: the "
                   "program depends on scheduling",
                   used ? "; " : "");
        }
        vc_verdict_traffic(split, m, &mo, &r);
        vc_judge_segment_counts(p, split, m, &mo, &r);
        vc_mode_note_convergence(p, &mo, &r);
        vc_verdict_native_check(m, &mo, &r);
      }
      sink->result(sink->ctx, &r);
      free(r.divs);
      vc_mode_out_free(&mo);
    }
  }
  /* A kernel still running on the device must not be freed under it. */
  if (!stuck) vc_exec_free(&x);
  return stuck ? VC_ERR_TIMEOUT : 0;
}

/* The order of repeat r under the chosen --oracle-order: shuffles take the
   next seeds, reverse alternates with forward. */
static vc_oracle_opts order_of_repeat(const vc_oracle_opts *base, uint32_t r) {
  vc_oracle_opts v = *base;
  if (base->order == VC_ORDER_SHUFFLE) v.seed = base->seed + r;
  if (base->order == VC_ORDER_REVERSE && r % 2) v.order = VC_ORDER_FORWARD;
  return v;
}

/* Repeat 0 uses `expected` (the oracle already run); with another order than
   forward and several repeats, each further repeat gets its own reference run. */
static int oracle_per_repeat(const vc_program *p, const char *digest, const vc_reference *ref,
                             const vc_conform_opts *o, oracle_runs *out, char *why, size_t n) {
  memset(out, 0, sizeof *out);
  uint32_t **expected = ref->outputs;
  out->expected = calloc(o->repeat, sizeof *out->expected);
  out->order_dependent = calloc(o->repeat, sizeof *out->order_dependent);
  out->reordered = calloc(o->repeat, sizeof *out->reordered);
  out->cached = calloc(o->repeat, sizeof *out->cached);
  if (!out->expected || !out->order_dependent || !out->reordered || !out->cached) abort();
  for (uint32_t r = 0; r < o->repeat; r++) {
    out->expected[r] = expected;
    out->cached[r] = ref->cached;
  }
  if (o->oracle.order == VC_ORDER_FORWARD || o->repeat < 2) return 0;
  char first[65];
  vc_output_digest(p, (const uint32_t *const *)expected, first);
  for (uint32_t r = 1; r < o->repeat; r++) {
    vc_oracle_opts v = order_of_repeat(&o->oracle, r);
    vc_error e;
    vc_error_clear(&e);
    if (vc_reference_run_cached(&o->reference_cache, digest, p, &v, &out->reordered[r], &e)) {
      snprintf(why, n, "repeat %u: %s", r + 1, e.msg);
      return -1;
    }
    out->expected[r] = out->reordered[r].outputs;
    out->cached[r] = out->reordered[r].cached;
    char d[65];
    vc_output_digest(p, (const uint32_t *const *)out->expected[r], d);
    out->order_dependent[r] = strcmp(d, first) != 0;
  }
  return 0;
}

static void oracle_runs_free(const vc_conform_opts *o, oracle_runs *runs) {
  for (uint32_t r = 0; runs->reordered && r < o->repeat; r++)
    vc_reference_free(&runs->reordered[r]);
  free(runs->reordered);
  free(runs->expected);
  free(runs->order_dependent);
  free(runs->cached);
}

static uint64_t buffer_bytes_total(const vc_program *p) {
  uint64_t t = 0;
  for (uint32_t i = 0; i < p->nbuffers; i++) t += vc_buffer_bytes(&p->buffers[i]);
  return t;
}

/* A program too large for the device or the budget is refused up front, with
   both figures, rather than failing deep inside a driver allocation. */
static bool over_limits(const vc_program *p, const vc_device_info *di, const vc_conform_opts *o,
                        char *why, size_t n) {
  uint64_t total = buffer_bytes_total(p);
  if (o->max_buffer_bytes && total > o->max_buffer_bytes) {
    snprintf(why, n, "buffers need %llu bytes, over the budget of %llu (--max-buffer-bytes)",
             (unsigned long long)total, (unsigned long long)o->max_buffer_bytes);
    return true;
  }
  for (uint32_t i = 0; di && i < p->nbuffers; i++) {
    uint64_t b = vc_buffer_bytes(&p->buffers[i]);
    if (di->max_buffer_bytes && b > di->max_buffer_bytes) {
      snprintf(why, n, "buffer %s needs %llu bytes, the device allows %llu per buffer",
               p->buffers[i].name, (unsigned long long)b, (unsigned long long)di->max_buffer_bytes);
      return true;
    }
  }
  if (di && di->global_mem_bytes && total > di->global_mem_bytes) {
    snprintf(why, n, "buffers need %llu bytes, the device has %llu", (unsigned long long)total,
             (unsigned long long)di->global_mem_bytes);
    return true;
  }
  return false;
}

int vc_conform_program(const char *path, const vc_backend *be, vc_dev *dev,
                       const vc_device_info *dev_info, const vc_conform_opts *o,
                       const vc_conform_sink *sink, vc_error *err) {
  char digest[65] = "";
  if (vc_digest_file(path, digest) != 0) digest[0] = '\0';
  vc_diags diags;
  vc_diags_init(&diags);
  vc_program *p = vc_parse_file(path, &diags);
  int rc = vc_conform_parsed(path, digest, p, &diags, be, dev, dev_info, o, sink, err);
  /* After a stuck launch the device may still use the program's objects. */
  if (rc != VC_ERR_TIMEOUT) vc_program_free(p);
  vc_diags_free(&diags);
  return rc;
}

int vc_conform_parsed(const char *path, const char *digest, const vc_program *p,
                      const vc_diags *d, const vc_backend *be, vc_dev *dev,
                      const vc_device_info *dev_info, const vc_conform_opts *o,
                      const vc_conform_sink *sink, vc_error *err) {
  (void)err;
  char why[1024];
  if (!p) {
    if (d->expect_reject && vc_diags_contain(d, d->expect_reject)) {
      snprintf(why, sizeof why, "refused as expected: %s", d->items[0].msg);
      report_unparsed(path, digest, o, sink, VC_ST_SKIP, why);
    } else {
      first_diag(d, why, sizeof why);
      report_unparsed(path, digest, o, sink, VC_ST_INVALID, why);
    }
    return 0;
  }

  phase(sink, VC_PHASE_SETUP);
  vc_split *split = NULL;
  vc_error e;
  vc_error_clear(&e);
  int rc = vc_split_program(p, &split, &e);
  char tags[512];
  vc_program_info info;
  vc_program_info_of(p, split ? split->nsegs : 0, digest, tags, sizeof tags, &info);
  sink->program(sink->ctx, &info);
  /* A plan the validator refuses is a harness bug: the setup step's error,
     before any device work (a Debug splitter fails with it itself). */
  if (rc == VC_ERR_INTERNAL || (!rc && vc_plan_validate(split, p, &e))) {
    report_phase(o, sink, VC_PHASE_SETUP, e.msg);
    vc_split_free(split);
    return 0;
  }
  if (rc) {
    report_all(o, sink, e.code == VC_ERR_LIMIT ? VC_ST_UNSUPPORTED : VC_ST_INVALID, e.msg);
    return 0;
  }

  vc_reference ref;
  memset(&ref, 0, sizeof ref);
  const vc_expect *reject = vc_program_expect(p, VC_EXPECT_REJECT);
  if (over_limits(p, dev_info, o, why, sizeof why)) {
    report_all(o, sink, VC_ST_UNSUPPORTED, why);
    goto done;
  }
  phase(sink, VC_PHASE_REFERENCE);
  if (vc_reference_run_cached(&o->reference_cache, digest, p, &o->oracle, &ref, &e)) {
    report_phase(o, sink, VC_PHASE_REFERENCE, e.msg);
    goto done;
  }
  phase(sink, VC_PHASE_ORACLE);
  if (vc_oracle_invalid(p, &ref.report, why, sizeof why)) {
    if (reject && strstr(why, reject->text)) {
      char msg[1100];
      snprintf(msg, sizeof msg, "refused as expected: %s", why);
      report_all(o, sink, VC_ST_SKIP, msg);
    } else {
      report_all(o, sink, VC_ST_INVALID, why);
    }
    goto done;
  }
  if (reject) {
    snprintf(why, sizeof why, "expected a refusal containing \"%s\", but the program is valid",
             reject->text);
    report_all(o, sink, VC_ST_INVALID, why);
    goto done;
  }
  if (!vc_compare_selfcheck(p, ref.outputs, vc_compare_buffer, true, why, sizeof why)) {
    report_all(o, sink, VC_ST_ERROR, why);
    goto done;
  }
  oracle_runs runs;
  if (oracle_per_repeat(p, digest, &ref, o, &runs, why, sizeof why)) {
    oracle_runs_free(o, &runs);
    report_phase(o, sink, VC_PHASE_ORACLE, why);
    goto done;
  }
  runs.passes = ref.report.passes;
  rc = run_modes(p, split, ref.inputs, &runs, be, dev, o, sink);
  oracle_runs_free(o, &runs);
done:
  vc_reference_free(&ref);
  if (rc == VC_ERR_TIMEOUT) return rc; /* the device is busy: leave its objects alone */
  vc_split_free(split);
  return 0;
}

/* The results path of a run (record.h): its row, the device, each program
 * recorded and judged in corpus order, its end. */
#include "harness/run/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/base/exitcodes.h"
#include "harness/base/version.h"
#include "harness/model/digest.h"
#include "harness/run/prepare.h"
#include "harness/run/runenv.h"
#include "harness/run/runopts.h"
#include "harness/run/supervise.h"

int vc_run_db_fail(run_state *s, const vc_error *e) {
  fprintf(stderr, "vyre-conform: %s\n", e->msg);
  vc_slots_kill(s);
  return VC_EXIT_DB;
}

/* The device of a new run is recorded (and printed) once its row exists; a
   resumed run must be on the device it started on. */
int vc_run_record_device(run_state *s) {
  vc_progress_device(&s->prog, &s->device, s->fingerprint);
  if (s->resumed && s->resumed_device[0]) {
    if (strcmp(s->resumed_device, s->device.device_name) == 0) return 0;
    fprintf(stderr, "vyre-conform: run %lld ran on %s, this device is %s\n", (long long)s->run_id,
            s->resumed_device, s->device.device_name);
    vc_slots_kill(s);
    return VC_EXIT_USAGE;
  }
  vc_error e;
  vc_error_clear(&e);
  if (vc_db_record_device(s->db, s->run_id, &s->device, s->fingerprint, &e)) return vc_run_db_fail(s, &e);
  return 0;
}

/* Records the program, then judges each result against the expectations and
   shows it: the run's exit status is the sum of these verdicts. */
int vc_run_record_program(run_state *s, item *it) {
  vc_program_acc *a = it->a;
  vc_error e;
  vc_error_clear(&e);
  vc_acc_put_times(a);
  if (vc_db_record_program(s->db, s->run_id, &a->info, a->res, a->n, &e)) return vc_run_db_fail(s, &e);
  vc_verdict *v = malloc((a->n ? a->n : 1) * sizeof *v);
  if (!v) abort();
  vc_exp_config cfg = vc_run_exp_config(s);
  for (uint32_t i = 0; i < a->n; i++) {
    v[i] = vc_verdict_of(s->expect, &cfg, s->today, a->name, &a->res[i]);
    vc_run_verdict_add(&s->verdict, &v[i]);
  }
  vc_progress_results(&s->prog, it->pos, a->name, a->res, v, a->n);
  free(v);
  it->state = IT_RECORDED;
  vc_acc_free(a);
  free(a);
  it->a = NULL;
  return 0;
}

/* Entries for this backend and device that are past their date fail the run
   loudly: a known failure must be looked at again, not carried forever. */
uint32_t vc_run_expired_entries(const run_state *s) {
  vc_exp_config cfg = vc_run_exp_config(s);
  uint32_t n = 0;
  for (uint32_t i = 0; i < s->expect->n; i++) {
    const vc_expectation *x = &s->expect->items[i];
    if (!vc_expectation_applies(x, &cfg) || !vc_expectation_expired(x, s->today)) continue;
    fprintf(stderr, "vyre-conform: %s:%u: expectation for %s %s expired on %s: %s\n",
            s->expect->file, x->line, x->program, x->mode, x->expires_text ? x->expires_text : "?",
            x->reason ? x->reason : "");
    n++;
  }
  return n;
}

static void modes_text(const vc_runner_opts *o, char *out, size_t n) {
  size_t u = 0;
  out[0] = '\0';
  for (uint32_t i = 0; i < o->conform.nmodes && u < n; i++)
    u += (size_t)snprintf(out + u, n - u, "%s%s", i ? "," : "", vc_mode_name(o->conform.modes[i]));
}

/* The run's row written (or, with --resume, reopened: done[i] marks what it
   finished), and the run's lock taken. Returns 0, or nonzero with e set;
   nothing is left to undo but what the caller owns. */
int vc_run_begin(run_state *s, const vc_corpus *c, bool *done, vc_error *e) {
  const vc_runner_opts *o = s->o;
  char host[256] = "", shard[32] = "", modes[128], paths[4096] = "";
  gethostname(host, sizeof host - 1);
  if (o->shard_n) snprintf(shard, sizeof shard, "%u/%u", o->shard_k, o->shard_n);
  vc_strbuf opts, sel;
  vc_sb_init(&opts);
  vc_sb_init(&sel);
  /* The default expectations are recorded as the file they were, so that
     --resume judges by the same entries. */
  vc_runner_opts recorded = *o;
  if (!o->expectations) recorded.expectations = s->expect ? s->expect_file : "none";
  vc_run_settings_text(&recorded, &opts);
  vc_run_selection_text(o, c, &sel);
  modes_text(o, modes, sizeof modes);
  size_t u = 0;
  for (uint32_t i = 0; i < o->npaths && u < sizeof paths; i++)
    u += (size_t)snprintf(paths + u, sizeof paths - u, "%s%s", i ? " " : "", o->paths[i]);
  /* The file's digest, so that a package can prove which entries judged it. */
  char exps_sha[65] = "";
  if (s->expect && vc_digest_file(s->expect_file, exps_sha) != 0) snprintf(exps_sha, sizeof exps_sha, "unknown");
  vc_strbuf env;
  vc_sb_init(&env);
  vc_run_environment(&env);
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  vc_run_info ri = {VC_VERSION,
                    VC_GIT_COMMIT,
                    o->command_line,
                    host,
                    paths,
                    c->digest,
                    shard,
                    o->backend,
                    modes,
                    vc_sb_str(&opts),
                    (int64_t)now.tv_sec * 1000000000 + now.tv_nsec,
                    vc_sb_str(&sel),
                    s->selection.digest,
                    s->selection.programs,
                    vc_sb_str(&s->selection.list),
                    vc_build_id(),
                    s->plugin_id,
                    vc_sb_str(&env),
                    exps_sha};
    int opened =
      o->resume_run ? vc_run_resume(s, c, done, e) : vc_db_begin_run(s->db, &ri, &s->run_id, e);
  if (!opened && !o->resume_run) opened = vc_runlock_take(&s->runlock, o->db_path, s->run_id, e);
  vc_sb_free(&opts);
  vc_sb_free(&sel);
  vc_sb_free(&env);
  vc_sb_free(&s->selection.list);
  return opened;
}

/* The run's end in the database (complete, failed or interrupted), which
   is closed. Returns status, or VC_EXIT_DB when the end is not written. */
int vc_run_end(run_state *s, int status) {
  vc_error e;
  vc_error_clear(&e);
  const char *end = status == VC_EXIT_INTERRUPTED      ? "interrupted"
                    : status && status != VC_EXIT_FAIL ? "failed"
                                                       : "complete";
  if (status != VC_EXIT_DB && vc_db_end_run(s->db, s->run_id, end, &e)) {
    fprintf(stderr, "vyre-conform: %s\n", e.msg);
    status = VC_EXIT_DB;
  }
  vc_db_close(s->db);
  return status;
}

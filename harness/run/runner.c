/* The run command's loop (runner.h): prepare, start the workers, begin the
 * run, hand out the programs and record them in order, end the run. */
#include "harness/run/runner.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/clock.h"
#include "harness/base/exitcodes.h"
#include "harness/model/digest.h"
#include "harness/model/verdict.h"
#include "harness/run/prepare.h"
#include "harness/run/record.h"
#include "harness/run/run_state.h"
#include "harness/run/runopts.h"
#include "harness/run/schedule.h"
#include "harness/run/supervise.h"
#include "harness/run/tokens.h"

static volatile sig_atomic_t g_interrupted;

static void on_signal(int sig) {
  g_interrupted = sig;
}

static void install_handlers(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal; /* no SA_RESTART: poll() returns EINTR */
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL); /* a closed terminal or ssh session: as SIGTERM */
  signal(SIGPIPE, SIG_IGN);
  /* a file-size limit (ulimit -f): write() fails with EFBIG, and the
     database's error names the file, instead of a silent death */
  signal(SIGXFSZ, SIG_IGN);
}

/* The next program to give a worker: one whose modes wait for a fresh
   worker, else the next not started (whose skipped modes are recorded
   here; one with nothing left to run is finished at once). */
static item *next_item(run_state *s, item *items, uint32_t n, uint32_t from, uint32_t *next_new) {
  for (uint32_t i = from; i < n; i++) /* those not started yet are IT_NEW */
    if (items[i].state == IT_QUEUED) return &items[i];
  while (*next_new < n) {
    uint32_t k = (*next_new)++;
    item *it = &items[s->order ? s->order[k] : k];
    /* kept from its start until it is recorded: a corpus of thousands
       holds only the programs in flight and those waiting to be recorded */
    it->a = calloc(1, sizeof *it->a);
    if (!it->a) abort();
    vc_acc_reset(it->a, &s->c->files[it->idx]);
    it->npending = vc_run_apply_skips(s, &s->c->files[it->idx], it->a, it->pending);
    if (it->npending) return it;
    it->state = IT_FINISHED;
  }
  return NULL;
}

/* Whether a program waits for a worker, or one has not started. */
static bool work_left(const item *items, uint32_t n, uint32_t from, uint32_t next_new) {
  if (next_new < n) return true;
  for (uint32_t i = from; i < n; i++)
    if (items[i].state == IT_QUEUED) return true;
  return false;
}

/* The programs left to run (done: finished by the run resumed), and the
   order they start in. With several workers the costliest programs start
   first; one worker runs them in corpus order. */
static item *items_to_run(run_state *s, const bool *done, uint32_t todo) {
  item *items = calloc(todo ? todo : 1, sizeof *items);
  if (!items) abort();
  for (uint32_t i = 0, pos = 0; i < s->c->n; i++)
    if (!done[i]) {
      items[pos].idx = i;
      items[pos].pos = pos;
      pos++;
    }
  if (s->nslots > 1 && todo > 1) {
    uint32_t *idx = malloc(todo * sizeof *idx);
    s->order = malloc(todo * sizeof *s->order);
    if (!idx || !s->order) abort();
    for (uint32_t k = 0; k < todo; k++) idx[k] = items[k].idx;
    vc_schedule_order(s->c, idx, todo, s->order);
    free(idx);
  }
  return items;
}

/* Runs the programs, up to one per slot at once, and records them in their
   order. A slot whose worker was stopped gets a fresh one while programs
   are left; a job goes only to a worker that has opened its device. An
   interrupt stops every worker and records the programs that finished.
   Returns 0 or an exit status that ends the run. */
static int run_items(run_state *s, item *items, uint32_t n) {
  uint32_t next_new = 0, next_rec = 0;
  int status = 0;
  vc_wbuf msg;
  vc_wbuf_init(&msg);
  while (!status && next_rec < n) {
    if (g_interrupted) {
      status = VC_EXIT_INTERRUPTED;
      break;
    }
    for (uint32_t k = 0; k < s->nslots && !status; k++) {
      slot *sl = &s->slots[k];
      if (sl->it) continue;
      if (sl->w.pid <= 0) {
        if (work_left(items, n, next_rec, next_new)) status = vc_slot_spawn(s, sl);
        continue;
      }
      if (!sl->ready) continue;
      item *it = next_item(s, items, n, next_rec, &next_new);
      if (!it) break;
      vc_slot_start_job(s, sl, it);
    }
    while (!status && next_rec < n && items[next_rec].state == IT_FINISHED)
      status = vc_run_record_program(s, &items[next_rec++]);
    if (status || next_rec == n) break;
    vc_tokens_grant(s);
    status = vc_workers_wait(s, &msg, true);
  }
  vc_wbuf_free(&msg);
  if (status == VC_EXIT_INTERRUPTED) {
    vc_slots_kill(s);
    for (uint32_t i = next_rec; i < n && status == VC_EXIT_INTERRUPTED; i++)
      if (items[i].state == IT_FINISHED && vc_run_record_program(s, &items[i])) status = VC_EXIT_DB;
  }
  for (uint32_t i = 0; i < n; i++)
    if (items[i].a) {
      vc_acc_free(items[i].a);
      free(items[i].a);
    }
  return status;
}

/* Every worker opens its device at once; the run starts when one has. No
   more workers than programs to run (vc_schedule_workers): the slots past
   them stay empty for the whole run. Returns 0 or an exit status. */
static int start_workers(run_state *s, uint32_t programs) {
  s->nslots = vc_schedule_workers(s->o->jobs ? s->o->jobs : 1, programs);
  int rc = 0;
  for (uint32_t k = 0; k < s->nslots && !rc; k++) rc = vc_slot_spawn(s, &s->slots[k]);
  vc_wbuf msg;
  vc_wbuf_init(&msg);
  while (!rc && !s->have_device)
    rc = g_interrupted ? VC_EXIT_INTERRUPTED : vc_workers_wait(s, &msg, false);
  vc_wbuf_free(&msg);
  return rc;
}

int vc_run_corpus(const vc_runner_opts *o) {
  if (o->shard_plan) return vc_run_print_shard_plan(o);
  vc_corpus c;
  memset(&c, 0, sizeof c);
  vc_error e;
  vc_error_clear(&e);
  run_state s;
  memset(&s, 0, sizeof s);
  s.o = o;
  s.c = &c;
  s.tokens.lock_fd = -1;
  vc_runlock_init(&s.runlock);
  s.today = vc_today_utc();
  s.nslots = o->jobs ? o->jobs : 1;
  s.slots = calloc(s.nslots, sizeof *s.slots);
  if (!s.slots) abort();
  vc_expectations expect;
  install_handlers();
  /* before the device is opened: a run still running elsewhere is refused */
  if (o->resume_run && vc_runlock_take(&s.runlock, o->db_path, o->resume_run, &e)) {
    fprintf(stderr, "vyre-conform: --resume: %s\n", e.msg);
    free(s.slots);
    return e.code == VC_ERR_USAGE ? VC_EXIT_USAGE : VC_EXIT_DB;
  }
  int prepared = vc_run_prepare(&s, &c, &expect);
  /* a resumed run starts its workers once it knows what is left */
  if (!prepared && !o->resume_run) prepared = start_workers(&s, c.n);
  if (prepared) {
    vc_sb_free(&s.selection.list);
    vc_runlock_release(&s.runlock);
    vc_slots_kill(&s);
    free(s.slots);
    if (s.expect) vc_expectations_free(s.expect);
    vc_corpus_free(&c);
    return prepared;
  }
  if (vc_db_open(o->db_path, vc_run_db_busy_ms(o), &s.db, &e)) {
    vc_sb_free(&s.selection.list);
    vc_slots_kill(&s);
    free(s.slots);
    if (s.expect) vc_expectations_free(s.expect);
    fprintf(stderr, "vyre-conform: %s\n", e.msg);
    vc_corpus_free(&c);
    return VC_EXIT_DB;
  }
  bool *done = calloc(c.n, sizeof *done);
  if (!done) abort();
  int opened = vc_run_begin(&s, &c, done, &e);
  uint32_t todo = 0;
  for (uint32_t i = 0; i < c.n; i++) todo += !done[i];
  /* nothing written yet: a device that fails leaves the run resumable */
  int started = !opened && o->resume_run ? start_workers(&s, todo) : 0;
  if (opened || started) {
    vc_runlock_release(&s.runlock);
    if (opened) fprintf(stderr, "vyre-conform: %s\n", e.msg);
    vc_slots_kill(&s);
    free(s.slots);
    vc_db_close(s.db);
    vc_corpus_free(&c);
    free(done);
    if (s.expect) vc_expectations_free(s.expect);
    if (started) return started;
    return e.code == VC_ERR_USAGE ? VC_EXIT_USAGE : VC_EXIT_DB;
  }
  vc_progress_init(&s.prog, o->progress, o->backend, o->db_path, s.run_id, todo, s.nslots);
  printf("expectations: %s\n", s.expect_says);
  printf("build: %s, plugin %s\n", vc_build_id(), s.plugin_id);
  if (todo && s.nslots < o->jobs)
    printf("workers: %u (--jobs %u, no more than the programs to run)\n", s.nslots, o->jobs);
  int status = vc_run_record_device(&s);
  item *items = items_to_run(&s, done, todo);
  if (!status) status = run_items(&s, items, todo);
  free(s.order);
  free(items);
  free(done);
  /* one still opening its device would answer a quit only once it has */
  for (uint32_t k = 0; k < s.nslots; k++)
    vc_slot_stop(&s, &s.slots[k], s.slots[k].ready ? 0 : SIGKILL);
  free(s.slots);
  vc_device_lock_close(&s);
  status = vc_run_end(&s, status);
  vc_runlock_release(&s.runlock);
  vc_progress_summary(&s.prog, &s.verdict, s.expect_file);
  vc_progress_free(&s.prog);
  if (s.expect) {
    s.verdict.expired = vc_run_expired_entries(&s);
    vc_expectations_free(s.expect);
  }
  int verdict = vc_run_verdict_exit(&s.verdict);
  vc_corpus_free(&c);
  if (status == VC_EXIT_INTERRUPTED)
    fprintf(stderr, "vyre-conform: interrupted; run %lld is marked interrupted\n",
            (long long)s.run_id);
  return vc_exit_worst(status, verdict);
}

/* What a run is before it starts (prepare.h): the selection, the
 * expectations, what --resume finds done. */
#include "harness/run/prepare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/exitcodes.h"
#include "harness/base/plural.h"
#include "harness/model/digest.h"
#include "harness/run/default_exps.h"
#include "harness/run/shard_plan.h"
#include "harness/run/tokens.h"
#include "harness/model/verdict.h"

vc_exp_config vc_run_exp_config(const run_state *s) {
  return (vc_exp_config){s->o->backend, s->device.device_name, s->device.driver_name,
                         s->device.driver_version};
}

/* Skip expectations keep a program (or some of its modes) from running at
   all: a program that hangs would otherwise cost the whole timeout. The
   skipped modes are recorded here; the others are put in modes, in the
   selected order, for the worker to run. Returns their number. */
uint32_t vc_run_apply_skips(run_state *s, const vc_corpus_file *f, vc_program_acc *a,
                            vc_mode *modes) {
  const vc_conform_opts *co = &s->o->conform;
  uint32_t n = 0;
  if (!s->expect) {
    memcpy(modes, co->modes, co->nmodes * sizeof *modes);
    return co->nmodes;
  }
  /* Entries name the declared program (parsed once, before the run; a file
     that does not parse keeps its file name, as the worker records it). A
     program never sent to a worker is recorded with its identity from here. */
  if (f->program) {
    vc_program_info_of(f->program, 0, a->digest, a->tags, sizeof a->tags, &a->info);
    a->info.name = a->name;
    a->info.path = a->path;
    a->info.source = a->source;
  }
  vc_exp_config cfg = vc_run_exp_config(s);
  for (uint32_t m = 0; m < co->nmodes; m++) {
    const char *mode = vc_mode_name(co->modes[m]);
    const vc_expectation *x = vc_expectations_match(s->expect, &cfg, s->today, a->name, mode);
    if (!x || x->kind != VC_EXP_SKIP) {
      modes[n++] = co->modes[m];
      continue;
    }
    for (uint32_t r = 0; r < co->repeat; r++)
      vc_verdict_skipped(s->expect, x, vc_acc_new(a, mode, r));
  }
  return n;
}

/* Two files that declare the same program name are refused (results are
   keyed by name). Returns 0 or an exit status. */
static int unique_names(const vc_corpus *c) {
  for (uint32_t i = 0; i < c->n; i++) {
    if (!c->files[i].program) continue;
    for (uint32_t j = i + 1; j < c->n; j++)
      if (c->files[j].program && strcmp(c->files[i].program->name, c->files[j].program->name) == 0) {
        fprintf(stderr, "vyre-conform: %s and %s both declare program %s; names must be unique\n",
                c->files[i].path, c->files[j].path, c->files[i].program->name);
        return VC_EXIT_INPUT;
      }
  }
  return 0;
}

static void join_list(vc_strbuf *sb, const char *const *v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) vc_sb_printf(sb, "%s%s", i ? "," : "", v[i]);
}

/* A selection that leaves nothing to run is a usage error: a green run of
   no program would pass every gate. Names the step that emptied it. */
static int empty_selection(const vc_runner_opts *o, const char *step, uint32_t before) {
  vc_strbuf sb;
  vc_sb_init(&sb);
  if (!strcmp(step, "paths")) {
    vc_sb_puts(&sb, "no *.vyre program under ");
    for (uint32_t i = 0; i < o->npaths; i++) vc_sb_printf(&sb, "%s%s", i ? ", " : "", o->paths[i]);
  } else if (!strcmp(step, "shard")) {
    vc_sb_printf(&sb, "shard %u/%u of %u program%s is empty", o->shard_k, o->shard_n, before,
                 before == 1 ? "" : "s");
  } else {
    vc_sb_puts(&sb, "--exclude-tag ");
    join_list(&sb, o->exclude_tags, o->nexclude_tags);
    vc_sb_printf(&sb, " leaves none of the %u program%s", before, before == 1 ? "" : "s");
  }
  fprintf(stderr, "vyre-conform: nothing to run: %s\n", vc_sb_str(&sb));
  vc_sb_free(&sb);
  return VC_EXIT_USAGE;
}

/* --filter and --caselist: every glob must select a program, or the run is
   refused naming each one that does not (a typo in a caselist would
   otherwise drop its program from every run without a word). */
static int select_by_filters(const vc_runner_opts *o, vc_corpus *c) {
  if (!o->nfilters) return 0;
  uint32_t before = c->n, unmatched = 0;
  bool *matched = calloc(o->nfilters, sizeof *matched);
  if (!matched) abort();
  vc_corpus_select(c, o->filters, o->nfilters, matched);
  for (uint32_t g = 0; g < o->nfilters; g++) {
    if (matched[g]) continue;
    const char *from = o->filter_origins ? o->filter_origins[g] : "--filter";
    fprintf(stderr, "vyre-conform: %s%s%s matches none of the %u %s (by name or relative path)\n",
            from, strcmp(from, "--filter") ? ": " : " ", o->filters[g], before,
            vc_plural(before, "program", "programs"));
    unmatched++;
  }
  free(matched);
  if (!unmatched) return 0;
  fprintf(stderr, "vyre-conform: nothing to run: %s\n",
          c->n ? "every --filter and caselist line must select a program"
               : "no --filter or caselist line selects a program");
  return VC_EXIT_USAGE;
}

/* --shard-costs: read before anything is written; a file that cannot be
   read or parsed refuses the run (never a quiet fall back to estimates). */
static int load_shard_costs(const vc_runner_opts *o, vc_cost_table *t) {
  memset(t, 0, sizeof *t);
  if (!o->shard_costs) return 0;
  vc_error e;
  vc_error_clear(&e);
  if (!vc_cost_table_load(o->shard_costs, t, &e)) return 0;
  fprintf(stderr, "vyre-conform: --shard-costs: %s\n", e.msg);
  return VC_EXIT_INPUT;
}

/* The selection's digest and size (runs.selection_digest): by program
   name and source digest, as the programs table records them, so that
   merge can check a shard set against it. */
static void record_selection(const vc_corpus *c, vc_selection *sel) {
  vc_named_digest *items = calloc(c->n ? c->n : 1, sizeof *items);
  char (*names)[256] = calloc(c->n ? c->n : 1, sizeof *names);
  if (!items || !names) abort();
  for (uint32_t i = 0; i < c->n; i++) {
    vc_corpus_program_name(&c->files[i], names[i], sizeof names[i]);
    items[i] = (vc_named_digest){names[i], c->files[i].digest};
  }
  vc_selection_digest(items, c->n, sel->digest);
  sel->programs = c->n;
  vc_sb_init(&sel->list);
  for (uint32_t i = 0; i < c->n; i++)
    vc_sb_printf(&sel->list, "%s %s\n", items[i].digest, items[i].name);
  free(names);
  free(items);
}

/* What runs: the files under PATH, then --filter (name or path), parsing,
   --exclude-tag, and last --shard: every shard is cut from the same
   selection, which is recorded (sel, when not NULL) before it is cut. Each
   file is parsed here, once: the worker inherits the parsed programs. The
   shard plan needs them all parsed (their costs). costs: the --shard-costs
   table (empty: estimates). Returns 0 or an exit status. */
static int select_programs(const vc_runner_opts *o, const vc_cost_table *costs, vc_corpus *c,
                           vc_selection *sel) {
  if (!c->n) return empty_selection(o, "paths", 0);
  uint32_t before = c->n;
  int rc = select_by_filters(o, c);
  if (rc) return rc;
  vc_corpus_parse(c);
  before = c->n;
  for (uint32_t i = c->n; i-- > 0;) {
    bool ex = false;
    for (uint32_t t = 0; c->files[i].program && t < o->nexclude_tags && !ex; t++)
      ex = vc_program_has_tag(c->files[i].program, o->exclude_tags[t]);
    if (ex) vc_corpus_remove(c, i);
  }
  if (!c->n) return empty_selection(o, "tags", before);
  if ((rc = unique_names(c))) return rc;
  if (sel) record_selection(c, sel);
  before = c->n;
  if (o->shard_n) vc_shard_keep(c, costs, o->shard_k, o->shard_n);
  if (!c->n) return empty_selection(o, "shard", before);
  return 0;
}

/* --shard-plan N: the selection as N shards would split it, printed; no
   device is opened, nothing written. */
int vc_run_print_shard_plan(const vc_runner_opts *o) {
  vc_runner_opts all = *o;
  all.shard_n = all.shard_k = 0;
  vc_corpus c;
  memset(&c, 0, sizeof c);
  vc_error e;
  vc_error_clear(&e);
  vc_cost_table costs;
  int rc = load_shard_costs(o, &costs);
  if (!rc && vc_corpus_collect(&c, o->paths, o->npaths, &e)) {
    fprintf(stderr, "vyre-conform: %s\n", e.msg);
    rc = VC_EXIT_INPUT;
  }
  if (!rc) rc = select_programs(&all, &costs, &c, NULL);
  if (!rc) {
    vc_shard_plan p;
    vc_shard_plan_make(&c, &costs, o->shard_plan, &p);
    vc_shard_plan_print(&p, stdout);
    vc_shard_plan_free(&p);
  }
  vc_cost_table_free(&costs);
  vc_corpus_free(&c);
  return rc;
}

/* --inject-flip must name an output buffer and an element that some selected
   program has: a flip that lands nowhere would make the test pass vacuously. */
static int check_flip(const vc_runner_opts *o, const vc_corpus *c) {
  const vc_conform_opts *co = &o->conform;
  if (!co->flip_mode) return 0;
  bool mode_selected = false;
  for (uint32_t i = 0; i < co->nmodes; i++)
    mode_selected |= strcmp(vc_mode_name(co->modes[i]), co->flip_mode) == 0;
  if (!mode_selected) {
    fprintf(stderr, "vyre-conform: --inject-flip: mode %s is not among the modes run\n",
            co->flip_mode);
    return VC_EXIT_USAGE;
  }
  uint64_t largest = 0;
  bool named = false;
  for (uint32_t i = 0; i < c->n; i++) {
    const vc_program *p = c->files[i].program;
    int b = p ? vc_program_find_buffer(p, co->flip_buffer) : -1;
    if (b < 0 || p->buffers[b].access == VC_READ) continue;
    named = true;
    if (co->flip_index < p->buffers[b].count) return 0;
    if (p->buffers[b].count > largest) largest = p->buffers[b].count;
  }
  if (!named)
    fprintf(stderr, "vyre-conform: --inject-flip: no selected program has an output buffer %s\n",
            co->flip_buffer);
  else
    fprintf(stderr,
            "vyre-conform: --inject-flip: index %llu is past the end of every output buffer %s "
            "(the longest has %llu %s)\n",
            (unsigned long long)co->flip_index, co->flip_buffer, (unsigned long long)largest,
            vc_plural(largest, "element", "elements"));
  return VC_EXIT_USAGE;
}

/* The readable record of what was selected, kept with the run. */
void vc_run_selection_text(const vc_runner_opts *o, const vc_corpus *c, vc_strbuf *sb) {
  if (o->nfilters) {
    vc_sb_puts(sb, "filter=");
    join_list(sb, o->filters, o->nfilters);
    vc_sb_putc(sb, ' ');
  }
  if (o->nexclude_tags) {
    vc_sb_puts(sb, "exclude-tag=");
    join_list(sb, o->exclude_tags, o->nexclude_tags);
    vc_sb_putc(sb, ' ');
  }
  if (o->shard_n) vc_sb_printf(sb, "shard=%u/%u ", o->shard_k, o->shard_n);
  vc_sb_printf(sb, "programs=%u", c->n);
}

/* --resume: reopens the run and marks the programs it has finished (by the
   names parsed already: the corpus is not read again). */
int vc_run_resume(run_state *s, const vc_corpus *c, bool *done, vc_error *e) {
  vc_db_resume r;
  int rc = vc_db_resume_run(s->db, s->o->resume_run, s->o->backend, c->digest, &r, e);
  if (rc) return rc;
  s->run_id = s->o->resume_run;
  s->resumed = true;
  snprintf(s->resumed_device, sizeof s->resumed_device, "%s", r.device_name);
  uint32_t skipped = 0;
  for (uint32_t i = 0; i < c->n; i++) {
    char name[256];
    vc_corpus_program_name(&c->files[i], name, sizeof name);
    for (uint32_t k = 0; k < r.ndone && !done[i]; k++)
      if (strcmp(r.done[k], name) == 0) done[i] = true;
    skipped += done[i];
  }
  s->verdict.earlier = skipped; /* their results were judged by the run before */
  printf("vyre-conform: resuming run %lld: %u program%s done already\n", (long long)s->run_id,
         skipped, skipped == 1 ? "" : "s");
  vc_db_resume_free(&r);
  return 0;
}

/* --expectations FILE, none, or by default the project's for the backend:
   its entries apply only where the device matches their scope. Returns 0
   or an exit status. */
static int load_expectations(const vc_runner_opts *o, run_state *s, vc_expectations *store,
                             char *path, size_t n) {
  vc_error e;
  vc_error_clear(&e);
  path[0] = '\0';
  if (o->expectations && strcmp(o->expectations, "none") == 0) {
    snprintf(s->expect_says, sizeof s->expect_says, "none (--expectations none): every failure is new");
    return 0;
  }
  if (o->expectations) {
    snprintf(path, n, "%s", o->expectations);
    snprintf(s->expect_says, sizeof s->expect_says, "%s", path);
  } else {
    vc_default_exps d;
    vc_default_expectations(o->backend, &d);
    if (!d.found) {
      snprintf(s->expect_says, sizeof s->expect_says,
               "none found for %s (looked for %s): every failure is new; "
               "--expectations FILE names one",
               o->backend, d.looked);
      return 0;
    }
    snprintf(path, n, "%s", d.path);
    snprintf(s->expect_says, sizeof s->expect_says,
             "%s (the project's for this backend, from %s; --expectations none: off)", path,
             d.where);
  }
  if (vc_expectations_load(path, store, &e)) {
    fprintf(stderr, "vyre-conform: %s\n", e.msg);
    return VC_EXIT_INPUT;
  }
  s->expect = store;
  s->expect_file = path;
  return 0;
}

/* What can refuse the run before it is written: the selection, the
   injected flip, the expectations file (the device: start_workers, next).
   Returns 0 or an exit status; nothing is in the database yet. */
int vc_run_prepare(run_state *s, vc_corpus *c, vc_expectations *expect) {
  const vc_runner_opts *o = s->o;
  vc_error e;
  vc_error_clear(&e);
  if (vc_corpus_collect(c, o->paths, o->npaths, &e)) {
    fprintf(stderr, "vyre-conform: %s\n", e.msg);
    return VC_EXIT_INPUT;
  }
  vc_cost_table costs;
  int rc = load_shard_costs(o, &costs);
  if (!rc) rc = select_programs(o, &costs, c, &s->selection);
  vc_cost_table_free(&costs);
  if (!rc) rc = check_flip(o, c);
  if (rc) return rc;
  vc_corpus_redigest(c); /* the digest covers what runs, not what was found */
  rc = load_expectations(o, s, expect, s->expect_path, sizeof s->expect_path);
  if (rc) return rc;
  return vc_device_lock_open(s);
}

/* compare's output: lines for people, JSON for tools. */
#include <inttypes.h>
#include <string.h>

#include "harness/base/exitcodes.h"
#include "harness/base/strbuf.h"
#include "results/gate/compare.h"
#include "results/report/escape.h"
#include "results/report/fmt.h"

/* A cell's status, with the repeat count when repeats disagreed. */
static void put_status(vc_strbuf *sb, const vc_cell *c) {
  if (!c) {
    vc_sb_puts(sb, "absent");
    return;
  }
  vc_sb_puts(sb, vc_status_name(c->status));
  if (c->nfailing && c->nfailing < c->n) vc_sb_printf(sb, " (%u of %u repeats)", c->nfailing, c->n);
}

static void put_run(vc_strbuf *sb, const char *label, const vc_run_data *r) {
  vc_sb_printf(sb, "%s %s run %lld (%s; backend %s; device %s; harness %s %s; corpus %.12s)\n",
               label, r->path, (long long)r->id, r->status, r->info.backend,
               r->has_device ? r->device.device_name : "unrecorded", r->info.harness_version,
               r->info.harness_commit, r->info.corpus_digest);
}

static void put_entry(vc_strbuf *sb, const vc_comparison *c, const vc_expectation *x) {
  vc_sb_printf(sb, "%s:%u (%s: %s)", c->opts->exps->file, x->line, vc_exp_kind_name(x->kind),
               x->reason);
}

static void put_timing(vc_strbuf *sb, const vc_finding *f) {
  char b[VC_FMT_LEN], a[VC_FMT_LEN], bs[VC_FMT_LEN], as[VC_FMT_LEN];
  vc_fmt_ns(b, f->base->wall_median);
  vc_fmt_ns(a, f->cand->wall_median);
  vc_fmt_ns(bs, f->base->wall_max - f->base->wall_min);
  vc_fmt_ns(as, f->cand->wall_max - f->cand->wall_min);
  double pct = f->base->wall_median
                   ? 100.0 * ((double)f->cand->wall_median / (double)f->base->wall_median - 1.0)
                   : 0.0;
  vc_sb_printf(sb, "median wall %s -> %s (%+.1f%%; spread %s / %s)", b, a, pct, bs, as);
}

static void put_finding(vc_strbuf *sb, const vc_comparison *c, const vc_finding *f) {
  vc_sb_printf(sb, "%-18s %s %s: ", vc_finding_kind_label(f->kind), f->program, f->mode);
  switch (f->kind) {
  case VC_F_SLOWER:
  case VC_F_FASTER: put_timing(sb, f); break;
  case VC_F_MISSING:
    put_status(sb, f->base);
    /* a skip entry that covers it makes it SKIPPED: here none does */
    vc_sb_puts(sb, c->opts && c->opts->exps
                       ? " -> absent: the candidate did not run it, and no skip expectation "
                         "covers it"
                       : " -> absent: the candidate did not run it (judged by no expectations: "
                         "only a skip expectation would allow that)");
    break;
  case VC_F_IMPROVEMENT:
    vc_sb_puts(sb, "passes although ");
    put_entry(sb, c, f->exp);
    vc_sb_puts(sb, " expects a failure: remove or narrow the entry");
    break;
  case VC_F_EXPECTED:
  case VC_F_SKIPPED:
    put_status(sb, f->cand);
    vc_sb_puts(sb, ", covered by ");
    put_entry(sb, c, f->exp);
    break;
  case VC_F_NEW_PROGRAM: put_status(sb, f->cand); break;
  default:
    put_status(sb, f->base);
    vc_sb_puts(sb, " -> ");
    put_status(sb, f->cand);
    if (f->cand && f->cand->reason[0]) vc_sb_printf(sb, ": %s", f->cand->reason);
  }
  if (f->kind == VC_F_SLOWER && f->exp) {
    vc_sb_puts(sb, ", accepted by ");
    put_entry(sb, c, f->exp);
  }
  vc_sb_putc(sb, '\n');
}

static void put_summary(vc_strbuf *sb, const vc_comparison *c) {
  vc_sb_puts(sb, "summary:");
  bool any = false;
  for (int k = 0; k < VC_FINDING_KIND_COUNT; k++)
    if (c->counts[k]) {
      vc_sb_printf(sb, "%s %u %s", any ? "," : "", c->counts[k], vc_finding_kind_name(k));
      any = true;
    }
  if (c->nexpired) vc_sb_printf(sb, "%s %u expired", any ? "," : "", c->nexpired), any = true;
  if (!any) vc_sb_puts(sb, " no changes");
  if (!c->opts->timing)
    vc_sb_puts(sb, " (timing not judged)");
  else if (c->untimed_cache)
    vc_sb_printf(sb, " (timing not judged in %u cell%s: kernel cache differs)", c->untimed_cache,
                 c->untimed_cache == 1 ? "" : "s");
  vc_sb_putc(sb, '\n');
  if (c->exit_code == VC_EXIT_PLANTED) {
    vc_sb_printf(sb, "gate: REFUSED (exit %d): the %s made with planted faults: a comparison "
                     "with it qualifies nothing\n",
                 c->exit_code,
                 c->planted[0][0] && c->planted[1][0] ? "baseline and the candidate were"
                 : c->planted[0][0]                   ? "baseline was"
                                                      : "candidate was");
    return;
  }
  if (c->exit_code == VC_EXIT_NOT_RUN) {
    vc_sb_printf(sb, "gate: NOT RUN (exit %d): no cell of the candidate passed or failed: "
                     "everything was skipped or unsupported\n",
                 c->exit_code);
    return;
  }
  if (!c->nexpired && !c->ngating) {
    vc_sb_puts(sb, "gate: PASS");
    if (c->exps_differ)
      vc_sb_puts(sb, " (the runs recorded different expectations files: see the warning)");
    vc_sb_putc(sb, '\n');
    return;
  }
  vc_sb_printf(sb, "gate: FAIL (exit %d):", c->exit_code);
  if (c->nexpired)
    vc_sb_printf(sb, " %u expectation%s expired%s", c->nexpired, c->nexpired == 1 ? "" : "s",
                 c->ngating ? ";" : "");
  if (c->ngating)
    vc_sb_printf(sb, " %u finding%s not covered by expectations (new failures, lost "
                     "coverage%s)",
                 c->ngating, c->ngating == 1 ? "" : "s",
                 c->opts->strict_expectations ? ", stale entries" : "");
  vc_sb_putc(sb, '\n');
}

/* A build or plugin id (runs.build_id), "unrecorded" before schema 10. */
static const char *id_text(const char *id) { return id && id[0] ? id : "unrecorded"; }

void vc_comparison_print_text(const vc_comparison *c, FILE *out) {
  vc_strbuf sb;
  vc_sb_init(&sb);
  put_run(&sb, "baseline: ", c->base);
  put_run(&sb, "candidate:", c->cand);
  if (c->opts->exps_text) vc_sb_printf(&sb, "expectations: %s\n", c->opts->exps_text);
  const char *bb = id_text(c->base->info.build_id), *cb = id_text(c->cand->info.build_id);
  const char *bp = id_text(c->base->info.plugin_id), *cp = id_text(c->cand->info.plugin_id);
  if (strcmp(bb, cb) != 0 || strcmp(bp, cp) != 0)
    vc_sb_printf(&sb, "builds: baseline %s (plugin %s), candidate %s (plugin %s)\n", bb, bp, cb,
                 cp);
  for (uint32_t i = 0; i < c->nwarnings; i++) vc_sb_printf(&sb, "warning: %s\n", c->warnings[i]);
  for (int s = 0; s < 2; s++)
    if (c->planted[s][0])
      vc_sb_printf(&sb, "planted: the %s run has planted faults (%s)\n",
                   s ? "candidate" : "baseline", c->planted[s]);
  if (c->untimed_cache)
    vc_sb_printf(&sb,
                 "timing: %u passing cell%s not judged: %s kernels came from the kernel cache "
                 "on one side and were compiled on the other (baseline %s, %u of %u kernels "
                 "from the cache; candidate %s, %u of %u)\n",
                 c->untimed_cache, c->untimed_cache == 1 ? "" : "s",
                 c->untimed_cache == 1 ? "its" : "their", vc_cache_kind_name(c->cache[0].kind),
                 c->cache[0].hits, c->cache[0].kernels, vc_cache_kind_name(c->cache[1].kind),
                 c->cache[1].hits, c->cache[1].kernels);
  for (uint32_t i = 0; i < c->nexpired; i++) {
    const vc_expectation *x = c->expired[i];
    vc_sb_printf(&sb, "%-18s %s:%u: %s %s %s expired on %s: %s\n", "EXPIRED", c->opts->exps->file,
                 x->line, vc_exp_kind_name(x->kind), x->program, x->mode, x->expires_text,
                 x->reason);
  }
  for (int k = 0; k < VC_FINDING_KIND_COUNT; k++)
    for (uint32_t i = 0; i < c->n; i++)
      if (c->items[i].kind == (vc_finding_kind)k) put_finding(&sb, c, &c->items[i]);
  for (uint32_t i = 0; i < c->nunused; i++)
    vc_sb_printf(&sb, "%-18s %s:%u: %s %s %s matched nothing in the candidate\n", "UNUSED",
                 c->opts->exps->file, c->unused[i]->line, vc_exp_kind_name(c->unused[i]->kind),
                 c->unused[i]->program, c->unused[i]->mode);
  put_summary(&sb, c);
  fputs(vc_sb_str(&sb), out);
  vc_sb_free(&sb);
}

/* ---- JSON ---- */

static void json_run(vc_strbuf *sb, const vc_run_data *r) {
  vc_sb_puts(sb, "{\"file\": ");
  vc_esc_json(sb, r->path);
  vc_sb_printf(sb, ", \"run\": %lld, \"status\": ", (long long)r->id);
  vc_esc_json(sb, r->status);
  vc_sb_puts(sb, ", \"backend\": ");
  vc_esc_json(sb, r->info.backend);
  vc_sb_puts(sb, ", \"device\": ");
  vc_esc_json(sb, r->device.device_name);
  vc_sb_puts(sb, ", \"harness_version\": ");
  vc_esc_json(sb, r->info.harness_version);
  vc_sb_puts(sb, ", \"corpus_digest\": ");
  vc_esc_json(sb, r->info.corpus_digest);
  vc_sb_puts(sb, "}");
}

static void json_entry(vc_strbuf *sb, const vc_comparison *c, const vc_expectation *x) {
  if (!x) {
    vc_sb_puts(sb, "null");
    return;
  }
  vc_sb_puts(sb, "{\"file\": ");
  vc_esc_json(sb, c->opts->exps->file);
  vc_sb_printf(sb, ", \"line\": %u, \"status\": \"%s\", \"program\": ", x->line,
               vc_exp_kind_name(x->kind));
  vc_esc_json(sb, x->program);
  vc_sb_puts(sb, ", \"mode\": ");
  vc_esc_json(sb, x->mode);
  vc_sb_puts(sb, ", \"expires\": ");
  if (x->expires_text)
    vc_esc_json(sb, x->expires_text);
  else
    vc_sb_puts(sb, "null");
  vc_sb_puts(sb, ", \"reason\": ");
  vc_esc_json(sb, x->reason);
  vc_sb_puts(sb, "}");
}

static void json_side(vc_strbuf *sb, const char *name, const vc_cell *c) {
  vc_sb_printf(sb, ", \"%s\": ", name);
  if (!c) {
    vc_sb_puts(sb, "null");
    return;
  }
  vc_sb_printf(sb,
               "{\"status\": \"%s\", \"repeats\": %u, \"failing_repeats\": %u, "
               "\"median_wall_ns\": %" PRIu64 ", \"spread_wall_ns\": %" PRIu64
               ", \"median_device_ns\": %" PRIu64 ", \"reason\": ",
               vc_status_name(c->status), c->n, c->nfailing, c->wall_median,
               c->wall_max - c->wall_min, c->device_median);
  vc_esc_json(sb, c->reason);
  vc_sb_puts(sb, "}");
}

static void json_finding(vc_strbuf *sb, const vc_comparison *c, const vc_finding *f) {
  vc_sb_printf(sb,
               "{\"kind\": \"%s\", \"gating\": %s, \"program\": ", vc_finding_kind_name(f->kind),
               f->gating ? "true" : "false");
  vc_esc_json(sb, f->program);
  vc_sb_puts(sb, ", \"mode\": ");
  vc_esc_json(sb, f->mode);
  json_side(sb, "baseline", f->base);
  json_side(sb, "candidate", f->cand);
  vc_sb_puts(sb, ", \"expectation\": ");
  json_entry(sb, c, f->exp);
  vc_sb_puts(sb, "}");
}

static void json_entries(vc_strbuf *sb, const vc_comparison *c, const vc_expectation *const *xs,
                         uint32_t n) {
  vc_sb_puts(sb, "[");
  for (uint32_t i = 0; i < n; i++) {
    vc_sb_puts(sb, i ? ",\n    " : "\n    ");
    json_entry(sb, c, xs[i]);
  }
  vc_sb_puts(sb, n ? "\n  ]" : "]");
}

void vc_comparison_print_json(const vc_comparison *c, FILE *out) {
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_sb_puts(&sb, "{\n  \"baseline\": ");
  json_run(&sb, c->base);
  vc_sb_puts(&sb, ",\n  \"candidate\": ");
  json_run(&sb, c->cand);
  if (c->opts->exps_text) {
    vc_sb_puts(&sb, ",\n  \"expectations\": ");
    vc_esc_json(&sb, c->opts->exps_text);
  }
  vc_sb_printf(&sb,
               ",\n  \"timing\": %s,\n  \"threshold_pct\": %g,\n  \"min_delta_ns\": %" PRIu64
               ",\n  \"warnings\": [",
               c->opts->timing ? "true" : "false", c->opts->threshold_pct, c->opts->min_delta_ns);
  for (uint32_t i = 0; i < c->nwarnings; i++) {
    if (i) vc_sb_puts(&sb, ", ");
    vc_esc_json(&sb, c->warnings[i]);
  }
  vc_sb_puts(&sb, "],\n  \"findings\": [");
  for (uint32_t i = 0; i < c->n; i++) {
    vc_sb_puts(&sb, i ? ",\n    " : "\n    ");
    json_finding(&sb, c, &c->items[i]);
  }
  vc_sb_puts(&sb, c->n ? "\n  ],\n  \"expired\": " : "],\n  \"expired\": ");
  json_entries(&sb, c, c->expired, c->nexpired);
  vc_sb_puts(&sb, ",\n  \"unused\": ");
  json_entries(&sb, c, c->unused, c->nunused);
  vc_sb_puts(&sb, ",\n  \"counts\": {");
  for (int k = 0; k < VC_FINDING_KIND_COUNT; k++)
    vc_sb_printf(&sb, "%s\"%s\": %u", k ? ", " : "", vc_finding_kind_name(k), c->counts[k]);
  vc_sb_puts(&sb, "},\n  \"planted\": {\"baseline\": ");
  vc_esc_json(&sb, c->planted[0]);
  vc_sb_puts(&sb, ", \"candidate\": ");
  vc_esc_json(&sb, c->planted[1]);
  vc_sb_puts(&sb, "},\n  \"kernel_cache\": {");
  for (int s = 0; s < 2; s++)
    vc_sb_printf(&sb, "%s\"%s\": {\"state\": \"%s\", \"hits\": %u, \"kernels\": %u}",
                 s ? ", " : "", s ? "candidate" : "baseline", vc_cache_kind_name(c->cache[s].kind),
                 c->cache[s].hits, c->cache[s].kernels);
  vc_sb_printf(&sb, "},\n  \"untimed_cache\": %u,\n  \"candidate_ran\": %u", c->untimed_cache,
               c->cand_ran);
  vc_sb_printf(&sb, ",\n  \"gating\": %u,\n  \"gate\": \"%s\",\n  \"exit\": %d\n}\n",
               c->ngating, vc_comparison_gate_word(c), c->exit_code);
  fputs(vc_sb_str(&sb), out);
  vc_sb_free(&sb);
}

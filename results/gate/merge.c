#include "results/gate/merge.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/base/strbuf.h"
#include "harness/model/digest.h"
#include "results/gate/judged_by.h"
#include "results/gate/provenance.h"
#include "results/store/db_internal.h"
#include "results/store/load.h"

typedef struct shard {
  vc_run_data *run;
  const char *spec;
  uint32_t k, n; /* "K/N", 0 <= K < N as the runner's --shard */
} shard;

static int parse_shard(shard *s, vc_error *err) {
  const char *t = s->run->info.shard;
  unsigned k, n;
  char tail;
  if (!t[0])
    return vc_fail(err, VC_ERR_USAGE,
                   "cannot merge: %s run %lld is not a shard (it was run without --shard)", s->spec,
                   (long long)s->run->id);
  if (sscanf(t, "%u/%u%c", &k, &n, &tail) != 2 || k >= n || n > 100000)
    return vc_fail(err, VC_ERR_USAGE, "cannot merge: %s run %lld has a malformed shard \"%s\"",
                   s->spec, (long long)s->run->id, t);
  s->k = k;
  s->n = n;
  return 0;
}

static int load_shard(shard *s, const char *spec, vc_error *err) {
  char *path = malloc(strlen(spec) + 1);
  if (!path) return vc_fail(err, VC_ERR_NOMEM, "merge: out of memory");
  int64_t run_id;
  vc_run_spec_split(spec, path, &run_id);
  s->spec = spec;
  int rc = vc_run_load(path, run_id ? run_id : VC_RUN_LATEST, &s->run, err);
  free(path);
  return rc ? rc : parse_shard(s, err);
}

/* A shard must record the selection it was cut from (schema 10). */
static int check_recorded(const shard *s, vc_error *err) {
  if (s->run->info.selection_digest[0]) return 0;
  return vc_fail(err, VC_ERR_USAGE,
                 "cannot merge: %s run %lld records no selection digest (recorded by an older "
                 "harness): its union with the other shards cannot be checked; run the shards "
                 "again",
                 s->spec, (long long)s->run->id);
}

/* Every shard must be cut from one selection into the same N. */
static int check_same(const shard *a, const shard *b, vc_error *err) {
  const vc_run_info *x = &a->run->info, *y = &b->run->info;
  char nx[16], ny[16];
  snprintf(nx, sizeof nx, "%u", x->selection_programs);
  snprintf(ny, sizeof ny, "%u", y->selection_programs);
  const struct {
    const char *what, *vx, *vy;
  } fields[] = {
      {"selection digests", x->selection_digest, y->selection_digest},
      {"selection sizes", nx, ny},
      {"shard counts", a->n == b->n ? "" : x->shard, a->n == b->n ? "" : y->shard},
  };
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
    if (strcmp(fields[i].vx, fields[i].vy) != 0)
      return vc_fail(err, VC_ERR_USAGE, "cannot merge: %s differ: %s has \"%s\", %s has \"%s\"",
                     fields[i].what, a->spec, fields[i].vx, b->spec, fields[i].vy);
  return 0;
}

/* What may differ between shards only with --allow-mixed: the names go into
   the merged run's mixed= option. option: the runs.options key, or NULL. */
static const struct {
  const char *name, *option;
} mixable[] = {
    {"harness-version", NULL}, {"build", NULL},      {"plugin", NULL},
    {"backend", NULL},         {"modes", NULL},      {"device", NULL},
    {"driver", NULL},          {"repeat", "repeat"}, {"timeout", "timeout"},
    {"device-options", "device-options"},            {"flake-reruns", "flake-reruns"},
    {"max-buffer-bytes", "max-buffer-bytes"},
};
enum { NMIXABLE = sizeof mixable / sizeof mixable[0] };

static void field_value(const shard *s, size_t f, char *out, size_t n) {
  const vc_run_data *r = s->run;
  const vc_run_info *x = &r->info;
  if (mixable[f].option) {
    if (!vc_run_option(r, mixable[f].option, out, n)) snprintf(out, n, "(unset)");
    return;
  }
  const char *v = f == 0   ? x->harness_version
                  : f == 1 ? x->build_id
                  : f == 2 ? x->plugin_id
                  : f == 3 ? x->backend
                  : f == 4 ? x->modes
                           : NULL;
  if (v)
    snprintf(out, n, "%s", v[0] ? v : "(unrecorded)");
  else if (!r->has_device)
    snprintf(out, n, "(unrecorded)");
  else if (f == 5)
    snprintf(out, n, "%s", r->device.device_name);
  else
    snprintf(out, n, "%s %s", r->device.driver_name, r->device.driver_version);
}

/* Refuses a difference, or with allow_mixed marks the field mixed. "unknown"
   (a binary that could not be read) never equals anything. */
static int check_mixable(const shard *s, uint32_t count, bool allow_mixed, bool *mixed,
                         vc_error *err) {
  for (size_t f = 0; f < NMIXABLE; f++) {
    char v0[512], vi[512];
    field_value(&s[0], f, v0, sizeof v0);
    for (uint32_t i = 1; i < count && !mixed[f]; i++) {
      field_value(&s[i], f, vi, sizeof vi);
      bool unknown = (f == 1 || f == 2) && !strcmp(v0, "unknown");
      if (!unknown && strcmp(v0, vi) == 0) continue;
      if (allow_mixed) {
        mixed[f] = true;
        continue;
      }
      return vc_fail(err, VC_ERR_USAGE,
                     "cannot merge: the shards differ in %s: %s has \"%s\", %s has \"%s\" "
                     "(--allow-mixed merges them, recording mixed=%s)",
                     mixable[f].name, s[0].spec, v0, s[i].spec, vi, mixable[f].name);
    }
  }
  return 0;
}

static int check_indices(const shard *s, uint32_t count, vc_error *err) {
  uint32_t n = s[0].n;
  const shard **seen = calloc(n, sizeof *seen);
  if (!seen) return vc_fail(err, VC_ERR_NOMEM, "merge: out of memory");
  int rc = 0;
  for (uint32_t i = 0; i < count && !rc; i++) {
    if (seen[s[i].k])
      rc = vc_fail(err, VC_ERR_USAGE, "cannot merge: shard %u/%u appears twice: %s and %s", s[i].k,
                   n, seen[s[i].k]->spec, s[i].spec);
    seen[s[i].k] = &s[i];
  }
  if (!rc) {
    vc_strbuf missing;
    vc_sb_init(&missing);
    for (uint32_t k = 0; k < n; k++)
      if (!seen[k]) vc_sb_printf(&missing, "%s%u/%u", missing.len ? ", " : "", k, n);
    if (missing.len)
      rc = vc_fail(err, VC_ERR_USAGE, "cannot merge: shard%s missing: %s (%u of %u given)",
                   count + 1 < n ? "s" : "", vc_sb_str(&missing), count, n);
    vc_sb_free(&missing);
  }
  free(seen);
  return rc;
}

typedef struct named {
  const char *name, *digest;
  const char *spec;
} named;

static int cmp_name(const void *a, const void *b) {
  return strcmp(((const named *)a)->name, ((const named *)b)->name);
}

/* Every shard's programs, sorted by name, into *out (free it); a program in
   two shards means the shards were not cut from one selection. */
static int check_programs(const shard *s, uint32_t count, named **out, uint32_t *nout,
                          vc_error *err) {
  uint32_t total = 0;
  for (uint32_t i = 0; i < count; i++) total += s[i].run->nprogs;
  named *all = malloc((total ? total : 1) * sizeof *all);
  if (!all) return vc_fail(err, VC_ERR_NOMEM, "merge: out of memory");
  uint32_t m = 0;
  for (uint32_t i = 0; i < count; i++)
    for (uint32_t p = 0; p < s[i].run->nprogs; p++) {
      const vc_program_info *pi = &s[i].run->progs[p].info;
      all[m++] = (named){pi->name, pi->source_digest ? pi->source_digest : "", s[i].spec};
    }
  qsort(all, m, sizeof *all, cmp_name);
  int rc = 0;
  for (uint32_t i = 1; i < m && !rc; i++)
    if (strcmp(all[i - 1].name, all[i].name) == 0)
      rc = vc_fail(err, VC_ERR_USAGE, "cannot merge: program %s is in two shards: %s and %s",
                   all[i].name, all[i - 1].spec, all[i].spec);
  if (rc) {
    free(all);
    return rc;
  }
  *out = all;
  *nout = m;
  return 0;
}

/* runs.selection_list: "DIGEST NAME" lines, by name; parsed in place. */
static uint32_t parse_list(char *text, vc_named_digest *items, uint32_t cap) {
  uint32_t n = 0;
  for (char *line = text; *line && n < cap;) {
    char *nl = strchr(line, '\n'), *sp = strchr(line, ' ');
    if (nl) *nl = '\0';
    if (sp && (!nl || sp < nl)) {
      *sp = '\0';
      items[n++] = (vc_named_digest){sp + 1, line};
    }
    if (!nl) break;
    line = nl + 1;
  }
  return n;
}

static void digest_of(const named *all, uint32_t m, char hex[65]) {
  vc_named_digest *items = malloc((m ? m : 1) * sizeof *items);
  if (!items) abort();
  for (uint32_t i = 0; i < m; i++) items[i] = (vc_named_digest){all[i].name, all[i].digest};
  vc_selection_digest(items, m, hex);
  free(items);
}

/* The union of the shards' programs against the selection they were cut
   from: no program outside it, each with the source it had there, and, when
   every shard completed, all of it (the digest over the union's rows must
   be the selection's). An incomplete shard may miss programs: the merged
   run is then not complete either. */
static int check_union(const shard *s, uint32_t count, const named *all, uint32_t m,
                       vc_error *err) {
  const vc_run_info *x = &s[0].run->info;
  bool complete = true;
  for (uint32_t i = 0; i < count; i++) complete &= strcmp(s[i].run->status, "complete") == 0;
  uint32_t want = x->selection_programs;
  char *text = malloc(strlen(x->selection_list) + 1);
  vc_named_digest *sel = malloc((want ? want : 1) * sizeof *sel);
  if (!text || !sel) abort();
  strcpy(text, x->selection_list);
  uint32_t nsel = parse_list(text, sel, want);
  int rc = 0;
  char hex[65];
  vc_selection_digest(sel, nsel, hex);
  bool listed = nsel == want && strcmp(hex, x->selection_digest) == 0;
  vc_strbuf missing;
  vc_sb_init(&missing);
  uint32_t nmissing = 0;
  for (uint32_t a = 0, b = 0; listed && !rc && (a < m || b < nsel);) {
    int c = a == m ? 1 : b == nsel ? -1 : strcmp(all[a].name, sel[b].name);
    if (c < 0)
      rc = vc_fail(err, VC_ERR_USAGE,
                   "cannot merge: program %s of %s is not in the selection the shards were cut "
                   "from (%u programs)",
                   all[a].name, all[a].spec, want);
    else if (c > 0) {
      if (nmissing++ < 8) vc_sb_printf(&missing, "%s%s", missing.len ? ", " : "", sel[b].name);
      b++;
    } else if (strcmp(all[a].digest, sel[b].digest) != 0)
      rc = vc_fail(err, VC_ERR_USAGE,
                   "cannot merge: program %s of %s has source digest %.12s, the selection has "
                   "%.12s",
                   all[a].name, all[a].spec, all[a].digest, sel[b].digest);
    else
      a++, b++;
  }
  if (!rc && complete && nmissing)
    rc = vc_fail(err, VC_ERR_USAGE,
                 "cannot merge: the complete shards miss %u of the selection's %u program%s: "
                 "%s%s",
                 nmissing, want, want == 1 ? "" : "s", vc_sb_str(&missing),
                 nmissing > 8 ? ", ..." : "");
  if (!rc && complete) {
    digest_of(all, m, hex);
    if (m != want || strcmp(hex, x->selection_digest) != 0)
      rc = vc_fail(err, VC_ERR_USAGE,
                   "cannot merge: the shards' %u program%s do not make the selection they were "
                   "cut from (%u programs, digest %.12s; the shards' programs give %.12s)",
                   m, m == 1 ? "" : "s", want, x->selection_digest, hex);
  }
  vc_sb_free(&missing);
  free(sel);
  free(text);
  return rc;
}

/* ---- writing the merged run ---- */

static const char *merged_status(const shard *s, uint32_t count) {
  bool failed = false, complete = true;
  for (uint32_t i = 0; i < count; i++) {
    failed |= strcmp(s[i].run->status, "failed") == 0;
    complete &= strcmp(s[i].run->status, "complete") == 0;
  }
  return failed ? "failed" : complete ? "complete" : "interrupted";
}

/* Planted faults of any shard are the merged run's too (vc_run_planted
   reads them from options and the command line): the recorded items a
   shard has that the merged options lack yet, and the command line of a
   shard whose planted text the merged run would not show. */
static void carry_planted(const shard *s, uint32_t count, vc_strbuf *options, vc_strbuf *cmd) {
  static const char *const keys[] = {"inject-flip", "inject-crash", "inject-hang",
                                     "mutant-build", "mutant",      "fault"};
  for (uint32_t i = 1; i < count; i++) {
    vc_run_data view = {0};
    view.info.options = vc_sb_str(options);
    view.info.command_line = vc_sb_str(cmd);
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
      char v[1024];
      if (!vc_run_option(s[i].run, keys[k], v, sizeof v) || vc_run_option(&view, keys[k], NULL, 0))
        continue;
      vc_sb_printf(options, " %s=\"", keys[k]);
      for (const char *c = v; *c; c++) {
        if (*c == '"' || *c == '\\') vc_sb_putc(options, '\\');
        vc_sb_putc(options, *c);
      }
      vc_sb_putc(options, '"');
      view.info.options = vc_sb_str(options);
    }
    char theirs[VC_PLANTED_TEXT], ours[VC_PLANTED_TEXT];
    vc_run_planted(s[i].run, theirs, sizeof theirs);
    vc_run_planted(&view, ours, sizeof ours);
    if (theirs[0] && !strstr(ours, theirs))
      vc_sb_printf(cmd, " ; %s", s[i].run->info.command_line);
  }
}

static int write_merged(vc_db *db, const shard *s, uint32_t count, const bool *mixed,
                        int64_t *run_id, vc_error *err) {
  vc_run_info info = s[0].run->info;
  int64_t ended = 0;
  vc_strbuf hosts, options, cmd;
  vc_sb_init(&hosts);
  vc_sb_init(&options);
  vc_sb_init(&cmd);
  for (uint32_t i = 0; i < count; i++) {
    const vc_run_data *r = s[i].run;
    if (r->info.started_ns < info.started_ns) info.started_ns = r->info.started_ns;
    if (r->ended_ns > ended) ended = r->ended_ns;
    uint32_t j = 0;
    while (j < i && strcmp(s[j].run->info.host, r->info.host) != 0) j++;
    if (j == i) vc_sb_printf(&hosts, "%s%s", i ? "," : "", r->info.host);
  }
  vc_sb_puts(&options, info.options);
  vc_sb_puts(&cmd, info.command_line);
  carry_planted(s, count, &options, &cmd);
  vc_sb_printf(&options, "%smerged-shards=%u", options.len ? " " : "", count);
  for (size_t f = 0, n = 0; f < NMIXABLE; f++)
    if (mixed[f]) vc_sb_printf(&options, "%s%s", n++ ? "," : " mixed=", mixable[f].name);
  info.shard = "";
  info.host = vc_sb_str(&hosts);
  info.options = vc_sb_str(&options);
  info.command_line = vc_sb_str(&cmd);
  int rc = vc_db_begin_run(db, &info, run_id, err);
  vc_sb_free(&hosts);
  vc_sb_free(&options);
  vc_sb_free(&cmd);
  if (rc) return rc;
  if (s[0].run->has_device)
    rc = vc_db_record_device(db, *run_id, &s[0].run->device, s[0].run->fingerprint, err);
  for (uint32_t i = 0; i < count && !rc; i++)
    for (uint32_t p = 0; p < s[i].run->nprogs && !rc; p++) {
      const vc_prog_data *pd = &s[i].run->progs[p];
      rc = vc_db_record_program(db, *run_id, &pd->info, pd->results, pd->nresults, err);
    }
  if (!rc) return vc_db_end_run_at(db, *run_id, merged_status(s, count), ended, err);
  vc_error ignored; /* the first error is the one to report */
  vc_db_end_run(db, *run_id, "failed", &ignored);
  return rc;
}

static int cmp_shard(const void *a, const void *b) {
  return (int)((const shard *)a)->k - (int)((const shard *)b)->k;
}

static int check_output(const char *out_path, const shard *s, uint32_t count, vc_error *err) {
  struct stat out, in;
  if (stat(out_path, &out) != 0) return 0; /* a new file */
  for (uint32_t i = 0; i < count; i++)
    if (stat(s[i].run->path, &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
      return vc_fail(err, VC_ERR_USAGE, "cannot merge: the output %s is also an input", out_path);
  return 0;
}

int vc_merge(const char *out_path, const char *const *inputs, uint32_t n, int busy_ms,
             bool allow_mixed, int64_t *run_id, vc_error *err) {
  if (n == 0) return vc_fail(err, VC_ERR_USAGE, "merge: no shard files given");
  shard *s = calloc(n, sizeof *s);
  if (!s) return vc_fail(err, VC_ERR_NOMEM, "merge: out of memory");
  bool mixed[NMIXABLE] = {false};
  named *all = NULL;
  uint32_t nall = 0;
  int rc = 0;
  for (uint32_t i = 0; i < n && !rc; i++) rc = load_shard(&s[i], inputs[i], err);
  for (uint32_t i = 0; i < n && !rc; i++) rc = check_recorded(&s[i], err);
  for (uint32_t i = 1; i < n && !rc; i++) rc = check_same(&s[0], &s[i], err);
  if (!rc) rc = check_indices(s, n, err);
  if (!rc) rc = check_mixable(s, n, allow_mixed, mixed, err);
  if (!rc) rc = check_programs(s, n, &all, &nall, err);
  if (!rc) rc = check_union(s, n, all, nall, err);
  if (!rc) rc = check_output(out_path, s, n, err);
  free(all);
  if (!rc) {
    qsort(s, n, sizeof *s, cmp_shard);
    vc_db *db = NULL;
    rc = vc_db_open(out_path, busy_ms, &db, err);
    if (!rc) rc = write_merged(db, s, n, mixed, run_id, err);
    vc_db_close(db);
  }
  for (uint32_t i = 0; i < n; i++) vc_run_free(s[i].run);
  free(s);
  return rc;
}

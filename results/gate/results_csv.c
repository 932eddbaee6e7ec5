/* Writing and reading plain-text results (results_csv.h). Fields are
 * quoted as RFC 4180 says when they hold a comma, a quote or a line break;
 * the reader takes both forms. */
#include "results/gate/results_csv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/model/outcome.h"
#include "results/gate/cells.h"

static void put_field(vc_strbuf *out, const char *s) {
  if (!strpbrk(s, ",\"\r\n")) {
    vc_sb_puts(out, s);
    return;
  }
  vc_sb_puts(out, "\"");
  for (; *s; s++) vc_sb_printf(out, *s == '"' ? "\"\"" : "%c", *s);
  vc_sb_puts(out, "\"");
}

int vc_results_csv(const vc_run_data *r, bool failures_only, vc_strbuf *out, vc_error *err) {
  vc_cells cells;
  int rc = vc_cells_build(r, &cells, err);
  if (rc) return rc;
  vc_sb_puts(out, VC_RESULTS_CSV_HEADER "\n");
  for (uint32_t i = 0; i < cells.n; i++) {
    const vc_cell *c = &cells.items[i];
    if (failures_only && !vc_status_is_failure(c->status)) continue;
    put_field(out, c->prog->info.name);
    vc_sb_puts(out, ",");
    put_field(out, c->mode);
    vc_sb_printf(out, ",%s,%.3f\n", vc_status_name(c->status), (double)c->wall_median / 1e6);
  }
  vc_cells_free(&cells);
  return 0;
}

bool vc_is_csv_path(const char *path) {
  size_t n = strlen(path);
  return n > 4 && strcmp(path + n - 4, ".csv") == 0;
}

/* One listed failure. */
typedef struct listed {
  char *program, *mode;
  vc_status status;
  bool used;
} listed;

typedef struct listing {
  listed *items;
  uint32_t n, cap;
} listing;

static void listing_free(listing *l) {
  for (uint32_t i = 0; i < l->n; i++) {
    free(l->items[i].program);
    free(l->items[i].mode);
  }
  free(l->items);
}

/* Splits line into at most 8 fields (quotes as RFC 4180); returns the
   count, or -1 for an unclosed quote. Fields point into buf. */
static int split(char *line, char **f, int max) {
  int n = 0;
  char *p = line;
  for (;;) {
    if (n == max) return n + 1;
    char *w = p;
    f[n++] = w;
    if (*p == '"') {
      p++;
      for (;;) {
        if (!*p) return -1;
        if (*p == '"' && p[1] == '"') *w++ = '"', p += 2;
        else if (*p == '"') break;
        else *w++ = *p++;
      }
      p++;
      if (*p && *p != ',') return -1;
    } else {
      while (*p && *p != ',') *w++ = *p++;
    }
    bool more = *p == ',';
    *w = '\0';
    if (!more) return n;
    p++;
  }
}

static int add_line(const char *path, unsigned ln, char *line, listing *l, vc_error *err) {
  char *f[9];
  int n = split(line, f, 8);
  if (n < 3 || n > 4)
    return vc_fail(err, VC_ERR_PARSE, "%s:%u: expected program,mode,status[,duration_ms]", path,
                   ln);
  if (!f[0][0]) return vc_fail(err, VC_ERR_PARSE, "%s:%u: no program name", path, ln);
  if (vc_mode_from_name(f[1]) < 0)
    return vc_fail(err, VC_ERR_PARSE, "%s:%u: unknown mode '%s'", path, ln, f[1]);
  int st = vc_status_from_name(f[2]);
  if (st < 0) return vc_fail(err, VC_ERR_PARSE, "%s:%u: unknown status '%s'", path, ln, f[2]);
  if (!vc_status_is_failure((vc_status)st))
    return vc_fail(err, VC_ERR_PARSE,
                   "%s:%u: status '%s' is not a failure (a failures file lists failures only)",
                   path, ln, f[2]);
  for (uint32_t i = 0; i < l->n; i++)
    if (!strcmp(l->items[i].program, f[0]) && !strcmp(l->items[i].mode, f[1]))
      return vc_fail(err, VC_ERR_PARSE, "%s:%u: %s in %s is listed twice", path, ln, f[0], f[1]);
  if (l->n == l->cap) {
    uint32_t cap = l->cap ? l->cap * 2 : 32;
    listed *it = realloc(l->items, cap * sizeof *it);
    if (!it) return vc_fail(err, VC_ERR_NOMEM, "%s: out of memory", path);
    l->items = it;
    l->cap = cap;
  }
  listed *x = &l->items[l->n];
  x->program = strdup(f[0]);
  x->mode = strdup(f[1]);
  x->status = (vc_status)st;
  x->used = false;
  if (!x->program || !x->mode) {
    free(x->program);
    free(x->mode);
    return vc_fail(err, VC_ERR_NOMEM, "%s: out of memory", path);
  }
  l->n++;
  return 0;
}

static int read_listing(const char *path, listing *l, vc_error *err) {
  FILE *f = fopen(path, "r");
  if (!f) return vc_fail(err, VC_ERR_IO, "cannot read %s: %s", path, strerror(errno));
  char buf[4096];
  unsigned ln = 0;
  int rc = 0;
  while (!rc && fgets(buf, sizeof buf, f)) {
    ln++;
    size_t n = strlen(buf);
    if (n && buf[n - 1] != '\n' && !feof(f)) {
      rc = vc_fail(err, VC_ERR_PARSE, "%s:%u: line too long", path, ln);
      break;
    }
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r')) buf[--n] = '\0';
    if (n == 0) continue;
    if (ln == 1 && !strcmp(buf, VC_RESULTS_CSV_HEADER)) continue;
    if (ln == 1) {
      rc = vc_fail(err, VC_ERR_PARSE, "%s:1: expected the header \"%s\"", path,
                   VC_RESULTS_CSV_HEADER);
      break;
    }
    rc = add_line(path, ln, buf, l, err);
  }
  if (!rc && ferror(f)) rc = vc_fail(err, VC_ERR_IO, "%s: read error", path);
  fclose(f);
  return rc;
}

static listed *find(listing *l, const char *program, const char *mode) {
  for (uint32_t i = 0; i < l->n; i++)
    if (!strcmp(l->items[i].program, program) && !strcmp(l->items[i].mode, mode))
      return &l->items[i];
  return NULL;
}

static int cmp_prog(const void *a, const void *b) {
  return strcmp(((const vc_prog_data *)a)->info.name, ((const vc_prog_data *)b)->info.name);
}

static int cmp_result(const void *a, const void *b) {
  return vc_mode_from_name(((const vc_result *)a)->mode) -
         vc_mode_from_name(((const vc_result *)b)->mode);
}

/* The baseline's results for program p of cand: one per mode cand ran,
   then the listed modes cand did not run. */
static void fill_program(vc_arena *a, vc_prog_data *out, const vc_prog_data *p, listing *l,
                         const char *name) {
  uint32_t cap = (p ? p->nresults : 0) + VC_MODE_COUNT;
  out->results = vc_arena_alloc(a, cap * sizeof *out->results);
  memset(out->results, 0, cap * sizeof *out->results);
  out->nresults = 0;
  for (uint32_t i = 0; p && i < p->nresults; i++) {
    const vc_result *c = &p->results[i];
    if (c->repeat != 0) continue;
    vc_result *r = &out->results[out->nresults++];
    r->mode = c->mode;
    listed *x = find(l, name, c->mode);
    if (x) r->status = x->status, x->used = true;
    else if (c->status == VC_ST_UNSUPPORTED || c->status == VC_ST_SKIP) r->status = c->status;
    else r->status = VC_ST_PASS;
  }
  for (uint32_t i = 0; i < l->n && out->nresults < cap; i++) {
    listed *x = &l->items[i];
    if (x->used || strcmp(x->program, name) != 0) continue;
    vc_result *r = &out->results[out->nresults++];
    r->mode = vc_arena_strdup(a, x->mode);
    r->status = x->status;
    x->used = true;
  }
  qsort(out->results, out->nresults, sizeof *out->results, cmp_result);
}

int vc_run_from_failures_csv(const char *path, const vc_run_data *cand, vc_run_data **out,
                             vc_error *err) {
  *out = NULL;
  listing l = {0};
  int rc = read_listing(path, &l, err);
  if (rc) {
    listing_free(&l);
    return rc;
  }
  vc_run_data *r = calloc(1, sizeof *r);
  if (!r) {
    listing_free(&l);
    return vc_fail(err, VC_ERR_NOMEM, "%s: out of memory", path);
  }
  vc_arena_init(&r->arena);
  r->path = vc_arena_strdup(&r->arena, path);
  r->id = 0;
  r->info = cand->info; /* same corpus, backend: no warnings about them */
  r->status = "complete";
  r->ended_ns = cand->ended_ns;
  r->has_device = cand->has_device;
  r->device = cand->device;
  r->fingerprint = cand->fingerprint;
  uint32_t cap = cand->nprogs + l.n;
  r->progs = vc_arena_alloc(&r->arena, (cap ? cap : 1) * sizeof *r->progs);
  for (uint32_t i = 0; i < cand->nprogs; i++) {
    vc_prog_data *p = &r->progs[r->nprogs++];
    p->info = cand->progs[i].info;
    fill_program(&r->arena, p, &cand->progs[i], &l, p->info.name);
  }
  for (uint32_t i = 0; i < l.n; i++) {
    if (l.items[i].used) continue;
    vc_prog_data *p = &r->progs[r->nprogs++];
    memset(&p->info, 0, sizeof p->info);
    p->info.name = vc_arena_strdup(&r->arena, l.items[i].program);
    p->info.path = p->info.source_digest = p->info.tags = "";
    fill_program(&r->arena, p, NULL, &l, p->info.name);
  }
  qsort(r->progs, r->nprogs, sizeof *r->progs, cmp_prog);
  listing_free(&l);
  *out = r;
  return 0;
}

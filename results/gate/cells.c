#include "results/gate/cells.h"

#include <stdlib.h>
#include <string.h>

#include "harness/model/outcome.h"

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

uint64_t vc_median_u64(uint64_t *v, uint32_t n) {
  if (n == 0) return 0;
  qsort(v, n, sizeof *v, cmp_u64);
  if (n % 2) return v[n / 2];
  return v[n / 2 - 1] / 2 + v[n / 2] / 2 + (v[n / 2 - 1] % 2 + v[n / 2] % 2) / 2;
}

static void aggregate_status(vc_cell *c) {
  const vc_result *pass = NULL, *unsupported = NULL, *fail = NULL;
  for (uint32_t i = 0; i < c->n; i++) {
    const vc_result *x = &c->results[i];
    if (vc_status_is_failure(x->status)) {
      c->nfailing++;
      if (!fail) fail = x;
    } else if ((x->status == VC_ST_PASS || x->status == VC_ST_FLAKE) && !pass) {
      /* a flake passed in the end: the cell passes, and says it was a flake */
      pass = x;
    } else if (x->status == VC_ST_UNSUPPORTED && !unsupported) {
      unsupported = x;
    }
  }
  const vc_result *why = fail ? fail : pass ? pass : unsupported ? unsupported : &c->results[0];
  c->status = fail || pass || unsupported ? why->status : VC_ST_SKIP;
  c->reason = why->reason;
}

static int fill_times(vc_cell *c, vc_error *err) {
  uint64_t *v = malloc(2 * c->n * sizeof *v);
  if (!v) return vc_fail(err, VC_ERR_NOMEM, "summarising results: out of memory");
  for (uint32_t i = 0; i < c->n; i++) {
    v[i] = c->results[i].wall_ns;
    v[c->n + i] = c->results[i].device_ns;
  }
  c->wall_median = vc_median_u64(v, c->n); /* sorts the wall half */
  c->wall_min = v[0];
  c->wall_max = v[c->n - 1];
  c->device_median = vc_median_u64(v + c->n, c->n);
  free(v);
  c->bytes_up = c->results[0].bytes_up;
  c->bytes_down = c->results[0].bytes_down;
  c->launches = c->results[0].launches;
  /* a program compiles its kernels once, for every repeat: the first
     repeat's count is the cell's */
  c->kernels = strcmp(c->mode, "native") == 0 ? 1 : c->prog->info.segments;
  c->cache_hits = c->results[0].cache_hits;
  return 0;
}

vc_cache_kind vc_cell_cache(const vc_cell *c) {
  if (!c->cache_hits) return VC_CACHE_COLD;
  return c->cache_hits >= c->kernels ? VC_CACHE_WARM : VC_CACHE_PARTLY;
}

vc_cache_state vc_cells_cache(const vc_cells *c) {
  vc_cache_state s = {VC_CACHE_COLD, 0, 0};
  for (uint32_t i = 0; i < c->n; i++) {
    const vc_cell *x = &c->items[i];
    if (x->status != VC_ST_PASS && x->status != VC_ST_FLAKE) continue;
    s.hits += x->cache_hits < x->kernels ? x->cache_hits : x->kernels;
    s.kernels += x->kernels;
  }
  s.kind = !s.hits ? VC_CACHE_COLD : s.hits == s.kernels ? VC_CACHE_WARM : VC_CACHE_PARTLY;
  return s;
}

const char *vc_cache_kind_name(vc_cache_kind k) {
  return k == VC_CACHE_WARM ? "warm" : k == VC_CACHE_PARTLY ? "partly warm" : "cold";
}

static void note_mode(vc_cells *out, const char *mode) {
  uint32_t i = 0;
  while (i < out->nmodes && vc_mode_cmp(out->modes[i], mode) < 0) i++;
  if (i < out->nmodes && strcmp(out->modes[i], mode) == 0) return;
  memmove(&out->modes[i + 1], &out->modes[i], (out->nmodes - i) * sizeof *out->modes);
  out->modes[i] = mode;
  out->nmodes++;
}

int vc_cells_build(const vc_run_data *r, vc_cells *out, vc_error *err) {
  memset(out, 0, sizeof *out);
  uint32_t total = 0;
  for (uint32_t p = 0; p < r->nprogs; p++) total += r->progs[p].nresults;
  out->items = calloc(total ? total : 1, sizeof *out->items);
  out->modes = calloc(total ? total : 1, sizeof *out->modes);
  if (!out->items || !out->modes) {
    vc_cells_free(out);
    return vc_fail(err, VC_ERR_NOMEM, "summarising results: out of memory");
  }
  for (uint32_t p = 0; p < r->nprogs; p++) {
    const vc_prog_data *pd = &r->progs[p];
    for (uint32_t i = 0; i < pd->nresults;) {
      vc_cell *c = &out->items[out->n++];
      c->prog = pd;
      c->mode = pd->results[i].mode;
      c->results = &pd->results[i];
      while (i < pd->nresults && strcmp(pd->results[i].mode, c->mode) == 0) i++, c->n++;
      aggregate_status(c);
      note_mode(out, c->mode);
      int rc = fill_times(c, err);
      if (rc) {
        vc_cells_free(out);
        return rc;
      }
    }
  }
  return 0;
}

void vc_cells_free(vc_cells *c) {
  free(c->items);
  free(c->modes);
  memset(c, 0, sizeof *c);
}

const vc_cell *vc_cells_find(const vc_cells *c, const char *program, const char *mode) {
  uint32_t lo = 0, hi = c->n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    int d = strcmp(c->items[mid].prog->info.name, program);
    if (d == 0) d = vc_mode_cmp(c->items[mid].mode, mode);
    if (d == 0) return &c->items[mid];
    if (d < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

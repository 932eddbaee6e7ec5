#include "harness/fuzz/differential.h"

#include <stdlib.h>
#include <string.h>

/* Repeat 0 of p in mode, or NULL. */
static const vc_result *result_of(const vc_prog_data *p, const char *mode) {
  for (uint32_t k = 0; k < p->nresults; k++)
    if (p->results[k].repeat == 0 && strcmp(p->results[k].mode, mode) == 0) return &p->results[k];
  return NULL;
}

static int differ(const vc_result *a, const vc_result *b) {
  return a && b && a->status == VC_ST_PASS && b->status == VC_ST_PASS && a->output_digest[0] &&
         b->output_digest[0] && strcmp(a->output_digest, b->output_digest) != 0;
}

static int by_name(const void *name, const void *p) {
  return strcmp(name, ((const vc_prog_data *)p)->info.name);
}

static const vc_prog_data *original_of(const vc_run_data *rd, const vc_prog_data *p) {
  size_t n = strlen(p->info.name);
  if (n < 3 || strcmp(p->info.name + n - 2, "_t") != 0) return NULL;
  char *name = malloc(n - 1);
  if (!name) abort();
  memcpy(name, p->info.name, n - 2);
  name[n - 2] = '\0';
  /* rd's programs are sorted by name */
  const vc_prog_data *o = bsearch(name, rd->progs, rd->nprogs, sizeof *rd->progs, by_name);
  free(name);
  return o;
}

uint32_t vc_fz_differentials(const vc_run_data *rd, void (*found)(void *ctx, const vc_fz_diff *d),
                             void *ctx) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < rd->nprogs; i++) {
    const vc_prog_data *p = &rd->progs[i];
    const vc_result *native = result_of(p, vc_mode_name(VC_MODE_NATIVE));
    for (int m = 0; m < VC_MODE_COUNT; m++) {
      if (m == VC_MODE_NATIVE) continue;
      const vc_result *split = result_of(p, vc_mode_name((vc_mode)m));
      if (!differ(native, split)) continue;
      vc_fz_diff d = {VC_FZ_DIFF_MODES, p, p, native, split};
      found(ctx, &d);
      n++;
    }
    const vc_prog_data *o = original_of(rd, p);
    for (int m = 0; o && m < VC_MODE_COUNT; m++) {
      const char *mode = vc_mode_name((vc_mode)m);
      const vc_result *ro = result_of(o, mode), *rt = result_of(p, mode);
      if (!differ(ro, rt)) continue;
      vc_fz_diff d = {VC_FZ_DIFF_TWIN, o, p, ro, rt};
      found(ctx, &d);
      n++;
    }
  }
  return n;
}

/* What a package derives from its runs (content.h): the corpus manifest and
 * the kernel cache's share. Verify derives the same from the database. */
#include <stdlib.h>
#include <string.h>

#include "results/package/content.h"

void vc_pkg_cache_counts(const vc_run_data *r, uint32_t *results, uint32_t *warm) {
  *results = *warm = 0;
  for (uint32_t i = 0; i < r->nprogs; i++)
    for (uint32_t k = 0; k < r->progs[i].nresults; k++) {
      (*results)++;
      *warm += r->progs[i].results[k].cache_hits > 0;
    }
}

static const char *path_of(vc_run_data *const *runs, uint32_t nruns, const char *name) {
  for (uint32_t i = 0; i < nruns; i++)
    for (uint32_t k = 0; k < runs[i]->nprogs; k++)
      if (strcmp(runs[i]->progs[k].info.name, name) == 0) return runs[i]->progs[k].info.path;
  return "";
}

static int by_name(const void *a, const void *b) {
  return strcmp(((const vc_pkg_prog *)a)->name, ((const vc_pkg_prog *)b)->name);
}

void vc_pkg_corpus(vc_run_data *const *runs, uint32_t nruns, vc_arena *arena, vc_pkg_prog **out,
                   uint32_t *n) {
  uint32_t cap = 0, used = 0;
  for (uint32_t i = 0; i < nruns; i++) cap += runs[i]->info.selection_programs + runs[i]->nprogs;
  vc_pkg_prog *list = vc_arena_alloc(arena, (cap ? cap : 1) * sizeof *list);
  for (uint32_t i = 0; i < nruns; i++) {
    const char *p = runs[i]->info.selection_list ? runs[i]->info.selection_list : "";
    while (*p) {
      const char *nl = strchr(p, '\n');
      size_t len = nl ? (size_t)(nl - p) : strlen(p);
      const char *sp = memchr(p, ' ', len);
      if (sp && used < cap) {
        char *name = vc_arena_strndup(arena, sp + 1, len - (size_t)(sp + 1 - p));
        uint32_t k = 0;
        while (k < used && strcmp(list[k].name, name) != 0) k++;
        if (k == used) {
          list[used].name = name;
          list[used].sha256 = vc_arena_strndup(arena, p, (size_t)(sp - p));
          list[used].path = path_of(runs, nruns, name);
          used++;
        }
      }
      p += len + (nl != NULL);
    }
  }
  qsort(list, used, sizeof *list, by_name);
  *out = list;
  *n = used;
}

/* rename: every let, var and loop variable and every shared array gets a
 * fresh name. Buffers keep theirs: their names identify the outputs. */
#include <stdio.h>
#include <string.h>

#include "harness/base/arena.h"
#include "harness/gen/transform_internal.h"

static bool taken(const vc_program *p, const char *s) {
  for (uint32_t i = 0; i < p->nbuffers; i++)
    if (strcmp(p->buffers[i].name, s) == 0) return true;
  return false;
}

uint32_t vc_xf_rename(vc_program *p, vc_rng *r) {
  static const char *const stems[] = {"q", "tmp", "x", "val", "zz", "w"};
  const char *stem = stems[vc_rng_below(r, 6)];
  uint32_t salt = vc_rng_below(r, 0x10000);
  uint32_t changes = 0;
  char name[48];
  /* One pass for symbols, one for shared arrays; the counter keeps them
     apart, and a clash with a buffer takes the next number. */
  uint32_t k = 0;
  for (uint32_t i = 0; i < p->nsyms; i++) {
    do snprintf(name, sizeof name, "%s%x_%u", stem, salt, k++);
    while (taken(p, name));
    p->syms[i].name = vc_arena_strdup(&p->arena, name);
    changes++;
  }
  for (uint32_t i = 0; i < p->nshared; i++) {
    do snprintf(name, sizeof name, "%s%x_%u", stem, salt, k++);
    while (taken(p, name));
    p->shared[i].name = vc_arena_strdup(&p->arena, name);
    changes++;
  }
  return changes;
}

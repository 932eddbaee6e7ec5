#include "harness/base/mutant.h"

#include <stdlib.h>
#include <string.h>

typedef struct row {
  const char *name, *kind, *where, *what, *killers, *why;
} row;

static const row rows[VC_MUT_COUNT] = {
#define VC_MUT_ROW(id, name, kind, where, what, killers, why) \
  {name, #kind, where, what, killers, why},
    VC_MUTANT_TABLE(VC_MUT_ROW)
#undef VC_MUT_ROW
};

static const char *const env_of[] = {"VYRE_CONFORM_MUTANT", "VYRE_CONFORM_FAULT"};

/* -1: no such name; else its id. */
static int lookup(const char *name) {
  for (int i = 0; i < VC_MUT_COUNT; i++)
    if (strcmp(rows[i].name, name) == 0) return i;
  return -1;
}

/* The message for a bad environment, or NULL. */
static const char *env_problem(char *buf, size_t n) {
  for (int e = 0; e < 2; e++) {
    const char *v = getenv(env_of[e]);
    if (!v || !*v) continue;
    int id = lookup(v);
    if (!vc_mutants_built())
      snprintf(buf, n, "%s=%s: this build has no planted faults (configure with -DVC_MUTANTS=ON)",
               env_of[e], v);
    else if (id < 0)
      snprintf(buf, n, "%s=%s: no such fault; `vyre-conform mutants` lists them", env_of[e], v);
    else if (strcmp(rows[id].kind, e ? "FAULT" : "MUTANT") != 0)
      snprintf(buf, n, "%s=%s: '%s' is a %s; set %s instead", env_of[e], v, v,
               e ? "mutant" : "driver fault", env_of[!e]);
    else
      continue;
    return buf;
  }
  return NULL;
}

bool vc_mutants_built(void) {
#ifdef VC_MUTANTS
  return true;
#else
  return false;
#endif
}

/* The switched-on ids, read once (a race only computes the same twice). */
static int active[2] = {-2, -2};

bool vc_mutant_on(vc_mutant_id id) {
  if (active[0] == -2) {
    char msg[512];
    if (env_problem(msg, sizeof msg)) {
      fprintf(stderr, "vyre-conform: %s\n", msg);
      exit(2);
    }
    for (int e = 0; e < 2; e++) {
      const char *v = getenv(env_of[e]);
      active[e] = v && *v ? lookup(v) : -1;
    }
  }
  return (int)id == active[0] || (int)id == active[1];
}

int vc_mutants_check_env(FILE *err_out) {
  char msg[512];
  if (!env_problem(msg, sizeof msg)) return 0;
  fprintf(err_out, "vyre-conform: %s\n", msg);
  return 2;
}

void vc_mutants_list(FILE *out) {
  for (int i = 0; i < VC_MUT_COUNT; i++)
    fprintf(out, "%-26s %-6s %-12s %s\n", rows[i].name, rows[i].kind, rows[i].where, rows[i].what);
}

void vc_mutants_list_killers(FILE *out) {
  for (int i = 0; i < VC_MUT_COUNT; i++) fprintf(out, "%s\t%s\n", rows[i].name, rows[i].killers);
}

const char *vc_mutant_killers(vc_mutant_id id) {
  return id >= 0 && id < VC_MUT_COUNT ? rows[id].killers : "";
}

const char *vc_mutant_why_one_theme(vc_mutant_id id) {
  return id >= 0 && id < VC_MUT_COUNT ? rows[id].why : "";
}

const char *vc_mutant_name(vc_mutant_id id) {
  return id >= 0 && id < VC_MUT_COUNT ? rows[id].name : "?";
}

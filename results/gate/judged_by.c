#include "results/gate/judged_by.h"

#include <stdio.h>
#include <string.h>

#include "harness/model/digest.h"

bool vc_run_option(const vc_run_data *r, const char *key, char *out, size_t n) {
  const char *p = r->info.options ? r->info.options : "";
  size_t klen = strlen(key);
  while (*p) {
    while (*p == ' ') p++;
    const char *eq = strchr(p, '=');
    if (!eq) break;
    bool match = (size_t)(eq - p) == klen && strncmp(p, key, klen) == 0;
    const char *v = eq + 1;
    size_t used = 0;
    if (*v == '"') {
      for (v++; *v && *v != '"'; v++) {
        if (*v == '\\' && v[1]) v++;
        if (match && used + 1 < n) out[used++] = *v;
      }
      if (*v == '"') v++;
    } else {
      for (; *v && *v != ' '; v++)
        if (match && used + 1 < n) out[used++] = *v;
    }
    if (match) {
      if (n) out[used] = '\0';
      return true;
    }
    p = v;
  }
  if (n) out[0] = '\0';
  return false;
}

int vc_judged_by_load(const vc_run_data *r, const char *given, const char *who, vc_judged_by *j,
                      vc_error *err) {
  memset(j, 0, sizeof *j);
  j->given = given != NULL;
  bool recorded = false;
  if (given)
    snprintf(j->path, sizeof j->path, "%s", given);
  else
    recorded = vc_run_option(r, "expectations", j->path, sizeof j->path);
  if (!strcmp(j->path, "none")) j->path[0] = '\0';
  if (!j->path[0]) {
    if (given)
      snprintf(j->text, sizeof j->text, "none (%s --expectations none)", who);
    else if (recorded)
      snprintf(j->text, sizeof j->text, "none, as the run recorded it: every failure is new");
    else
      snprintf(j->text, sizeof j->text,
               "none: the run recorded no expectations file; every failure is new");
    return 0;
  }
  vc_error e = {0};
  if (vc_expectations_load(j->path, &j->exps, &e)) {
    if (given) {
      *err = e;
      return e.code ? e.code : VC_ERR_IO;
    }
    snprintf(j->text, sizeof j->text,
             "%.512s, recorded by the run, cannot be read here (%.400s): every failure is judged new",
             j->path, e.msg);
    j->path[0] = '\0';
    return 0;
  }
  /* The file at the recorded path is not what the run judged by once its
     bytes changed: judging by it would excuse by guess. */
  const char *then = r->info.expectations_sha256 ? r->info.expectations_sha256 : "";
  char now[65] = "";
  if (!given && strlen(then) == 64 && (vc_digest_file(j->path, now) != 0 || strcmp(now, then))) {
    vc_expectations_free(&j->exps);
    snprintf(j->text, sizeof j->text,
             "%.512s, recorded by the run, has changed since (sha256 %.12s then, %.12s now): "
             "every failure is judged new; --expectations FILE judges by a file as it is",
             j->path, then, now[0] ? now : "unreadable");
    j->path[0] = '\0';
    return 0;
  }
  j->loaded = true;
  snprintf(j->text, sizeof j->text, "%.1000s (%u entr%s, %s)", j->path, j->exps.n,
           j->exps.n == 1 ? "y" : "ies", given ? "given" : "as the run recorded it");
  return 0;
}

void vc_judged_by_free(vc_judged_by *j) {
  if (j->loaded) vc_expectations_free(&j->exps);
  j->loaded = false;
}

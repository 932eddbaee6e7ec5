#include "results/gate/provenance.h"

#include <stdio.h>
#include <string.h>

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

static void append(char *out, size_t n, const char *text) {
  size_t used = strlen(out);
  if (used + 1 < n) snprintf(out + used, n - used, "%s%s", used ? ", " : "", text);
}

void vc_run_planted(const vc_run_data *r, char *out, size_t n) {
  out[0] = '\0';
  const char *cl = r->info.command_line ? r->info.command_line : "";
  for (const char *p = cl; *p;) {
    while (*p == ' ') p++;
    const char *end = p;
    while (*end && *end != ' ') end++;
    if (!strncmp(p, "--inject-", 9) || !strncmp(p, "--fault", 7)) {
      char tok[256];
      const char *arg = end;
      /* the option's argument, when it is not part of the word */
      if (!memchr(p, '=', (size_t)(end - p)) && *arg == ' ') {
        arg++;
        while (*arg && *arg != ' ') arg++;
      }
      snprintf(tok, sizeof tok, "%.*s", (int)(arg - p), p);
      append(out, n, tok);
      end = arg;
    }
    p = end;
  }
  /* the recorded items (runopts.c); an injection the command line named
     already is not named twice */
  static const char *const keys[] = {"inject-flip", "inject-crash", "inject-hang",
                                     "mutant-build", "mutant",      "fault"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    char v[256], kv[300], flag[32];
    if (!vc_run_option(r, keys[i], v, sizeof v)) continue;
    snprintf(flag, sizeof flag, "--%s", keys[i]);
    if (i < 3 && strstr(cl, flag)) continue;
    snprintf(kv, sizeof kv, "%s=%s", keys[i], v);
    append(out, n, kv);
  }
}

#include "results/gate/provenance.h"

#include <stdio.h>
#include <string.h>

#include "results/gate/judged_by.h"

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

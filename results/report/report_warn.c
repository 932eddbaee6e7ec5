/* The warning that compare and report give when the file holds newer runs
 * than the one they chose that did not complete: a nightly that crashed
 * after the last complete run is easy to miss otherwise. */
#include <stdio.h>

#include "results/report/report.h"

void vc_report_unfinished_text(const vc_run_data *r, vc_strbuf *out) {
  if (!r->nunfinished_newer) return;
  vc_sb_printf(out, "%s holds %s newer than run %lld that did not complete: ", r->path,
               r->nunfinished_newer == 1 ? "a run" : "runs", (long long)r->id);
  for (uint32_t i = 0; i < r->nunfinished_newer; i++)
    vc_sb_printf(out, "%srun %lld (%s)", i ? ", " : "", (long long)r->unfinished_newer[i].id,
                 r->unfinished_newer[i].status);
}

void vc_report_unfinished_stderr(const char *command, const vc_run_data *r) {
  if (!r->nunfinished_newer) return;
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_report_unfinished_text(r, &sb);
  fprintf(stderr, "vyre-conform %s: warning: %s\n", command, vc_sb_str(&sb));
  vc_sb_free(&sb);
}

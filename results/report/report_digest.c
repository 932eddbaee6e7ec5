#include <stdio.h>
#include <string.h>

#include "harness/base/sha256.h"
#include "results/report/report.h"

static void put(vc_sha256 *s, const char *text) { vc_sha256_update(s, text, strlen(text)); }

/* Rows come from the loader in (program, mode, repeat) order, so the text
   hashed does not depend on the order rows were written in. */
void vc_report_digest(const vc_run_data *r, char hex[65]) {
  vc_sha256 s;
  vc_sha256_init(&s);
  put(&s, "vyre-conform results digest 1\ncorpus ");
  put(&s, r->info.corpus_digest);
  put(&s, "\n");
  for (uint32_t p = 0; p < r->nprogs; p++) {
    const vc_prog_data *pd = &r->progs[p];
    for (uint32_t i = 0; i < pd->nresults; i++) {
      const vc_result *x = &pd->results[i];
      char repeat[16];
      snprintf(repeat, sizeof repeat, "\t%u\t", x->repeat);
      const char *fields[] = {pd->info.name,    "\t",   pd->info.source_digest,    "\t",
                              x->mode,          repeat, vc_status_name(x->status), "\t",
                              x->output_digest, "\n"};
      for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) put(&s, fields[f]);
    }
  }
  uint8_t digest[32];
  vc_sha256_final(&s, digest);
  vc_sha256_hex(digest, hex);
}

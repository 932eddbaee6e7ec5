#include "harness/lang/diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/strbuf.h"

void vc_diags_init(vc_diags *d) { memset(d, 0, sizeof *d); }

void vc_diags_free(vc_diags *d) {
  for (uint32_t i = 0; i < d->count; i++) {
    free(d->items[i].file);
    free(d->items[i].msg);
  }
  free(d->items);
  free(d->expect_reject);
  vc_diags_init(d);
}

void vc_diags_add(vc_diags *d, const char *file, vc_loc loc, const char *fmt, ...) {
  if (d->count >= VC_DIAGS_MAX) {
    d->dropped++;
    return;
  }
  if (d->count == d->cap) {
    d->cap = d->cap ? d->cap * 2 : 8;
    d->items = realloc(d->items, d->cap * sizeof *d->items);
    if (!d->items) abort();
  }
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  vc_diag *x = &d->items[d->count++];
  x->file = vc_strdup(file ? file : "<input>");
  x->loc = loc;
  x->msg = vc_strdup(buf);
}

uint32_t vc_diags_reported(const vc_diags *d) { return d->count + d->dropped; }

void vc_diags_print(const vc_diags *d, FILE *out) {
  for (uint32_t i = 0; i < d->count; i++)
    fprintf(out, "%s:%u:%u: %s\n", d->items[i].file, d->items[i].loc.line, d->items[i].loc.col,
            d->items[i].msg);
  if (d->dropped)
    fprintf(out, "%s: too many errors (%u more not shown)\n", d->items[d->count - 1].file,
            d->dropped);
}

int vc_diags_contain(const vc_diags *d, const char *text) {
  for (uint32_t i = 0; i < d->count; i++)
    if (strstr(d->items[i].msg, text)) return 1;
  return 0;
}

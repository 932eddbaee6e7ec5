/* libFuzzer target (-DVC_FUZZ=ON, clang): any text either gets diagnostics
 * or gives a program that prints, reads back equal, and prints the same. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness/lang/parse.h"
#include "harness/lang/print.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *print(const vc_program *p) {
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_print_program(p, &sb);
  return vc_sb_take(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse("fuzz.vyre", (const char *)data, size, &d);
  if (p) {
    char *text = print(p);
    vc_program *q = vc_parse("printed.vyre", text, strlen(text), &d);
    if (!q || !vc_program_equal(p, q)) abort();
    char *again = print(q);
    if (strcmp(text, again) != 0) abort();
    free(again);
    free(text);
    vc_program_free(q);
  }
  vc_program_free(p);
  vc_diags_free(&d);
  return 0;
}

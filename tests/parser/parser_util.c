#include "parser_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/lang/parse.h"
#include "harness/lang/print.h"

vc_program *pt_parse(const char *text, vc_diags *d) {
  return vc_parse("t.vyre", text, strlen(text), d);
}

vc_program *pt_parse_ok(const char *text) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = pt_parse(text, &d);
  if (!p || d.count) {
    vc_diags_print(&d, stderr);
    fprintf(stderr, "in:\n%s\n", text);
  }
  assert_int_equal(d.count, 0);
  assert_non_null(p);
  vc_diags_free(&d);
  return p;
}

void pt_assert_diag(const vc_diags *d, uint32_t line, uint32_t col, const char *fragment) {
  for (uint32_t i = 0; i < d->count; i++) {
    const vc_diag *x = &d->items[i];
    if (x->loc.line == line && x->loc.col == col && strcmp(x->file, "t.vyre") == 0 &&
        strstr(x->msg, fragment))
      return;
  }
  fprintf(stderr, "wanted t.vyre:%u:%u: ...%s...; got:\n", line, col, fragment);
  vc_diags_print(d, stderr);
  fail();
}

char *pt_print(const vc_program *p) {
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_print_program(p, &sb);
  return vc_sb_take(&sb);
}

void pt_assert_roundtrip(const vc_program *p) {
  char *text = pt_print(p);
  vc_diags d;
  vc_diags_init(&d);
  vc_program *q = vc_parse("printed.vyre", text, strlen(text), &d);
  if (!q || !vc_program_equal(p, q)) {
    vc_diags_print(&d, stderr);
    fprintf(stderr, "printed text that does not read back equal:\n%s\n", text);
  }
  assert_non_null(q);
  assert_true(vc_program_equal(p, q));
  char *again = pt_print(q);
  assert_string_equal(text, again);
  free(again);
  free(text);
  vc_program_free(q);
  vc_diags_free(&d);
}

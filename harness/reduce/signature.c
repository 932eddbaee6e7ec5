#include "harness/reduce/signature.h"

#include <stdio.h>
#include <string.h>

#include "harness/base/sha256.h"
#include "harness/base/strbuf.h"
#include "harness/lang/read.h"

/* The length of word w[0..len) in its singular form: the noun after a count
   agrees with it ("1 element", "12 elements"; "1 pass", "2 passes"). */
static size_t singular_len(const char *w, size_t len) {
  if (len > 3 && w[len - 1] == 's' && w[len - 2] == 'e') {
    char c = w[len - 3];
    if (c == 's' || c == 'x' || c == 'z' || (c == 'h' && (w[len - 4] == 's' || w[len - 4] == 'c')))
      return len - 2;
  }
  if (len > 1 && w[len - 1] == 's' && w[len - 2] != 's') return len - 1;
  return len;
}

/* Numbers change as a program shrinks (element counts, indices, values);
   the words around them say what failed. The noun after a number is kept
   singular, so that a count falling to 1 keeps the signature. A reason is
   cut where it starts to quote values ("; first [...]: expected ..."). */
static void blot(const char *in, char *out, size_t n) {
  size_t j = 0;
  const char *cut = strstr(in, "; first");
  for (const char *s = in; *s && (!cut || s < cut) && j + 1 < n; s++) {
    if (*s >= '0' && *s <= '9') {
      while (s[1] >= '0' && s[1] <= '9') s++;
      out[j++] = '#';
      if (s[1] != ' ') continue;
      size_t len = 0;
      while ((s[2 + len] >= 'a' && s[2 + len] <= 'z') && (!cut || s + 2 + len < cut)) len++;
      size_t keep = singular_len(s + 2, len);
      for (size_t k = 0; k < keep + 1 && j + 1 < n; k++) out[j++] = s[1 + k];
      s += 1 + len;
    } else {
      out[j++] = *s;
    }
  }
  out[j] = '\0';
}

void vc_reduce_sig_of_result(const vc_result *r, vc_reduce_sig *s) {
  memset(s, 0, sizeof *s);
  snprintf(s->mode, sizeof s->mode, "%s", r->mode ? r->mode : "?");
  s->status = r->status;
  s->cls = -1;
  if (r->status == VC_ST_DIVERGE && r->ndivs) {
    snprintf(s->buffer, sizeof s->buffer, "%s", r->divs[0].buffer);
    s->cls = (int)r->divs[0].cls;
  } else if (r->status == VC_ST_ERROR || r->status == VC_ST_UNTRUSTWORTHY ||
             r->status == VC_ST_INVALID) {
    blot(r->reason, s->detail, sizeof s->detail);
  }
}

void vc_reduce_sig_of_check(const vc_check_result *r, vc_reduce_sig *s) {
  memset(s, 0, sizeof *s);
  snprintf(s->mode, sizeof s->mode, "check");
  s->cls = -1;
  s->status = r->verdict == VC_CHECK_FAILED && strstr(r->why, "split-on-oracle (")
                  ? VC_ST_DIVERGE
                  : VC_ST_ERROR;
  blot(r->why, s->detail, sizeof s->detail);
}

void vc_reduce_sig_of_death(bool timeout, int sig, vc_reduce_sig *s) {
  memset(s, 0, sizeof *s);
  snprintf(s->mode, sizeof s->mode, "check");
  s->cls = -1;
  s->status = timeout ? VC_ST_TIMEOUT : VC_ST_CRASH;
  if (!timeout) snprintf(s->detail, sizeof s->detail, "the oracle died on signal %d", sig);
}

bool vc_reduce_sig_equal(const vc_reduce_sig *a, const vc_reduce_sig *b) {
  return strcmp(a->mode, b->mode) == 0 && a->status == b->status &&
         strcmp(a->buffer, b->buffer) == 0 && a->cls == b->cls &&
         strcmp(a->detail, b->detail) == 0;
}

void vc_reduce_sig_text(const vc_reduce_sig *s, char *buf, size_t n) {
  int used = snprintf(buf, n, "%s %s", s->mode, vc_status_name(s->status));
  if (used < 0 || (size_t)used >= n) return;
  if (s->buffer[0])
    used += snprintf(buf + used, n - (size_t)used, " buffer=%s class=%s", s->buffer,
                     s->cls >= 0 ? vc_divclass_name((vc_divclass)s->cls) : "?");
  if (used >= 0 && (size_t)used < n && s->detail[0])
    snprintf(buf + used, n - (size_t)used, ": %s", s->detail);
}

static void shape_of(const vc_sx *x, vc_strbuf *out) {
  if (x->kind != VC_SX_LIST) {
    vc_sb_putc(out, '_');
    return;
  }
  const char *h = vc_sx_head(x);
  if (strcmp(h, "doc") == 0) return;
  vc_sb_putc(out, '(');
  vc_sb_puts(out, h);
  for (uint32_t i = *h ? 1 : 0; i < x->n; i++) {
    if (strcmp(h, "program") == 0 && i == 1) continue; /* its name */
    vc_sb_putc(out, ' ');
    shape_of(x->items[i], out);
  }
  vc_sb_putc(out, ')');
}

void vc_reduce_shape(const char *text, size_t len, char out[13]) {
  out[0] = '\0';
  vc_arena a;
  vc_arena_init(&a);
  vc_diags d;
  vc_diags_init(&d);
  vc_sx_file f;
  vc_read(&a, "shape", text, len, &d, &f);
  if (f.well_formed && f.n == 1) {
    vc_strbuf sb;
    vc_sb_init(&sb);
    shape_of(f.forms[0], &sb);
    vc_sha256 h;
    uint8_t dg[32];
    char hex[65];
    vc_sha256_init(&h);
    vc_sha256_update(&h, sb.data, sb.len);
    vc_sha256_final(&h, dg);
    vc_sha256_hex(dg, hex);
    memcpy(out, hex, 12);
    out[12] = '\0';
    vc_sb_free(&sb);
  }
  vc_diags_free(&d);
  vc_arena_free(&a);
}

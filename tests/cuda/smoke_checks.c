/* The plugin's promises on a real device, and figures to record. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/clock.h"
#include "harness/model/inputs.h"
#include "harness/split/split.h"
#include "tests/cuda/smoke.h"

static unsigned char *pattern(uint64_t bytes, uint64_t seed) {
  unsigned char *p = malloc(bytes ? bytes : 1);
  if (!p) abort();
  for (uint64_t i = 0; i < bytes; i++) {
    if (i % 8 == 0) seed = vc_splitmix64_next(&seed);
    p[i] = (unsigned char)(seed >> (8 * (i % 8)));
  }
  return p;
}

/* Upload a pattern, read it back, compare; then zero and read again. The
   sizes straddle the halves of the default 32 MiB staging buffer. */
static void round_trip(smoke *s, uint64_t bytes) {
  char what[64];
  snprintf(what, sizeof what, "staging round trip of %" PRIu64 " bytes", bytes);
  vc_error e;
  vc_buf *b = NULL;
  unsigned char *in = pattern(bytes, bytes), *out = malloc(bytes);
  if (!out) abort();
  int rc = s->be->alloc(s->dev, bytes, &b, &e);
  if (rc == 0) rc = s->be->upload(s->dev, b, in, bytes, &e);
  if (rc == 0) rc = s->be->download(s->dev, b, out, bytes, &e);
  bool same = rc == 0 && memcmp(in, out, bytes) == 0;
  if (rc == 0) rc = s->be->zero(s->dev, b, &e);
  if (rc == 0) rc = s->be->download(s->dev, b, out, bytes, &e);
  bool zero = rc == 0;
  for (uint64_t i = 0; zero && i < bytes; i++) zero = out[i] == 0;
  if (rc != 0) smoke_report(s, false, what, "%s", e.msg);
  else
    smoke_report(s, same && zero, what, "%s",
                 same ? (zero ? "" : "zero left bytes") : "bytes differ");
  s->be->free_buffer(s->dev, b);
  free(in);
  free(out);
}

/* An upload shorter than the buffer changes only its prefix; one longer
   is refused. */
static void partial_and_oversized(smoke *s) {
  vc_error e;
  vc_buf *b = NULL;
  uint32_t full[64], part[16], back[64];
  for (int i = 0; i < 64; i++) full[i] = 0xa5a50000u + (uint32_t)i;
  for (int i = 0; i < 16; i++) part[i] = (uint32_t)i;
  int rc = s->be->alloc(s->dev, sizeof full, &b, &e);
  if (rc == 0) rc = s->be->upload(s->dev, b, full, sizeof full, &e);
  if (rc == 0) rc = s->be->upload(s->dev, b, part, sizeof part, &e);
  if (rc == 0) rc = s->be->download(s->dev, b, back, sizeof back, &e);
  bool ok = rc == 0 && memcmp(back, part, sizeof part) == 0 &&
            memcmp(back + 16, full + 16, sizeof full - sizeof part) == 0;
  smoke_report(s, ok, "partial upload keeps the rest", "%s", rc ? e.msg : "");
  rc = s->be->upload(s->dev, b, full, sizeof full + 4, &e);
  smoke_report(s, rc == VC_ERR_USAGE, "oversized upload refused", "%s", e.msg);
  s->be->free_buffer(s->dev, b);
}

/* CUDA's block z limit is 64: a valid program with workgroup z = 128 must
   be refused before the launch, naming both figures. */
static void limit_refused(smoke *s) {
  vc_program *p = smoke_parse_text("limit", "(program deep (workgroup 1 1 128)\n"
                                            "  (buffer o u32 128 write)\n"
                                            "  (entry (store o (local_id z) 1u)))");
  if (!p) {
    smoke_report(s, false, "block z limit", "program does not parse");
    return;
  }
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = "limit"};
  vc_kern *kern = NULL;
  vc_buf *b = NULL;
  vc_error e;
  int rc = s->be->compile(s->dev, &k, &kern, NULL, &e);
  if (rc == 0) rc = s->be->alloc(s->dev, 512, &b, &e);
  if (rc == 0) rc = s->be->launch(s->dev, kern, &b, 1, &e);
  bool ok = rc == VC_ERR_LIMIT && strstr(e.msg, "128") && strstr(e.msg, "64");
  smoke_report(s, ok, "block z limit refused before launch", "%s", e.msg);
  if (kern) {
    rc = s->be->launch(s->dev, kern, NULL, 0, &e);
    smoke_report(s, rc == VC_ERR_USAGE, "wrong buffer count refused", "%s", e.msg);
  }
  uint32_t count = 9;
  uint64_t ns;
  rc = s->be->finish(s->dev, &ns, 1, &count, &e);
  smoke_report(s, rc == 0 && count == 0, "finish without launches", "%u times", count);
  s->be->free_buffer(s->dev, b);
  s->be->free_kernel(s->dev, kern);
  vc_program_free(p);
}

/* A native kernel compiles (with the default barrier=inline; cooperative
   launch supported, co-resident blocks) and native_stats waits for a launch.
   vyre-conform --mode native runs native programs against the oracle. */
static void native_compiles(smoke *s) {
  vc_program *p = smoke_parse_text("native", "(program nat (workgroup 64) (grid 4)\n"
                                             "  (buffer o u32 256 read_write)\n"
                                             "  (entry (let i (global_id x)) (store o i i)\n"
                                             "    (barrier grid) (store o i (load o (sub 255u i)))))");
  vc_split *split = NULL;
  vc_error e;
  if (!p || vc_split_program(p, &split, &e) != 0) {
    smoke_report(s, false, "native kernel compiles", "program does not parse or split");
    vc_program_free(p);
    return;
  }
  vc_native_desc nd;
  vc_split_native_desc(split, &nd);
  vc_kernel_desc k = {.kind = VC_KERNEL_NATIVE, .prog = p, .native = &nd, .label = "native"};
  vc_kern *kern = NULL;
  vc_compile_info ci = {0, NULL, false};
  int rc = s->be->compile(s->dev, &k, &kern, &ci, &e);
  smoke_report(s, rc == 0, "native kernel compiles", "%s", rc ? e.msg : "");
  if (rc == 0) {
    printf("figure   native kernel compile: %.1f ms\n", (double)ci.compile_ns / 1e6);
    vc_native_stats st;
    rc = s->be->native_stats(s->dev, kern, &st, &e);
    smoke_report(s, rc == VC_ERR_USAGE, "native_stats before a launch refused", "%s", e.msg);
  }
  free(ci.log);
  s->be->free_kernel(s->dev, kern);
  vc_split_free(split);
  vc_program_free(p);
}

void smoke_checks(smoke *s) {
  const uint64_t half = 16u << 20;
  const uint64_t sizes[] = {4, 4100, half - 4, half, half + 4, 3 * half + 12};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) round_trip(s, sizes[i]);
  partial_and_oversized(s);
  limit_refused(s);
  native_compiles(s);
}

/* ---- figures ---- */

/* n launches of one program back to back: host wall and device time each. */
static void launch_figure(smoke *s, const char *text, const char *what, uint32_t n) {
  vc_program *p = smoke_parse_text(what, text);
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = what};
  vc_kern *kern = NULL;
  vc_buf *b = NULL;
  vc_error e;
  uint64_t *ns = calloc(n, sizeof *ns), sum = 0;
  uint32_t count = 0;
  int rc = p && ns ? s->be->compile(s->dev, &k, &kern, NULL, &e) : VC_ERR_PARSE;
  if (rc == 0) rc = s->be->alloc(s->dev, vc_buffer_bytes(&p->buffers[0]), &b, &e);
  uint64_t t0 = vc_now_ns();
  for (uint32_t i = 0; rc == 0 && i < n; i++) rc = s->be->launch(s->dev, kern, &b, 1, &e);
  if (rc == 0) rc = s->be->finish(s->dev, ns, n, &count, &e);
  uint64_t wall = vc_now_ns() - t0;
  for (uint32_t i = 0; i < count; i++) sum += ns[i];
  if (rc == 0 && count == n)
    printf("figure   %s: %u launches, wall %.2f us each, device %.2f us each (events)\n", what, n,
           (double)wall / n / 1e3, (double)sum / n / 1e3);
  else
    smoke_report(s, false, what, "%s", rc ? e.msg : "finish lost launch times");
  s->be->free_buffer(s->dev, b);
  s->be->free_kernel(s->dev, kern);
  vc_program_free(p);
  free(ns);
}

static void copy_figure(smoke *s, uint64_t bytes, uint32_t reps) {
  vc_error e;
  vc_buf *b = NULL;
  unsigned char *host = pattern(bytes, 1);
  int rc = s->be->alloc(s->dev, bytes, &b, &e);
  uint64_t up = 0, down = 0;
  for (uint32_t i = 0; rc == 0 && i < reps; i++) {
    uint64_t t0 = vc_now_ns();
    rc = s->be->upload(s->dev, b, host, bytes, &e);
    uint64_t t1 = vc_now_ns();
    if (rc == 0) rc = s->be->download(s->dev, b, host, bytes, &e);
    up += t1 - t0;
    down += vc_now_ns() - t1;
  }
  if (rc == 0)
    printf("figure   copies of %" PRIu64 " bytes x %u: upload %.2f us (%.2f GB/s), download %.2f "
           "us (%.2f GB/s)\n",
           bytes, reps, (double)up / reps / 1e3, (double)bytes * reps / (double)up,
           (double)down / reps / 1e3, (double)bytes * reps / (double)down);
  else
    smoke_report(s, false, "copy figure", "%s", e.msg);
  s->be->free_buffer(s->dev, b);
  free(host);
}

void smoke_figures(smoke *s) {
  launch_figure(s,
                "(program tiny (workgroup 32) (buffer o u32 32 write)\n"
                "  (entry (store o (local_id x) 1u)))",
                "tiny kernel", 1000);
  launch_figure(s,
                "(program wide (workgroup 256) (grid 4096) (buffer o u32 1048576 write)\n"
                "  (entry (let i (global_id x)) (store o i (add (load o i) i))))",
                "1M-invocation kernel", 200);
  copy_figure(s, 4096, 1000);
  copy_figure(s, 256u << 20, 4);
  fflush(stdout);
}

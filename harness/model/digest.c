#include "harness/model/digest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/sha256.h"

void vc_output_digest(const vc_program *p, const uint32_t *const *buffers, char hex[65]) {
  vc_sha256 s;
  vc_sha256_init(&s);
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    const vc_buffer *b = &p->buffers[i];
    if (b->access == VC_READ || b->role != VC_ROLE_USER) continue;
    uint64_t bytes = vc_buffer_bytes(b);
    uint8_t len[8];
    for (int k = 0; k < 8; k++) len[k] = (uint8_t)(bytes >> (8 * k));
    vc_sha256_update(&s, b->name, strlen(b->name) + 1);
    vc_sha256_update(&s, len, 8);
    /* Element bytes little-endian, whatever the host order: a little-endian
       host hashes the buffer as it lies, in one call (a call per element
       cost more than the hashing). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    vc_sha256_update(&s, buffers[i], (size_t)bytes);
#else
    uint8_t le[4096];
    size_t words = (size_t)(bytes / 4u);
    for (size_t e = 0; e < words;) {
      size_t k = 0;
      for (; k < sizeof le && e < words; k += 4, e++) {
        uint32_t v = buffers[i][e];
        le[k] = (uint8_t)v, le[k + 1] = (uint8_t)(v >> 8);
        le[k + 2] = (uint8_t)(v >> 16), le[k + 3] = (uint8_t)(v >> 24);
      }
      vc_sha256_update(&s, le, k);
    }
#endif
  }
  uint8_t d[32];
  vc_sha256_final(&s, d);
  vc_sha256_hex(d, hex);
}

int vc_digest_file(const char *path, char hex[65]) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  vc_sha256 s;
  vc_sha256_init(&s);
  unsigned char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) vc_sha256_update(&s, buf, n);
  int bad = ferror(f);
  fclose(f);
  if (bad) return -1;
  uint8_t d[32];
  vc_sha256_final(&s, d);
  vc_sha256_hex(d, hex);
  return 0;
}

void vc_digest_string(const char *str, char hex[65]) {
  vc_sha256 s;
  vc_sha256_init(&s);
  vc_sha256_update(&s, str, strlen(str));
  uint8_t d[32];
  vc_sha256_final(&s, d);
  vc_sha256_hex(d, hex);
}

static int by_name(const void *a, const void *b) {
  return strcmp(((const vc_named_digest *)a)->name, ((const vc_named_digest *)b)->name);
}

void vc_selection_digest(vc_named_digest *items, uint32_t n, char hex[65]) {
  if (n) qsort(items, n, sizeof *items, by_name);
  vc_sha256 s;
  vc_sha256_init(&s);
  for (uint32_t i = 0; i < n; i++) {
    const char *d = items[i].digest ? items[i].digest : "";
    vc_sha256_update(&s, items[i].name, strlen(items[i].name) + 1);
    vc_sha256_update(&s, d, strlen(d));
  }
  uint8_t out[32];
  vc_sha256_final(&s, out);
  vc_sha256_hex(out, hex);
}

const char *vc_build_id(void) {
  static char id[65];
  if (!id[0] && vc_digest_file("/proc/self/exe", id) != 0) snprintf(id, sizeof id, "unknown");
  return id;
}

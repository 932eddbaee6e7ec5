/* SHA-256 (FIPS 180-4) for source, corpus and output digests. */
#ifndef VC_SHA256_H
#define VC_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct vc_sha256 {
  uint32_t h[8];
  uint64_t len;
  uint8_t buf[64];
  uint32_t nbuf;
} vc_sha256;

void vc_sha256_init(vc_sha256 *s);
void vc_sha256_update(vc_sha256 *s, const void *data, size_t n);
void vc_sha256_final(vc_sha256 *s, uint8_t out[32]);
/* "sha-ni" or "portable": the compression this process uses (the x86 SHA
   extensions where the CPU has them; VYRE_CONFORM_SHA256=portable forces the
   other, for tests and benchmarks). */
const char *vc_sha256_impl(void);
/* 64 lowercase hex digits and a NUL. */
void vc_sha256_hex(const uint8_t digest[32], char out[65]);

#endif

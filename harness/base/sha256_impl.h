/* Inside harness/base: what sha256.c and its accelerated compression share. */
#ifndef VC_SHA256_IMPL_H
#define VC_SHA256_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define VC_SHA256_X86 1
#else
#define VC_SHA256_X86 0
#endif

extern const uint32_t vc_sha256_k[64];

#if VC_SHA256_X86
bool vc_sha256_x86_usable(void);
/* Compresses nblocks 64-byte blocks at p into h. */
void vc_sha256_x86_blocks(uint32_t h[8], const uint8_t *p, size_t nblocks);
#endif

#endif

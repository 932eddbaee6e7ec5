/* SHA-256's compression with the x86 SHA extensions (SHA-NI), chosen at run
 * time by sha256.c: output digests hash every output buffer of every mode,
 * 256 MiB a mode for the largest corpus program, where the portable
 * compression runs at about 200 MB/s and this one several times faster.
 * Elsewhere (another CPU or compiler) the portable code alone is built. */
#include "harness/base/sha256_impl.h"

#if VC_SHA256_X86

#include <cpuid.h>
#include <immintrin.h>

bool vc_sha256_x86_usable(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  bool sse41 = c & (1u << 19), ssse3 = c & (1u << 9);
  if (__get_cpuid_max(0, NULL) < 7) return false;
  __cpuid_count(7, 0, a, b, c, d);
  return sse41 && ssse3 && (b & (1u << 29)); /* CPUID.7.0:EBX.SHA */
}

__attribute__((target("sha,sse4.1,ssse3"))) void vc_sha256_x86_blocks(uint32_t h[8],
                                                                       const uint8_t *p,
                                                                       size_t nblocks) {
  /* the big-endian words of a block */
  const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  /* the instructions keep the state as ABEF and CDGH, A in the top lane */
  __m128i t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[0]), 0xB1);
  __m128i s1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[4]), 0x1B);
  __m128i s0 = _mm_alignr_epi8(t, s1, 8);
  s1 = _mm_blend_epi16(s1, t, 0xF0);
  for (; nblocks; nblocks--, p += 64) {
    __m128i save0 = s0, save1 = s1;
    __m128i w[4];
    for (int i = 0; i < 4; i++)
      w[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), swap);
    for (int i = 0; i < 16; i++) {
      /* rounds 4i .. 4i+3 on words 4i .. 4i+3, held in w[i % 4] */
      __m128i m = _mm_add_epi32(w[i & 3], _mm_loadu_si128((const __m128i *)&vc_sha256_k[4 * i]));
      s1 = _mm_sha256rnds2_epu32(s1, s0, m);
      s0 = _mm_sha256rnds2_epu32(s0, s1, _mm_shuffle_epi32(m, 0x0E));
      if (i < 12) { /* words 4i+16 .. 4i+19 replace the four just used */
        __m128i x = _mm_sha256msg1_epu32(w[i & 3], w[(i + 1) & 3]);
        x = _mm_add_epi32(x, _mm_alignr_epi8(w[(i + 3) & 3], w[(i + 2) & 3], 4));
        w[i & 3] = _mm_sha256msg2_epu32(x, w[(i + 3) & 3]);
      }
    }
    s0 = _mm_add_epi32(s0, save0);
    s1 = _mm_add_epi32(s1, save1);
  }
  t = _mm_shuffle_epi32(s0, 0x1B);
  s1 = _mm_shuffle_epi32(s1, 0xB1);
  _mm_storeu_si128((__m128i *)&h[0], _mm_blend_epi16(t, s1, 0xF0));
  _mm_storeu_si128((__m128i *)&h[4], _mm_alignr_epi8(s1, t, 8));
}

#else
typedef int vc_sha256_x86_unused; /* ISO C wants a translation unit to declare something */
#endif

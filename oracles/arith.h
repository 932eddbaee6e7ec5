/* The value rules of docs/semantics.md on 32-bit words (internal to oracles/).
 *
 * Every value is its bits in a uint32_t. Integer operations compute on
 * unsigned types, so that no C undefined or implementation-defined
 * behaviour enters (signed overflow, shifts of negatives, out-of-range
 * conversions). f32 operations use C float arithmetic, which is IEEE
 * binary32 with round to nearest even only when expressions are evaluated in
 * their own type and never contracted: this header refuses other settings
 * and the library is compiled with -ffp-contract=off. */
#ifndef VC_ORACLE_ARITH_H
#define VC_ORACLE_ARITH_H

#include <float.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "harness/base/mutant.h"

_Static_assert(FLT_EVAL_METHOD == 0, "f32 must be evaluated in binary32 (no x87 excess precision)");
_Static_assert(sizeof(float) == 4 && FLT_MANT_DIG == 24, "float must be IEEE binary32");

#define VC_SIGN_BIT 0x80000000u
/* The one NaN that f32 arithmetic gives (docs/semantics.md): hosts differ in
   the NaN of an invalid operation (x86 0xffc00000, aarch64 0x7fc00000) and
   in how they pass on an operand's payload. */
#define VC_CANONICAL_NAN 0x7fc00000u

static inline float vc_as_f32(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static inline uint32_t vc_f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* The i32 value of bits u, without an implementation-defined conversion. */
static inline int32_t vc_as_i32(uint32_t u) {
  return u < VC_SIGN_BIT ? (int32_t)u : (int32_t)(u - VC_SIGN_BIT) - INT32_MAX - 1;
}

static inline bool vc_f32_isnan(uint32_t u) { return (u & 0x7fffffffu) > 0x7f800000u; }

static inline uint32_t vc_divu(uint32_t a, uint32_t b) { return b ? a / b : 0; }
static inline uint32_t vc_remu(uint32_t a, uint32_t b) { return b ? a % b : 0; }

/* Truncating division; by zero gives 0, INT_MIN / -1 gives INT_MIN. */
static inline uint32_t vc_divi(uint32_t a, uint32_t b) {
  if (b == 0) return 0;
  if (a == VC_SIGN_BIT && b == 0xffffffffu) return VC_SIGN_BIT;
  return (uint32_t)(vc_as_i32(a) / vc_as_i32(b));
}

/* The remainder has the dividend's sign; by zero and INT_MIN rem -1 give 0. */
static inline uint32_t vc_remi(uint32_t a, uint32_t b) {
  if (b == 0 || b == 0xffffffffu) return 0;
  int32_t r = vc_as_i32(a) % vc_as_i32(b);
  if (VC_MUTANT(SHARED_REM_MODULO) && r != 0 && (r < 0) != (vc_as_i32(b) < 0)) r += vc_as_i32(b);
  return (uint32_t)r;
}

static inline uint32_t vc_shl(uint32_t a, uint32_t b) { return a << (b & 31u); }
static inline uint32_t vc_shru(uint32_t a, uint32_t b) { return a >> (b & 31u); }

/* Arithmetic shift written on unsigned bits: a negative value is shifted as
   its complement, which is non-negative, and complemented back. */
static inline uint32_t vc_shri(uint32_t a, uint32_t b) {
  uint32_t s = b & 31u;
  return (a & VC_SIGN_BIT) ? ~(~a >> s) : a >> s;
}

static inline bool vc_lti(uint32_t a, uint32_t b) { return vc_as_i32(a) < vc_as_i32(b); }
static inline bool vc_lei(uint32_t a, uint32_t b) { return vc_as_i32(a) <= vc_as_i32(b); }
static inline uint32_t vc_absi(uint32_t a) { return (a & VC_SIGN_BIT) ? 0u - a : a; }

static inline bool vc_flt(uint32_t a, uint32_t b) { return vc_as_f32(a) < vc_as_f32(b); }
static inline bool vc_fle(uint32_t a, uint32_t b) { return vc_as_f32(a) <= vc_as_f32(b); }
static inline bool vc_feq(uint32_t a, uint32_t b) { return vc_as_f32(a) == vc_as_f32(b); }

/* min(a,b) = (b < a || isnan(a)) ? b : a; max with b > a. */
static inline uint32_t vc_fmin(uint32_t a, uint32_t b) {
  return (vc_flt(b, a) || vc_f32_isnan(a)) ? b : a;
}
static inline uint32_t vc_fmax(uint32_t a, uint32_t b) {
  return (vc_flt(a, b) || vc_f32_isnan(a)) ? b : a;
}

/* The bits of an arithmetic result, a NaN made the canonical one. */
static inline uint32_t vc_f32_result(float f) {
  uint32_t u = vc_f32_bits(f);
  return vc_f32_isnan(u) ? VC_CANONICAL_NAN : u;
}

static inline uint32_t vc_fadd(uint32_t a, uint32_t b) {
  return vc_f32_result(vc_as_f32(a) + vc_as_f32(b));
}
static inline uint32_t vc_fsub(uint32_t a, uint32_t b) {
  return vc_f32_result(vc_as_f32(a) - vc_as_f32(b));
}
static inline uint32_t vc_fmul(uint32_t a, uint32_t b) {
  return vc_f32_result(vc_as_f32(a) * vc_as_f32(b));
}
static inline uint32_t vc_fdiv(uint32_t a, uint32_t b) {
  return vc_f32_result(vc_as_f32(a) / vc_as_f32(b));
}

/* f32 -> i32: truncate, saturate, NaN gives 0. */
static inline uint32_t vc_f2i(uint32_t u) {
  if (vc_f32_isnan(u)) return 0;
  float f = vc_as_f32(u);
  if (f >= 2147483648.0f) return 0x7fffffffu;
  if (f <= -2147483648.0f) return VC_SIGN_BIT;
  return (uint32_t)(int32_t)f;
}

/* f32 -> u32: truncate, saturate, NaN and negatives give 0. */
static inline uint32_t vc_f2u(uint32_t u) {
  if (vc_f32_isnan(u)) return 0;
  float f = vc_as_f32(u);
  if (!(f > 0.0f)) return 0;
  if (f >= 4294967296.0f) return 0xffffffffu;
  return (uint32_t)f;
}

/* Integer -> f32, one rounding to nearest even. */
static inline uint32_t vc_i2f(uint32_t u) { return vc_f32_bits((float)vc_as_i32(u)); }
static inline uint32_t vc_u2f(uint32_t u) { return vc_f32_bits((float)u); }

/* ---- u64 and i64, on uint64_t words in the same way ---- */

#define VC_SIGN_BIT64 0x8000000000000000ull

static inline int64_t vc_as_i64(uint64_t u) {
  return u < VC_SIGN_BIT64 ? (int64_t)u : (int64_t)(u - VC_SIGN_BIT64) - INT64_MAX - 1;
}

static inline uint64_t vc_divu64(uint64_t a, uint64_t b) { return b ? a / b : 0; }
static inline uint64_t vc_remu64(uint64_t a, uint64_t b) { return b ? a % b : 0; }

/* Truncating division; by zero gives 0, INT64_MIN / -1 gives INT64_MIN. */
static inline uint64_t vc_divi64(uint64_t a, uint64_t b) {
  if (b == 0) return 0;
  if (a == VC_SIGN_BIT64 && b == UINT64_MAX) return VC_SIGN_BIT64;
  return (uint64_t)(vc_as_i64(a) / vc_as_i64(b));
}

static inline uint64_t vc_remi64(uint64_t a, uint64_t b) {
  if (b == 0 || b == UINT64_MAX) return 0;
  return (uint64_t)(vc_as_i64(a) % vc_as_i64(b));
}

static inline uint64_t vc_shl64(uint64_t a, uint64_t b) { return a << (b & 63u); }
static inline uint64_t vc_shru64(uint64_t a, uint64_t b) { return a >> (b & 63u); }
static inline uint64_t vc_shri64(uint64_t a, uint64_t b) {
  uint64_t s = b & 63u;
  return (a & VC_SIGN_BIT64) ? ~(~a >> s) : a >> s;
}

static inline bool vc_lti64(uint64_t a, uint64_t b) {
  return VC_MUTANT(ORACLE_I64_UNSIGNED) ? a < b : vc_as_i64(a) < vc_as_i64(b);
}
static inline bool vc_lei64(uint64_t a, uint64_t b) {
  return VC_MUTANT(ORACLE_I64_UNSIGNED) ? a <= b : vc_as_i64(a) <= vc_as_i64(b);
}
static inline uint64_t vc_absi64(uint64_t a) { return (a & VC_SIGN_BIT64) ? 0u - a : a; }

/* f32 -> i64: truncate, saturate, NaN gives 0. */
static inline uint64_t vc_f2i64(uint32_t u) {
  if (vc_f32_isnan(u)) return 0;
  float f = vc_as_f32(u);
  if (f >= 9223372036854775808.0f) return (uint64_t)INT64_MAX;
  if (f <= -9223372036854775808.0f) return VC_SIGN_BIT64;
  return (uint64_t)(int64_t)f;
}

/* f32 -> u64: truncate, saturate, NaN and negatives give 0. */
static inline uint64_t vc_f2u64(uint32_t u) {
  if (vc_f32_isnan(u)) return 0;
  float f = vc_as_f32(u);
  if (!(f > 0.0f)) return 0;
  if (f >= 18446744073709551616.0f) return UINT64_MAX;
  return (uint64_t)f;
}

/* 64-bit integer -> f32, one rounding to nearest even (C's conversion of
   an integer to float rounds in the current mode, which is to nearest). */
static inline uint32_t vc_i642f(uint64_t u) { return vc_f32_bits((float)vc_as_i64(u)); }
static inline uint32_t vc_u642f(uint64_t u) { return vc_f32_bits((float)u); }

#endif

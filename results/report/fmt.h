/* Human-readable figures for reports and compare output. */
#ifndef VC_RESULTS_FMT_H
#define VC_RESULTS_FMT_H

#include <stdint.h>

enum { VC_FMT_LEN = 40 };

/* "850 ns", "12.3 us", "4.56 ms", "1.234 s", "7 min 3 s", "26 h 5 min" */
void vc_fmt_ns(char out[VC_FMT_LEN], uint64_t ns);
/* "512 B", "1.5 KiB", "3.25 MiB" */
void vc_fmt_bytes(char out[VC_FMT_LEN], uint64_t bytes);
/* "2026-11-29 19:47:03 UTC", or "-" for 0 */
void vc_fmt_utc(char out[VC_FMT_LEN], int64_t unix_ns);

#endif

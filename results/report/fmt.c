#include "results/report/fmt.h"

#include <stdio.h>
#include <time.h>

#define NS_PER_S 1000000000ull

void vc_fmt_ns(char out[VC_FMT_LEN], uint64_t ns) {
  if (ns < 1000)
    snprintf(out, VC_FMT_LEN, "%llu ns", (unsigned long long)ns);
  else if (ns < 1000000)
    snprintf(out, VC_FMT_LEN, "%.3g us", (double)ns / 1e3);
  else if (ns < 1000000000)
    snprintf(out, VC_FMT_LEN, "%.3g ms", (double)ns / 1e6);
  else if (ns < 60 * NS_PER_S)
    snprintf(out, VC_FMT_LEN, "%.4g s", (double)ns / 1e9);
  else if (ns < 3600 * NS_PER_S)
    snprintf(out, VC_FMT_LEN, "%llu min %llu s", (unsigned long long)(ns / NS_PER_S / 60),
             (unsigned long long)(ns / NS_PER_S % 60));
  else
    snprintf(out, VC_FMT_LEN, "%llu h %llu min", (unsigned long long)(ns / NS_PER_S / 3600),
             (unsigned long long)(ns / NS_PER_S / 60 % 60));
}

void vc_fmt_bytes(char out[VC_FMT_LEN], uint64_t bytes) {
  static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) {
    snprintf(out, VC_FMT_LEN, "%llu B", (unsigned long long)bytes);
    return;
  }
  double v = (double)bytes / 1024;
  int u = 0;
  while (v >= 1024 && u < 3) v /= 1024, u++;
  snprintf(out, VC_FMT_LEN, "%.3g %s", v, unit[u]);
}

void vc_fmt_utc(char out[VC_FMT_LEN], int64_t unix_ns) {
  if (unix_ns <= 0) {
    snprintf(out, VC_FMT_LEN, "-");
    return;
  }
  time_t t = (time_t)(unix_ns / 1000000000);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(out, VC_FMT_LEN, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

/* The differentials that need no oracle: in one run of a device, each split
 * mode of a program against its native mode, and a transformed twin
 * (NAME_t) against its original (NAME), mode by mode. Where both results
 * passed, the oracle accepted both; output bytes that differ anyway are a
 * finding the comparison with the oracle could not make (a difference the
 * comparison allows, or a fault the oracle shares with one side). */
#ifndef VC_FUZZ_DIFFERENTIAL_H
#define VC_FUZZ_DIFFERENTIAL_H

#include <stdint.h>

#include "results/store/load.h"

typedef enum vc_fz_diff_kind {
  VC_FZ_DIFF_MODES, /* a split mode against native, one program */
  VC_FZ_DIFF_TWIN   /* a twin against its original, one mode */
} vc_fz_diff_kind;

typedef struct vc_fz_diff {
  vc_fz_diff_kind kind;
  const vc_prog_data *a, *b; /* the program twice (MODES), or original and twin */
  const vc_result *ra, *rb;  /* native and the split mode, or the one mode of each */
} vc_fz_diff;

/* Calls found for each pair of passing results of rd whose output digests
   differ, in the order of rd's programs and modes; returns how many. */
uint32_t vc_fz_differentials(const vc_run_data *rd, void (*found)(void *ctx, const vc_fz_diff *d),
                             void *ctx);

#endif

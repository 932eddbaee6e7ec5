/* What the files of harness/gen share and the API does not show. */
#ifndef VC_GEN_INTERNAL_H
#define VC_GEN_INTERNAL_H

#include "harness/gen/gen.h"

/* Writes program `index` of `seed` (unchecked) and adds its construct counts
   to stats (may be NULL). */
void vc_gen_write(const vc_gen_opts *o, uint64_t seed, uint32_t index, vc_gen_stats *stats,
                  vc_strbuf *out);

#endif

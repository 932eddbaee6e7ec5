#include "bench/same_outputs.h"

#include <string.h>

int vc_bench_same_outputs(const vc_split *sp, const vc_mode_out *a, const vc_mode_out *b,
                          vc_error *err) {
  for (uint32_t i = 0; i < sp->nuser; i++)
    if (vc_split_is_output(sp, i) &&
        memcmp(a->outputs[i], b->outputs[i], vc_buffer_bytes(&sp->buffers[i])) != 0)
      return vc_fail(err, VC_ERR_INTERNAL, "the two sides' outputs differ in buffer %s",
                     sp->buffers[i].name);
  return 0;
}

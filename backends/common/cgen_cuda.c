/* The CUDA C dialect of the C-family code generator (see cgen_dialect.h).
 * A stub until the dialect is written: every kernel is refused. */
#include "backends/common/cgen_dialect.h"

static int check(const vc_cgen_layout *l, vc_error *err) {
  (void)l;
  return vc_fail(err, VC_ERR_UNSUPPORTED, "CUDA C: dialect not implemented");
}

const vc_cgen_dialect vc_cgen_dialect_cuda = {
    .name = "CUDA C",
    .check = check,
};

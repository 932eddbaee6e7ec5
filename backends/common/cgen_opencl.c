/* The OpenCL C dialect of the C-family code generator (see cgen_dialect.h). */
#include "backends/common/cgen_dialect.h"

static int check(const vc_cgen_layout *l, vc_error *err) {
  (void)l;
  return vc_fail(err, VC_ERR_UNSUPPORTED, "OpenCL C: dialect not implemented");
}

const vc_cgen_dialect vc_cgen_dialect_opencl = {
    .name = "OpenCL C",
    .check = check,
};

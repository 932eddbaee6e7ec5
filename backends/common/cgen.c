/* The C-family code generator: see cgen.h and cgen_dialect.h. */
#include "backends/common/cgen.h"

#include "backends/common/cgen_dialect.h"

static const vc_cgen_dialect *dialect_of(vc_dialect d) {
  switch (d) {
  case VC_DIALECT_OPENCL_C: return &vc_cgen_dialect_opencl;
  case VC_DIALECT_GLSL: return &vc_cgen_dialect_glsl;
  case VC_DIALECT_CUDA: return &vc_cgen_dialect_cuda;
  }
  return NULL;
}

int vc_cgen_kernel(const vc_kernel_desc *k, vc_dialect d, vc_strbuf *out, vc_error *err) {
  const vc_cgen_dialect *dl = dialect_of(d);
  (void)out;
  if (!dl) return vc_fail(err, VC_ERR_USAGE, "code generator: unknown dialect %d", (int)d);
  if (k->kind == VC_KERNEL_NATIVE)
    return vc_fail(err, VC_ERR_UNSUPPORTED, "native mode is not implemented for %s yet", dl->name);
  vc_cgen_layout l = {.desc = k, .prog = k->prog};
  if (dl->check) {
    int rc = dl->check(&l, err);
    if (rc) return rc;
  }
  return vc_fail(err, VC_ERR_UNSUPPORTED, "%s: code generator not implemented", dl->name);
}

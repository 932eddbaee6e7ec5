/* The C-family code generator: assembles one kernel from the dialect's
 * prologue, the helper functions the body uses, the segment function and
 * the kernel that calls it. See cgen.h, cgen_dialect.h and docs/codegen.md. */
#include "backends/common/cgen.h"

#include <string.h>

#include "backends/common/cgen_internal.h"

static const vc_cgen_dialect *dialect_of(vc_dialect d) {
  switch (d) {
  case VC_DIALECT_OPENCL_C: return &vc_cgen_dialect_opencl;
  case VC_DIALECT_GLSL: return &vc_cgen_dialect_glsl;
  case VC_DIALECT_CUDA: return &vc_cgen_dialect_cuda;
  }
  return NULL;
}

/* The name of the first required hook the dialect lacks, or NULL. */
static const char *missing_hook(const vc_cgen_dialect *d) {
  if (!d->type_name[VC_U32] || !d->type_name[VC_I32] || !d->type_name[VC_F32]) return "type_name";
  if (!d->prologue) return "prologue";
  if (!d->seg_params) return "seg_params";
  if (!d->seg_args) return "seg_args";
  if (!d->kernel_begin) return "kernel_begin";
  if (!d->builtin) return "builtin";
  if (!d->barrier) return "barrier";
  if (!d->atomic) return "atomic";
  if (!d->convert) return "convert";
  if (!d->bitcast) return "bitcast";
  return NULL;
}

/* A label for a comment: anything that could end the comment is dropped. */
static void comment_text(vc_strbuf *out, const char *s) {
  for (; s && *s; s++)
    if ((*s >= ' ' && *s <= '~') && !(s[0] == '*' && s[1] == '/')) vc_sb_putc(out, *s);
}

static void header(const vc_cgen_layout *l, const vc_cgen_dialect *d, vc_strbuf *out) {
  vc_sb_puts(out, "/* vyre-conform ");
  comment_text(out, d->name);
  vc_sb_puts(out, " kernel: program ");
  comment_text(out, l->prog->name);
  if (l->desc->label) {
    vc_sb_puts(out, ", ");
    comment_text(out, l->desc->label);
  }
  vc_sb_puts(out, " */\n");
}

static int segment_kernel(const vc_cgen_layout *l, const vc_cgen_dialect *d, vc_strbuf *out,
                          vc_error *err) {
  vc_strbuf fn;
  vc_sb_init(&fn);
  vc_cg g = {.d = d, .l = l, .out = &fn, .err = err};
  vc_cg_segment(&g, 0, l->prog->entry);
  if (g.rc) {
    vc_sb_free(&fn);
    return g.rc;
  }
  header(l, d, out); /* comments may precede GLSL's #version */
  d->prologue(l, out);
  vc_cg_helpers(d, g.helpers, out);
  vc_sb_puts(out, vc_sb_str(&fn));
  vc_sb_free(&fn);
  d->kernel_begin(l, out);
  g.out = out;
  vc_cg_segment_call(&g, 0);
  if (d->kernel_end)
    d->kernel_end(l, out);
  else
    vc_sb_puts(out, "}\n");
  return 0;
}

int vc_cgen_kernel(const vc_kernel_desc *k, vc_dialect d, vc_strbuf *out, vc_error *err) {
  const vc_cgen_dialect *dl = dialect_of(d);
  if (!dl) return vc_fail(err, VC_ERR_USAGE, "code generator: unknown dialect %d", (int)d);
  if (!k || !k->prog || !k->prog->entry)
    return vc_fail(err, VC_ERR_USAGE, "%s: kernel description without a program", dl->name);
  if (k->kind == VC_KERNEL_NATIVE)
    return vc_fail(err, VC_ERR_UNSUPPORTED, "native mode is not implemented for %s yet", dl->name);
  const vc_program *p = k->prog;
  vc_cgen_layout l = {.desc = k, .prog = p, .buffers = p->buffers, .nbuffers = p->nbuffers,
                      .shared = p->shared, .nshared = p->nshared};
  memcpy(l.workgroup, p->workgroup, sizeof l.workgroup);
  if (dl->check) {
    int rc = dl->check(&l, err);
    if (rc) return rc;
  }
  const char *hook = missing_hook(dl);
  if (hook) return vc_fail(err, VC_ERR_INTERNAL, "%s: dialect lacks the %s hook", dl->name, hook);
  return segment_kernel(&l, dl, out, err);
}

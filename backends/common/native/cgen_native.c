/* The native kernel generator: checks the descriptor, writes one segment
 * function per segment with the shared code generator, and assembles the
 * kernel around them (cgen_native.h, docs/native.md). */
#include "backends/common/native/cgen_native.h"

#include <string.h>

#include "backends/common/cgen/cgen_internal.h"
#include "backends/common/native/cgen_native_internal.h"
#include "backends/common/native/native_ctrl.h"

void vc_native_opts_default(vc_dialect d, vc_native_opts *o) {
  memset(o, 0, sizeof *o);
  o->dialect = d;
  o->opencl_c_version = 120;
}

const char *vc_gridbar_name(vc_gridbar g) {
  static const char *const names[] = {
#define VC_GRIDBAR_NAME(n, s) [VC_GRIDBAR_##n] = s,
      VC_GRIDBAR_LIST(VC_GRIDBAR_NAME)
#undef VC_GRIDBAR_NAME
  };
  return (unsigned)g < sizeof names / sizeof names[0] ? names[g] : "?";
}

const vc_kv_choice vc_gridbar_choices[] = {
#define VC_GRIDBAR_CHOICE(n, s) {s, VC_GRIDBAR_##n},
    VC_GRIDBAR_LIST(VC_GRIDBAR_CHOICE)
#undef VC_GRIDBAR_CHOICE
    {NULL, 0}};

const vc_kv_choice vc_native_segments_choices[] = {{"unrolled", 0}, {"loop", 1}, {NULL, 0}};
const vc_kv_choice vc_native_discovery_choices[] = {{"add", 0}, {"cas", 1}, {NULL, 0}};

static const vc_native_spell *spell_of(vc_dialect d) {
  switch (d) {
  case VC_DIALECT_OPENCL_C: return &vc_native_spell_opencl;
  case VC_DIALECT_GLSL: return &vc_native_spell_glsl;
  case VC_DIALECT_CUDA: return &vc_native_spell_cuda;
  }
  return NULL;
}

void vc_native_put(const vc_native_layout *nl, vc_strbuf *out, const char *t) {
  const char *param = nl->sp->ctrl_param, *arg = nl->sp->ctrl_arg;
  for (; *t; t++) {
    if (*t != '$' || !t[1]) {
      vc_sb_putc(out, *t);
      continue;
    }
    switch (*++t) {
    case 'U': vc_sb_puts(out, nl->seg->type_name[VC_U32]); break;
    case 'F': vc_sb_puts(out, nl->seg->func_qual ? nl->seg->func_qual : ""); break;
    case 'P': vc_sb_printf(out, "%s%s", param, *param ? ", " : ""); break;
    case 'p': vc_sb_puts(out, param); break;
    case 'A': vc_sb_printf(out, "%s%s", arg, *arg ? ", " : ""); break;
    case 'a': vc_sb_puts(out, arg); break;
    case 'G': nl->seg->builtin(VC_GROUP_ID, 0, out); break;
    case 'N': nl->seg->builtin(VC_NUM_GROUPS, 0, out); break;
    case 'R': vc_sb_puts(out, vc_native_flip(nl) ? "vc_nc_peek" : "vc_nc_load"); break;
    case 'W': vc_sb_puts(out, vc_native_lead(nl) ? "vc_nc_wgsync" : "vc_nc_sync"); break;
    default: vc_sb_putc(out, '$'), vc_sb_putc(out, *t); break;
    }
  }
}

void vc_native_args_by_plan(const vc_native_layout *nl, uint32_t s, vc_strbuf *out) {
  const vc_program *g = nl->d->segments[s];
  for (uint32_t k = 0; k < g->nbuffers; k++) vc_sb_printf(out, "b%u, ", nl->d->bind[s][k]);
  for (uint32_t k = 0; k < g->nshared; k++) vc_sb_printf(out, "s%u, ", nl->d->shared_bind[s][k]);
}

void vc_native_array_elem(uint32_t k, const char *i, vc_strbuf *out) {
  vc_sb_printf(out, "b%u[%s]", k, i);
}

void vc_native_kernel_params(const vc_native_layout *nl, const char *buf_prefix,
                             const char *shared_kw, vc_strbuf *out) {
  const vc_native_desc *d = nl->d;
  const char *const *t = nl->seg->type_name;
  for (uint32_t k = 0; k < d->nbuffers; k++)
    vc_sb_printf(out, "%s%s *b%u /* %s */,\n    ", buf_prefix, t[d->buffers[k].type], k,
                 d->buffers[k].name);
  vc_sb_printf(out, "%s) {\n", nl->sp->ctrl_param);
  for (uint32_t k = 0; k < d->nshared; k++)
    vc_sb_printf(out, "  %s %s s%u[%u]; /* %s */\n", shared_kw, t[d->shared[k].type], k,
                 d->shared[k].count, d->shared[k].name);
}

/* ---- the descriptor ---- */

static int check_segment(const vc_native_desc *d, const vc_program *p, uint32_t s, vc_error *err) {
  const vc_program *g = d->segments[s];
  if (!g || !g->entry || !d->bind[s] || (g->nshared && !d->shared_bind[s]))
    return vc_fail(err, VC_ERR_USAGE, "native kernel of %s: segment %u is incomplete", p->name, s);
  if (memcmp(g->workgroup, p->workgroup, sizeof g->workgroup) != 0 ||
      memcmp(g->grid, p->grid, sizeof g->grid) != 0)
    return vc_fail(err, VC_ERR_USAGE,
                   "native kernel of %s: segment %u has another workgroup or grid than the program",
                   p->name, s);
  for (uint32_t k = 0; k < g->nbuffers; k++) {
    uint32_t i = d->bind[s][k];
    if (i >= d->nbuffers || d->buffers[i].type != g->buffers[k].type ||
        d->buffers[i].count != g->buffers[k].count)
      return vc_fail(err, VC_ERR_USAGE,
                     "native kernel of %s: segment %u buffer %s does not match plan buffer %u",
                     p->name, s, g->buffers[k].name, i);
  }
  for (uint32_t k = 0; k < g->nshared; k++) {
    uint32_t i = d->shared_bind[s][k];
    if (i >= d->nshared || d->shared[i].type != g->shared[k].type ||
        d->shared[i].count != g->shared[k].count)
      return vc_fail(err, VC_ERR_USAGE,
                     "native kernel of %s: segment %u shared array %s does not match the "
                     "program's array %u",
                     p->name, s, g->shared[k].name, i);
  }
  return 0;
}

static int check_desc(const vc_kernel_desc *k, vc_error *err) {
  if (!k || !k->prog || k->kind != VC_KERNEL_NATIVE || !k->native)
    return vc_fail(err, VC_ERR_USAGE, "native kernel: a description without a native program");
  const vc_native_desc *d = k->native;
  const vc_program *p = k->prog;
  if (d->nsegments == 0 || !d->segments || !d->bind || (d->nshared && !d->shared_bind) ||
      (d->nbuffers && !d->buffers))
    return vc_fail(err, VC_ERR_USAGE, "native kernel of %s: no segments in the description",
                   p->name);
  if (vc_program_workgroups(p) == 0 || vc_program_workgroups(p) > 0xffffffffu)
    return vc_fail(err, VC_ERR_USAGE, "native kernel of %s: %llu workgroups", p->name,
                   (unsigned long long)vc_program_workgroups(p));
  const vc_fixpoint *fx = &d->fixpoint;
  if (fx->present && fx->max == 0)
    return vc_fail(err, VC_ERR_USAGE, "native kernel of %s: a fixpoint of 0 passes", p->name);
  if (fx->present && fx->has_flag &&
      (fx->flag >= d->nbuffers || d->buffers[fx->flag].type != VC_U32))
    return vc_fail(err, VC_ERR_USAGE, "native kernel of %s: the fixpoint flag is not a u32 "
                   "plan buffer", p->name);
  for (uint32_t s = 0; s < d->nsegments; s++) {
    int rc = check_segment(d, p, s, err);
    if (rc) return rc;
  }
  return 0;
}

/* ---- the segment functions ---- */

static int segment_functions(const vc_native_layout *nl, vc_strbuf *fns, unsigned *helpers,
                             vc_error *err) {
  const vc_native_desc *d = nl->d;
  for (uint32_t s = 0; s < d->nsegments; s++) {
    const vc_program *g = d->segments[s];
    vc_native_seg_layout sl = {.bind = d->bind[s], .sbind = g->nshared ? d->shared_bind[s] : NULL};
    sl.l = (vc_cgen_layout){.desc = nl->k, .prog = g, .buffers = g->buffers,
                            .nbuffers = g->nbuffers, .shared = g->shared, .nshared = g->nshared};
    memcpy(sl.l.workgroup, g->workgroup, sizeof sl.l.workgroup);
    if (nl->seg->check) {
      int rc = nl->seg->check(&sl.l, err);
      if (rc) return rc;
    }
    vc_cg g2 = {.d = nl->seg, .l = &sl.l, .out = fns, .err = err};
    vc_cg_segment(&g2, s, g->entry);
    if (g2.rc) return vc_fail_wrap(err, "native kernel of %s, segment %u", nl->prog->name, s);
    *helpers |= g2.helpers;
  }
  return 0;
}

/* ---- assembly ---- */

static void comment_text(vc_strbuf *out, const char *s) {
  for (; s && *s; s++)
    if ((*s >= ' ' && *s <= '~') && !(s[0] == '*' && s[1] == '/')) vc_sb_putc(out, *s);
}

static void header(const vc_native_layout *nl, vc_strbuf *out) {
  vc_sb_printf(out, "/* vyre-conform %s native kernel: program ", nl->sp->name);
  comment_text(out, nl->prog->name);
  if (nl->k->label) {
    vc_sb_puts(out, ", ");
    comment_text(out, nl->k->label);
  }
  vc_sb_printf(out, ", %u segment%s */\n", nl->d->nsegments, nl->d->nsegments == 1 ? "" : "s");
}

static void defines(vc_strbuf *out) {
  static const struct {
    const char *name;
    unsigned value;
  } w[] = {{"POLL", VC_NC_POLL},         {"ARRIVE", VC_NC_ARRIVE},
           {"GEN", VC_NC_GEN},           {"UNTRUST", VC_NC_UNTRUST},
           {"UNTRUST_AT", VC_NC_UNTRUST_AT}, {"PARTICIPANTS", VC_NC_PARTICIPANTS},
           {"PASSES", VC_NC_PASSES},     {"VWG_RUNS", VC_NC_VWG_RUNS},
           {"LATE", VC_NC_LATE},         {"CAP", VC_NC_CAP},
           {"SPIN_LIMIT", VC_NC_SPIN_LIMIT}, {"WINDOW", VC_NC_WINDOW},
           {"PHANTOMS", VC_NC_PHANTOMS}, {"EXPECT", VC_NC_EXPECT},
           {"TICKETS", VC_NC_TICKETS},
           {"SLOTS", VC_NC_SLOTS},       {"CLOSED", VC_NC_CLOSED},
           {"NONE", VC_NC_NONE},         {"WHY_WAIT", VC_NC_WHY_WAIT},
           {"WHY_VWG", VC_NC_WHY_VWG}};
  vc_sb_puts(out, "\n/* control buffer words and values (native_ctrl.h) */\n");
  for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
    vc_sb_printf(out, "#define VC_NC_%s 0x%xu\n", w[i].name, w[i].value);
  vc_sb_putc(out, '\n');
}

int vc_cgen_native(const vc_kernel_desc *k, const vc_native_opts *o, vc_strbuf *out,
                   vc_error *err) {
  const vc_native_spell *sp = o ? spell_of(o->dialect) : NULL;
  if (!sp) return vc_fail(err, VC_ERR_USAGE, "native kernel: unknown dialect");
  int rc = check_desc(k, err);
  if (rc) return rc;
  if (sp->check && (rc = sp->check(o, err)) != 0) return rc;
  vc_cgen_dialect seg;
  sp->seg_dialect(o, &seg);
  vc_native_layout nl = {.k = k, .d = k->native, .prog = k->prog, .o = o, .sp = sp, .seg = &seg};
  vc_strbuf fns;
  vc_sb_init(&fns);
  unsigned helpers = 0;
  rc = segment_functions(&nl, &fns, &helpers, err);
  if (rc) {
    vc_sb_free(&fns);
    return rc;
  }
  header(&nl, out); /* comments may precede GLSL's #version */
  sp->prologue(&nl, out);
  defines(out);
  vc_cg_helpers(&seg, helpers, out);
  vc_sb_puts(out, vc_sb_str(&fns));
  vc_sb_free(&fns);
  sp->primitives(&nl, out);
  if (sp->runtime)
    sp->runtime(&nl, out);
  else
    vc_native_runtime(&nl, out);
  sp->kernel_begin(&nl, out);
  vc_native_kernel_body(&nl, out);
  if (sp->kernel_end)
    sp->kernel_end(&nl, out);
  else
    vc_sb_puts(out, "}\n");
  return 0;
}

/* The native kernel generator without a device: what each language's
 * kernel must contain (the ordering the options ask for, one segment
 * function per segment, the grid barriers a pass needs, workgroup barriers
 * between virtual workgroups where workgroup memory is used, no early
 * return), descriptors it must refuse, and the host-side judgement of the
 * control buffer (native_ctrl.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/common/native/cgen_native.h"
#include "backends/common/native/native_ctrl.h"
#include "native_util.h"

#define CASES VC_SOURCE_DIR "/tests/native/cases/"

/* The source of c's native kernel with options o; fails the test on an error. */
static char *gen(const native_case *c, const vc_native_opts *o) {
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_error err = {0};
  int rc = vc_cgen_native(&c->kd, o, &sb, &err);
  if (rc) fail_msg("%s: %s", c->prog->name, err.msg);
  return vc_sb_take(&sb);
}

static char *gen_default(const native_case *c, vc_dialect d) {
  vc_native_opts o;
  vc_native_opts_default(d, &o);
  return gen(c, &o);
}

static vc_native_opts device_scope(void) {
  vc_native_opts o;
  vc_native_opts_default(VC_DIALECT_OPENCL_C, &o);
  o.opencl_device_scope = true;
  o.opencl_c_version = 300;
  return o;
}

static const char *kernel_of(const char *src) {
  const char *k = strstr(src, "vc_main(");
  if (!k) k = strstr(src, "void main(");
  assert_non_null(k);
  return k;
}

static void opencl_1_2_ordering(void **state) {
  (void)state;
  native_case c;
  native_case_load(&c, CASES "spills_3d.vyre");
  char *src = gen_default(&c, VC_DIALECT_OPENCL_C);
  /* every buffer volatile, in the kernel and in the segment functions */
  assert_int_equal(native_count(kernel_of(src), "__global volatile uint *b"), c.desc.nbuffers);
  assert_null(strstr(src, "__global uint *"));
  assert_non_null(strstr(src, "atomic_or(&ctrl[i], 0u)"));
  assert_non_null(strstr(src, "mem_fence(CLK_GLOBAL_MEM_FENCE)"));
  assert_null(strstr(src, "memory_scope_device"));
  assert_null(strstr(src, "atomic_load_explicit"));
  free(src);
  native_case_free(&c);
}

static void opencl_device_scope_ordering(void **state) {
  (void)state;
  native_case c;
  native_case_load(&c, CASES "spills_3d.vyre");
  vc_native_opts o = device_scope();
  char *src = gen(&c, &o);
  assert_non_null(strstr(src, "memory_order_acquire, memory_scope_device"));
  assert_non_null(strstr(src, "memory_order_release, memory_scope_device"));
  assert_non_null(strstr(src, "work_group_barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE, "
                              "memory_scope_device)"));
  assert_non_null(strstr(src, "__opencl_c_atomic_scope_device"));
  assert_null(strstr(src, "volatile uint *b"));
  free(src);
  o.opencl_c_version = 120; /* device scope needs OpenCL C 2.0 */
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_error err = {0};
  assert_int_equal(vc_cgen_native(&c.kd, &o, &sb, &err), VC_ERR_USAGE);
  assert_non_null(strstr(err.msg, "2.0"));
  vc_sb_free(&sb);
  native_case_free(&c);
}

/* The kernel binds the plan buffers in order, then the control buffer, and
   calls each segment function with that segment's plan buffers. */
static void binds_plan_then_control(void **state) {
  (void)state;
  native_case c;
  native_case_load(&c, CASES "spills_3d.vyre");
  char *src = gen_default(&c, VC_DIALECT_OPENCL_C);
  const char *k = kernel_of(src);
  char want[64];
  for (uint32_t i = 0; i < c.desc.nbuffers; i++) {
    snprintf(want, sizeof want, "uint *b%u /* %s */", i, c.desc.buffers[i].name);
    assert_non_null(strstr(k, want));
  }
  assert_non_null(strstr(k, "__global volatile uint *ctrl) {"));
  assert_int_equal(native_count(src, "void vc_seg"), c.desc.nsegments);
  for (uint32_t s = 0; s < c.desc.nsegments; s++) {
    char call[512] = "";
    size_t n = (size_t)snprintf(call, sizeof call, "vc_seg%u(", s);
    for (uint32_t j = 0; j < c.desc.segments[s]->nbuffers; j++)
      n += (size_t)snprintf(call + n, sizeof call - n, "b%u, ", c.desc.bind[s][j]);
    if (!strstr(k, call)) fail_msg("the kernel lacks the call %s", call);
  }
  free(src);
  native_case_free(&c);
}

/* Grid barriers written per pass: between segments; with a count, one
   before the next pass; with a flag, after the reset, after every segment
   and before the next pass. None under a branch: in the kernel each is a
   statement of its own, not the body of an if. */
static void grid_barriers_of_a_pass(void **state) {
  (void)state;
  static const struct {
    const char *file;
    size_t calls, conditional;
  } want[] = {{"no_barrier.vyre", 0, 0},     {"spin_barriers.vyre", 3, 0},
              {"fixpoint_count.vyre", 2, 0}, {"fixpoint_flag.vyre", 4, 0},
              {"fixpoint_one_segment.vyre", 3, 0}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    native_case c;
    char path[512];
    snprintf(path, sizeof path, CASES "%s", want[i].file);
    native_case_load(&c, path);
    /* every grid barrier: the flip barrier's call (and lead's, the same
       barrier) carries the settings */
    static const char *const call[] = {
        [VC_GRIDBAR_FLIP] = "    vc_nat_grid_barrier(ctrl, syncs, p, ph, spin, lead, np);",
        [VC_GRIDBAR_COUNTER] = "    vc_nat_grid_barrier(ctrl, lead, np);",
        [VC_GRIDBAR_LEAD] = "    vc_nat_grid_barrier(ctrl, syncs, p, ph, spin, lead, np);"};
    for (int g = VC_GRIDBAR_FLIP; g <= VC_GRIDBAR_LEAD; g++) {
      vc_native_opts o;
      vc_native_opts_default(VC_DIALECT_OPENCL_C, &o);
      o.gridbar = (vc_gridbar)g;
      char *src = gen(&c, &o);
      const char *k = kernel_of(src);
      size_t calls = native_count(k, call[g]);
      size_t cond = native_count(k, ") vc_nat_grid_barrier(");
      if (calls != want[i].calls || cond != want[i].conditional)
        fail_msg("%s, gridbar %d: %zu grid barriers (%zu conditional), want %zu (%zu)",
                 want[i].file, g, calls, cond, want[i].calls, want[i].conditional);
      free(src);
    }
    native_case_free(&c);
  }
}

/* A segment that uses workgroup memory gets a workgroup barrier after each
   virtual workgroup; one without does not. */
static void separates_virtual_workgroups(void **state) {
  (void)state;
  const char *files[] = {CASES "shared_reuse.vyre", CASES "many_workgroups.vyre"};
  for (int i = 0; i < 2; i++) {
    native_case c;
    native_case_load(&c, files[i]);
    char *src = gen_default(&c, VC_DIALECT_OPENCL_C);
    const char *call = strstr(kernel_of(src), "vc_seg0(");
    assert_non_null(call);
    const char *end = strstr(call, ");\n");
    assert_non_null(end);
    bool barrier = strncmp(end + 3, "      barrier(", 14) == 0;
    assert_int_equal(barrier, i == 0);
    free(src);
    native_case_free(&c);
  }
}

/* Late workgroups must not leave the kernel early: PoCL 3.1 ran a kernel
   with a return before its barriers with one invocation's branches for
   the whole workgroup. */
static void no_early_return(void **state) {
  (void)state;
  native_case c;
  native_case_load(&c, CASES "return_before_barrier.vyre");
  for (vc_dialect d = VC_DIALECT_OPENCL_C; d <= VC_DIALECT_CUDA; d++) {
    char *src = gen_default(&c, d);
    assert_null(strstr(kernel_of(src), "return"));
    assert_non_null(strstr(src, "return;")); /* the program's own, in a segment */
    free(src);
  }
  native_case_free(&c);
}

/* The kernel takes no workgroup memory beyond the program's: its ticket
   travels through the control buffer's slot of the workgroup, the
   participants through the closed poll, the fixpoint flag through every
   invocation's own read. A program may use all of a device's shared
   memory (lavapipe: 32 KiB, the language's limit). */
static void no_workgroup_memory_of_its_own(void **state) {
  (void)state;
  static const char *const decl[] = {"  __local uint s", "\nshared uint s", "  __shared__ unsigned int s"};
  static const char *const any[] = {"__local ", "\nshared ", "__shared__ "};
  const char *files[] = {CASES "shared_reuse.vyre", CASES "fixpoint_flag.vyre"};
  for (int f = 0; f < 2; f++) {
    native_case c;
    native_case_load(&c, files[f]);
    for (vc_dialect d = VC_DIALECT_OPENCL_C; d <= VC_DIALECT_CUDA; d++) {
      char *src = gen_default(&c, d);
      const char *k = d == VC_DIALECT_GLSL ? src : kernel_of(src);
      size_t arrays = native_count(k, decl[d]);
      size_t all = native_count(k, any[d]);
      if (arrays != c.desc.nshared || all != c.desc.nshared)
        fail_msg("%s, dialect %d: %zu workgroup-memory declarations (%zu of the program's "
                 "arrays), the program has %u",
                 files[f], (int)d, all, arrays, c.desc.nshared);
      bool slot = strstr(src, "vc_nc_store(ctrl, VC_NC_SLOTS + ") ||
                  strstr(src, "vc_nc_store(VC_NC_SLOTS + ");
      assert_int_equal(slot, d != VC_DIALECT_CUDA); /* CUDA's ticket is blockIdx.x */
      free(src);
    }
    native_case_free(&c);
  }
}

/* Discovery where something waits: tickets by one fetch-and-add each on
   their own word (the default), or by a compare-and-swap loop on the poll
   (native-discovery=cas), and a window that ends once the tickets reach
   EXPECT. A kernel without a grid barrier takes none: every launched
   workgroup participates. */
static void discovery_only_where_something_waits(void **state) {
  (void)state;
  static const struct {
    const char *file;
    bool discovers;
  } want[] = {{"no_barrier.vyre", false}, {"spin_barriers.vyre", true},
              {"fixpoint_one_segment.vyre", true}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    native_case c;
    char path[512];
    snprintf(path, sizeof path, CASES "%s", want[i].file);
    native_case_load(&c, path);
    assert_int_equal(vc_native_has_grid_barrier(&c.desc), want[i].discovers);
    for (vc_dialect d = VC_DIALECT_OPENCL_C; d <= VC_DIALECT_GLSL; d++) {
      vc_native_opts o;
      vc_native_opts_default(d, &o);
      o.discover_cas = true;
      char *old = gen(&c, &o);
      char *src = gen_default(&c, d);
      bool cas = strstr(old, "vc_nc_cas_relaxed(ctrl, VC_NC_POLL") ||
                 strstr(old, "vc_nc_cas_relaxed(VC_NC_POLL");
      bool expect = strstr(old, "(expect != 0u && seen >= expect)") != NULL;
      if (cas != want[i].discovers || expect != want[i].discovers)
        fail_msg("%s, dialect %d: ticket loop %d, EXPECT test %d", want[i].file, (int)d, cas,
                 expect);
      /* the default: one add for the ticket, no compare-and-swap loop, the
         window's EXPECT test on the tickets, one closing compare-and-swap */
      bool add = strstr(src, "ticket = vc_nc_add(ctrl, VC_NC_TICKETS, 1u);") ||
                 strstr(src, "ticket = vc_nc_add(VC_NC_TICKETS, 1u);");
      bool add_expect = strstr(src, "VC_NC_TICKETS) >= expect) break;") != NULL;
      bool closes = strstr(src, "VC_NC_POLL, 0u, VC_NC_CLOSED | seen);") != NULL;
      if (add != want[i].discovers || add_expect != want[i].discovers ||
          closes != want[i].discovers || strstr(src, "vc_nc_cas_relaxed(ctrl, VC_NC_POLL") ||
          strstr(src, "vc_nc_cas_relaxed(VC_NC_POLL"))
        fail_msg("%s, dialect %d: ticket add %d, EXPECT test %d, close %d", want[i].file, (int)d,
                 add, add_expect, closes);
      free(old);
      assert_int_equal(strstr(src, "return get_group_id") == NULL &&
                           strstr(src, "return ((uint)get_group_id(0))") == NULL &&
                           strstr(src, "return gl_WorkGroupID.x") == NULL,
                       want[i].discovers);
      free(src);
    }
    native_case_free(&c);
  }
}

/* join_direct (the OpenCL plugin's native-join=direct): a kernel
   without a grid barrier joins with no slot, no workgroup barrier and no
   read-modify-write (every invocation peeks POLL and CAP itself); a kernel
   with one is exactly as without it. Both OpenCL orderings and both GLSL
   ones. */
static void direct_join_only_without_grid_barrier(void **state) {
  (void)state;
  native_case free_c, spin_c;
  native_case_load(&free_c, CASES "no_barrier.vyre");
  native_case_load(&spin_c, CASES "spin_barriers.vyre");
  for (int v = 0; v < 4; v++) {
    vc_native_opts o;
    if (v == 1) {
      o = device_scope();
    } else {
      vc_native_opts_default(v < 2 ? VC_DIALECT_OPENCL_C : VC_DIALECT_GLSL, &o);
      o.vulkan_memory_model = v == 3;
    }
    char *slot = gen(&free_c, &o);
    assert_non_null(strstr(slot, "vc_nat_publish("));
    o.join_direct = true;
    char *direct = gen(&free_c, &o);
    const char *body = strstr(direct, v < 2 ? "void vc_main(" : "void main()");
    assert_non_null(body);
    if (strstr(direct, "vc_nat_publish") || strstr(direct, "vc_nat_ticket") ||
        strstr(body, "vc_nc_sync();") || strstr(direct, "vc_nc_load(ctrl, ") ||
        strstr(direct, "vc_nc_load(VC_NC_"))
      fail_msg("variant %d: a slot, a join barrier or a load in:\n%s", v, direct);
    assert_non_null(strstr(body, "  p = vc_nat_discover("));
    assert_non_null(strstr(body, "if (lin == 0u && p == VC_NC_NONE) vc_nc_add("));
    assert_non_null(strstr(direct, "vc_nc_peek(ctrl, VC_NC_POLL)")
                        ? direct
                        : strstr(direct, "vc_nc_peek(VC_NC_POLL)"));
    o.join_direct = false;
    char *spin_slot = gen(&spin_c, &o);
    o.join_direct = true;
    char *spin_direct = gen(&spin_c, &o);
    assert_string_equal(spin_slot, spin_direct);
    free(slot);
    free(direct);
    free(spin_slot);
    free(spin_direct);
  }
  native_case_free(&free_c);
  native_case_free(&spin_c);
}

static void glsl_text(void **state) {
  (void)state;
  native_case c;
  native_case_load(&c, CASES "spills_3d.vyre");
  vc_native_opts o;
  vc_native_opts_default(VC_DIALECT_GLSL, &o);
  char *src = gen(&c, &o);
  assert_memory_equal(strstr(src, "#version 450"), "#version 450\n", 13);
  char want[128];
  snprintf(want, sizeof want, "binding = %u) coherent volatile buffer VcCtrl", c.desc.nbuffers);
  assert_non_null(strstr(src, want));
  assert_int_equal(native_count(src, ") coherent buffer B"), c.desc.nbuffers);
  assert_null(strstr(src, "GL_KHR_memory_scope_semantics"));
  /* a segment's buffer k is its plan buffer: segment 2 of spills_3d binds
     data, slot, out and a spill, by plan index */
  const char *seg2 = strstr(src, "void vc_seg2(");
  assert_non_null(seg2);
  for (uint32_t k = 0; k < c.desc.segments[2]->nbuffers; k++) {
    snprintf(want, sizeof want, "b%u.d[", c.desc.bind[2][k]);
    if (!strstr(seg2, want)) fail_msg("segment 2 does not use plan buffer %s", want);
  }
  free(src);
  o.vulkan_memory_model = true;
  src = gen(&c, &o);
  assert_non_null(strstr(src, "#extension GL_KHR_memory_scope_semantics : require"));
  assert_non_null(strstr(src, "capabilities = [5346]"));
  assert_int_equal(native_count(src, ") nonprivate buffer B"), c.desc.nbuffers);
  assert_non_null(strstr(src, "gl_ScopeDevice"));
  assert_null(strstr(src, "memoryBarrierBuffer"));
  free(src);
  native_case_free(&c);
}

static void cuda_text(void **state) {
  (void)state;
  native_case c;
  native_case_load(&c, CASES "fixpoint_flag.vyre");
  char *src = gen_default(&c, VC_DIALECT_CUDA);
  assert_non_null(strstr(src, "#include <cooperative_groups.h>"));
  assert_non_null(strstr(src, "cooperative_groups::this_grid().sync();"));
  assert_non_null(strstr(src, "return blockIdx.x;"));
  assert_non_null(strstr(src, "return gridDim.x;"));
  assert_null(strstr(src, "vc_nat_wait")); /* no spinning: co-residency is promised */
  assert_non_null(strstr(src, "unsigned int *ctrl) {"));
  free(src);
  native_case_free(&c);
}

/* The text of function `name` (from its definition, returning void or
   u32, to the next line that is a lone "}"), malloc'ed. */
static char *function_text(const char *src, const char *name) {
  static const char *const types[] = {"void", "uint", "unsigned int"};
  char head[128];
  const char *b = NULL;
  for (size_t i = 0; i < 3 && !b; i++) {
    snprintf(head, sizeof head, "%s %s(", types[i], name);
    b = strstr(src, head);
  }
  if (!b) fail_msg("no definition of %s", name);
  const char *e = strstr(b, "\n}\n");
  assert_non_null(e);
  size_t n = (size_t)(e - b) + 3;
  char *t = malloc(n + 1);
  assert_non_null(t);
  memcpy(t, b, n);
  t[n] = '\0';
  return t;
}

/* The flip barrier (the default) in both languages and all orderings:
   one atomic add per participant per barrier, on ARRIVE, no reset and no
   generation word; the poll loop reads with relaxed loads only (no
   acquire load, no read-modify-write inside it), checks UNTRUST and the
   spin limit only once per 1024 polls, and one acquire load after it
   checks the condition; the settings are read once per launch, outside
   the barrier; the kernel counts its barriers and stores them as GEN. */
static void flip_barrier_shape(void **state) {
  (void)state;
  native_case c;
  native_case_load(&c, CASES "spin_barriers.vyre");
  for (int v = 0; v < 4; v++) {
    vc_native_opts o;
    vc_native_opts_default(v < 2 ? VC_DIALECT_OPENCL_C : VC_DIALECT_GLSL, &o);
    if (v == 1) o = device_scope();
    if (v == 3) o.vulkan_memory_model = true;
    assert_int_equal(o.gridbar, VC_GRIDBAR_FLIP);
    char *src = gen(&c, &o);
    char *bar = function_text(src, "vc_nat_grid_barrier");
    char *wait = function_text(src, "vc_nat_wait");
    /* the barrier: one add, no load of anything, no store, no GEN */
    assert_int_equal(native_count(bar, "vc_nc_add("), 1);
    assert_non_null(strstr(bar, "vc_nc_add("));
    assert_non_null(strstr(bar, "VC_NC_ARRIVE, add)"));
    assert_null(strstr(bar, "vc_nc_load("));
    assert_null(strstr(bar, "vc_nc_peek("));
    assert_null(strstr(bar, "vc_nc_store("));
    assert_null(strstr(bar, "VC_NC_GEN"));
    assert_null(strstr(bar, "VC_NC_PHANTOMS"));
    assert_null(strstr(bar, "VC_NC_SPIN_LIMIT"));
    assert_non_null(strstr(bar, "add = VC_NC_CLOSED - (target - 1u);"));
    assert_int_equal(native_count(bar, "vc_nc_sync();"), 2);
    /* the wait: the loop from "while (" to the test after it */
    const char *loop = strstr(wait, "  while (");
    assert_non_null(loop);
    const char *after = strstr(loop, "\n  }\n  if (");
    assert_non_null(after);
    char body[2048];
    size_t n = (size_t)(after - loop);
    assert_true(n < sizeof body);
    memcpy(body, loop, n);
    body[n] = '\0';
    assert_null(strstr(body, "vc_nc_load("));
    assert_null(strstr(body, "vc_nc_add("));
    assert_null(strstr(body, "vc_nc_or("));
    assert_null(strstr(body, "vc_nc_cas"));
    assert_non_null(strstr(body, "while (((vc_nc_peek("));
    const char *every = strstr(body, "if (polls == 1024u) {");
    assert_non_null(every);
    assert_true(strstr(body, "VC_NC_UNTRUST") > every);
    assert_true(strstr(body, "limit") > every);
    assert_int_equal(native_count(body, "VC_NC_UNTRUST"), 1);
    /* after the loop: the condition checked, then one acquire fence */
    assert_null(strstr(wait, "vc_nc_load("));
    assert_non_null(strstr(after, "if (((vc_nc_peek("));
    assert_non_null(strstr(after, "VC_NC_WHY_WAIT"));
    assert_int_equal(native_count(wait, "vc_nc_acquire();"), 1);
    assert_true(strstr(after, "vc_nc_acquire();") > strstr(after, "VC_NC_WHY_WAIT"));
    /* what every invocation reads after the workgroup barrier (its
       ticket, the count) is a plain read, no read-modify-write */
    char *ticket = function_text(src, "vc_nat_ticket");
    char *count = function_text(src, "vc_nat_count");
    assert_non_null(strstr(ticket, "return vc_nc_peek("));
    assert_non_null(strstr(count, "return vc_nc_peek("));
    free(count);
    free(ticket);
    /* the settings once per launch; the count stored as GEN at the end */
    const char *k = kernel_of(src);
    assert_int_equal(native_count(k, "VC_NC_PHANTOMS"), 1);
    assert_int_equal(native_count(k, "VC_NC_SPIN_LIMIT"), 1);
    assert_int_equal(native_count(src, "VC_NC_GEN, syncs)"), 1);
    assert_int_equal(native_count(k, "syncs = syncs + 1u;"), 3);
    /* the relaxed load is relaxed in every ordering */
    const char *peek = strstr(src, "vc_nc_peek(");
    assert_non_null(peek);
    if (v == 1) assert_non_null(strstr(src, "memory_order_relaxed, memory_scope_device);\n}\nvoid vc_nc_store"));
    if (v == 3) assert_non_null(strstr(src, "gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);\n}\nvoid vc_nc_store"));
    free(wait);
    free(bar);
    free(src);
  }
  native_case_free(&c);
}

/* gridbar=counter keeps the counter barrier: the generation word, the
   reset, the acquire polls of GEN. */
static void counter_barrier_shape(void **state) {
  (void)state;
  native_case c;
  native_case_load(&c, CASES "spin_barriers.vyre");
  for (vc_dialect d = VC_DIALECT_OPENCL_C; d <= VC_DIALECT_GLSL; d++) {
    vc_native_opts o;
    vc_native_opts_default(d, &o);
    o.gridbar = VC_GRIDBAR_COUNTER;
    char *src = gen(&c, &o);
    char *bar = function_text(src, "vc_nat_grid_barrier");
    char *wait = function_text(src, "vc_nat_wait");
    assert_non_null(strstr(bar, "target = np + vc_nc_load("));
    assert_non_null(strstr(bar, "vc_nc_store("));
    assert_non_null(strstr(bar, "VC_NC_ARRIVE, 0u);"));
    assert_non_null(strstr(bar, "vc_nc_add("));
    assert_non_null(strstr(bar, "VC_NC_GEN, 1u);"));
    assert_non_null(strstr(wait, "while (vc_nc_load("));
    assert_null(strstr(src, "syncs")); /* GEN is the device's count */
    char *ticket = function_text(src, "vc_nat_ticket");
    assert_non_null(strstr(ticket, "return vc_nc_load("));
    free(ticket);
    free(wait);
    free(bar);
    free(src);
  }
  native_case_free(&c);
}

/* gridbar=lead: the flip barrier with workgroup barriers at workgroup
   scope on either side (vc_nc_wgsync, written only then), while the
   lead's add stays acq_rel at device scope and its wait ends with the
   device-scope acquire fence; discovery's workgroup barrier keeps device
   scope. gridbar=flip writes no vc_nc_wgsync. */
static void lead_barrier_shape(void **state) {
  (void)state;
  native_case c;
  native_case_load(&c, CASES "spin_barriers.vyre");
  static const struct {
    vc_dialect d;
    bool strong; /* device-scope atomics / the Vulkan memory model */
    const char *wgsync;
  } langs[] = {
      {VC_DIALECT_OPENCL_C, true,
       "work_group_barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE, memory_scope_work_group);"},
      {VC_DIALECT_OPENCL_C, false, "  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);\n}"},
      {VC_DIALECT_GLSL, true, "controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup,"},
      {VC_DIALECT_GLSL, false, "groupMemoryBarrier();\n  barrier();\n  groupMemoryBarrier();"},
  };
  for (size_t i = 0; i < sizeof langs / sizeof langs[0]; i++) {
    vc_native_opts o;
    vc_native_opts_default(langs[i].d, &o);
    if (langs[i].d == VC_DIALECT_OPENCL_C) {
      o.opencl_device_scope = langs[i].strong;
      if (langs[i].strong) o.opencl_c_version = 200;
    } else {
      o.vulkan_memory_model = langs[i].strong;
    }
    o.gridbar = VC_GRIDBAR_LEAD;
    char *src = gen(&c, &o);
    char *sync = function_text(src, "vc_nc_wgsync");
    if (!strstr(sync, langs[i].wgsync)) fail_msg("case %zu: vc_nc_wgsync is:\n%s", i, sync);
    assert_null(strstr(sync, "Device"));
    assert_null(strstr(sync, "memory_scope_device"));
    char *bar = function_text(src, "vc_nat_grid_barrier");
    assert_int_equal(native_count(bar, "vc_nc_wgsync();"), 2);
    assert_null(strstr(bar, "vc_nc_sync();"));
    assert_non_null(strstr(bar, "seen = vc_nc_add("));
    char *wait = function_text(src, "vc_nat_wait");
    assert_non_null(strstr(wait, "vc_nc_acquire();"));
    /* discovery's hand-over keeps the device-scope workgroup barrier */
    assert_non_null(strstr(kernel_of(src), "vc_nc_sync();\n  p = vc_nat_ticket("));
    free(wait);
    free(bar);
    free(sync);
    free(src);
    o.gridbar = VC_GRIDBAR_FLIP;
    src = gen(&c, &o);
    assert_null(strstr(src, "vc_nc_wgsync"));
    free(src);
  }
  native_case_free(&c);
}

/* barrier=inline's memory orders (inline-order): the fenced one (the
   first), grid.sync()'s release add and acquire polls without a fence,
   and relaxed polls with one acquire fence after. */
static void cuda_inline_orders(void **state) {
  (void)state;
  native_case c;
  native_case_load(&c, CASES "spin_barriers.vyre");
  vc_native_opts o;
  vc_native_opts_default(VC_DIALECT_CUDA, &o);
  o.cuda_inline_barrier = true;
  assert_int_equal(o.cuda_inline, VC_CUDA_INLINE_FENCED);
  char *src = gen(&c, &o);
  char *bar = function_text(src, "vc_nat_grid_barrier");
  assert_int_equal(native_count(bar, "__threadfence();"), 2);
  assert_int_equal(native_count(bar, "atom.acq_rel.gpu.global.add.u32"), 1);
  assert_int_equal(native_count(bar, "ld.acquire.gpu.global.u32"), 1);
  assert_non_null(strstr(src, "inline-order=fenced */"));
  assert_null(strstr(src, "cooperative_groups"));
  free(bar);
  free(src);

  o.cuda_inline = VC_CUDA_INLINE_RELEASE;
  src = gen(&c, &o);
  bar = function_text(src, "vc_nat_grid_barrier");
  assert_null(strstr(bar, "__threadfence"));
  assert_null(strstr(bar, "fence."));
  assert_int_equal(native_count(bar, "atom.add.release.gpu.u32"), 1);
  assert_int_equal(native_count(bar, "ld.acquire.gpu.u32"), 1);
  assert_int_equal(native_count(bar, "__syncthreads();"), 2);
  free(bar);
  free(src);

  o.cuda_inline = VC_CUDA_INLINE_RELAXED;
  src = gen(&c, &o);
  bar = function_text(src, "vc_nat_grid_barrier");
  assert_null(strstr(bar, "__threadfence"));
  assert_null(strstr(bar, "ld.acquire"));
  assert_int_equal(native_count(bar, "atom.add.release.gpu.u32"), 1);
  assert_int_equal(native_count(bar, "ld.relaxed.gpu.u32"), 1);
  /* the fence after the loop, not in it */
  const char *fence = strstr(bar, "fence.acq_rel.gpu;");
  assert_non_null(fence);
  assert_true(fence > strstr(bar, "} while ("));
  free(bar);
  free(src);
  native_case_free(&c);
}

static void deterministic(void **state) {
  (void)state;
  native_case c;
  native_case_load(&c, CASES "spin_barriers.vyre");
  for (vc_dialect d = VC_DIALECT_OPENCL_C; d <= VC_DIALECT_CUDA; d++) {
    char *a = gen_default(&c, d), *b = gen_default(&c, d);
    assert_string_equal(a, b);
    free(a);
    free(b);
  }
  native_case_free(&c);
}

static int refused(const native_case *c, const vc_native_desc *d, vc_error *err) {
  vc_kernel_desc k = c->kd;
  k.native = d;
  vc_native_opts o;
  vc_native_opts_default(VC_DIALECT_OPENCL_C, &o);
  vc_strbuf sb;
  vc_sb_init(&sb);
  int rc = vc_cgen_native(&k, &o, &sb, err);
  vc_sb_free(&sb);
  return rc;
}

static void refuses_bad_descriptors(void **state) {
  (void)state;
  native_case c;
  native_case_load(&c, CASES "fixpoint_flag.vyre");
  vc_error err = {0};
  vc_native_desc d = c.desc;
  d.nsegments = 0;
  assert_int_equal(refused(&c, &d, &err), VC_ERR_USAGE);
  d = c.desc;
  uint32_t bad[8] = {99, 99, 99, 99, 99, 99, 99, 99};
  const uint32_t *binds[16];
  for (uint32_t s = 0; s < d.nsegments; s++) binds[s] = s ? d.bind[s] : bad;
  d.bind = binds;
  assert_int_equal(refused(&c, &d, &err), VC_ERR_USAGE);
  assert_non_null(strstr(err.msg, "segment 0"));
  d = c.desc;
  d.fixpoint.flag = d.nbuffers; /* not a plan buffer */
  assert_int_equal(refused(&c, &d, &err), VC_ERR_USAGE);
  assert_non_null(strstr(err.msg, "flag"));
  vc_kernel_desc k = c.kd;
  k.native = NULL;
  vc_native_opts o;
  vc_native_opts_default(VC_DIALECT_OPENCL_C, &o);
  vc_strbuf sb;
  vc_sb_init(&sb);
  assert_int_equal(vc_cgen_native(&k, &o, &sb, &err), VC_ERR_USAGE);
  o.dialect = (vc_dialect)7;
  assert_int_equal(vc_cgen_native(&c.kd, &o, &sb, &err), VC_ERR_USAGE);
  vc_sb_free(&sb);
  native_case_free(&c);
}

/* ---- the control buffer, judged on the host ---- */

static vc_native_shape shape(uint32_t vwgs, uint32_t segs, uint32_t maxp, bool flag) {
  vc_native_shape s = {vwgs, segs, maxp, flag, false};
  return s;
}

static void expected_barriers(void **state) {
  (void)state;
  vc_native_shape s = shape(10, 3, 1, false);
  assert_int_equal(vc_native_expected_barriers(&s, 1), 2);
  s = shape(10, 1, 1, false);
  assert_int_equal(vc_native_expected_barriers(&s, 1), 0);
  s = shape(10, 2, 5, false); /* fixpoint_count: 5 passes of 2 */
  assert_int_equal(vc_native_expected_barriers(&s, 5), 9);
  s = shape(10, 2, 100, true); /* fixpoint_flag: 48 passes */
  assert_int_equal(vc_native_expected_barriers(&s, 48), 191);
  assert_int_equal(vc_native_expected_barriers(&s, 0), 0);
}

/* The words of a run that did everything right. */
static void good_words(uint32_t w[VC_NC_WORDS], const vc_native_shape *s, uint32_t np,
                       uint32_t passes) {
  vc_native_ctrl_opts o = {0};
  vc_native_ctrl_init(w, &o);
  w[VC_NC_PARTICIPANTS] = np;
  w[VC_NC_PASSES] = passes;
  w[VC_NC_GEN] = (uint32_t)vc_native_expected_barriers(s, passes);
  w[VC_NC_VWG_RUNS] = s->virtual_wgs * s->nsegments * passes;
  w[VC_NC_LATE] = 3;
}

static void judges_control_words(void **state) {
  (void)state;
  vc_native_shape s = shape(1000, 3, 1, false);
  uint32_t w[VC_NC_WORDS];
  vc_native_stats st;
  good_words(w, &s, 7, 1);
  vc_native_ctrl_stats(w, &s, 10, &st);
  assert_false(st.untrustworthy);
  assert_int_equal(st.participants, 7);
  assert_int_equal(st.virtual_per_participant, 143);
  assert_int_equal(st.barriers, 2);
  assert_int_equal(st.passes, 1);
  assert_non_null(strstr(st.note, "3 late"));

  good_words(w, &s, 7, 1);
  w[VC_NC_UNTRUST] = VC_NC_WHY_WAIT;
  w[VC_NC_UNTRUST_AT] = 1;
  vc_native_ctrl_stats(w, &s, 10, &st);
  assert_true(st.untrustworthy);
  assert_non_null(strstr(st.note, "grid-barrier wait ended without its condition"));
  assert_non_null(strstr(st.note, "barrier 1"));

  good_words(w, &s, 7, 1);
  w[VC_NC_UNTRUST] = VC_NC_WHY_VWG;
  vc_native_ctrl_stats(w, &s, 10, &st);
  assert_true(st.untrustworthy);
  assert_non_null(strstr(st.note, "virtual-workgroup loop"));

  good_words(w, &s, 7, 1);
  w[VC_NC_VWG_RUNS]--; /* a virtual workgroup skipped, with no bit set */
  vc_native_ctrl_stats(w, &s, 10, &st);
  assert_true(st.untrustworthy);
  assert_non_null(strstr(st.note, "2999 virtual workgroup runs, the passes need 3000"));

  good_words(w, &s, 7, 1);
  w[VC_NC_GEN] = 4; /* a leaky barrier completes too often */
  vc_native_ctrl_stats(w, &s, 10, &st);
  assert_true(st.untrustworthy);
  assert_non_null(strstr(st.note, "4 grid barriers completed, the passes need 2"));

  good_words(w, &s, 11, 1); /* more participants than workgroups launched */
  vc_native_ctrl_stats(w, &s, 10, &st);
  assert_true(st.untrustworthy);

  s.cooperative = true; /* every launched block must participate */
  good_words(w, &s, 7, 1);
  vc_native_ctrl_stats(w, &s, 10, &st);
  assert_true(st.untrustworthy);
  vc_native_ctrl_stats(w, &s, 7, &st);
  assert_false(st.untrustworthy);

  good_words(w, &s, 7, 1); /* arrivals left: a barrier released early */
  w[VC_NC_ARRIVE] = VC_NC_CLOSED | 2u;
  vc_native_ctrl_stats(w, &s, 7, &st);
  assert_true(st.untrustworthy);
  assert_non_null(strstr(st.note, "2 arrivals left in the barrier word"));
  good_words(w, &s, 7, 1); /* the flip barrier's top bit alone is no fault */
  w[VC_NC_ARRIVE] = VC_NC_CLOSED;
  vc_native_ctrl_stats(w, &s, 7, &st);
  assert_false(st.untrustworthy);

  s = shape(40, 2, 5, false); /* a count fixpoint runs exactly its passes */
  good_words(w, &s, 2, 4);
  vc_native_ctrl_stats(w, &s, 2, &st);
  assert_true(st.untrustworthy);
  assert_non_null(strstr(st.note, "exactly 5"));
}

static void ctrl_init_sets_settings(void **state) {
  (void)state;
  uint32_t w[VC_NC_WORDS];
  memset(w, 0xab, sizeof w);
  vc_native_ctrl_opts o = {1, 2, 3, 4, 5};
  vc_native_ctrl_init(w, &o);
  assert_int_equal(w[VC_NC_EXPECT], 5);
  assert_int_equal(w[VC_NC_CAP], 1);
  assert_int_equal(w[VC_NC_SPIN_LIMIT], 2);
  assert_int_equal(w[VC_NC_WINDOW], 3);
  assert_int_equal(w[VC_NC_PHANTOMS], 4);
  assert_int_equal(w[VC_NC_UNTRUST_AT], 0xffffffffu);
  assert_int_equal(w[VC_NC_POLL] | w[VC_NC_ARRIVE] | w[VC_NC_GEN] | w[VC_NC_UNTRUST] |
                       w[VC_NC_PASSES] | w[VC_NC_VWG_RUNS] | w[VC_NC_LATE],
                   0);
}

/* Every launch starts from reset state words, also the next launch of the
   same kernel after native_stats read its words back (the flip barrier's
   word would survive a reuse; discovery's closed poll would not). */
static void ctrl_init_resets_every_launch(void **state) {
  (void)state;
  vc_native_shape s = shape(1000, 3, 1, false);
  vc_native_ctrl_opts o = {0, 0, 64, 0, 2};
  uint32_t w[VC_NC_WORDS];
  vc_native_stats st;
  for (int launch = 0; launch < 3; launch++) {
    vc_native_ctrl_init(w, &o);
    assert_int_equal(w[VC_NC_POLL] | w[VC_NC_ARRIVE] | w[VC_NC_GEN] | w[VC_NC_TICKETS] |
                         w[VC_NC_UNTRUST] | w[VC_NC_PARTICIPANTS] | w[VC_NC_PASSES] |
                         w[VC_NC_VWG_RUNS] | w[VC_NC_LATE],
                     0);
    assert_int_equal(w[VC_NC_WINDOW], 64);
    /* what a good launch of two participants leaves, by hand (good_words
       would init the words of another kernel, its own settings) */
    w[VC_NC_PARTICIPANTS] = 2;
    w[VC_NC_PASSES] = 1;
    w[VC_NC_GEN] = 2;
    w[VC_NC_VWG_RUNS] = 3000;
    w[VC_NC_LATE] = 1;
    w[VC_NC_POLL] = VC_NC_CLOSED | 2u;
    w[VC_NC_TICKETS] = 2;
    w[VC_NC_ARRIVE] = VC_NC_CLOSED;
    vc_native_ctrl_stats(w, &s, 2, &st);
    assert_false(st.untrustworthy);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(opencl_1_2_ordering),
      cmocka_unit_test(opencl_device_scope_ordering),
      cmocka_unit_test(binds_plan_then_control),
      cmocka_unit_test(grid_barriers_of_a_pass),
      cmocka_unit_test(separates_virtual_workgroups),
      cmocka_unit_test(no_early_return),
      cmocka_unit_test(no_workgroup_memory_of_its_own),
      cmocka_unit_test(discovery_only_where_something_waits),
      cmocka_unit_test(direct_join_only_without_grid_barrier),
      cmocka_unit_test(glsl_text),
      cmocka_unit_test(cuda_text),
      cmocka_unit_test(flip_barrier_shape),
      cmocka_unit_test(counter_barrier_shape),
      cmocka_unit_test(lead_barrier_shape),
      cmocka_unit_test(cuda_inline_orders),
      cmocka_unit_test(deterministic),
      cmocka_unit_test(refuses_bad_descriptors),
      cmocka_unit_test(expected_barriers),
      cmocka_unit_test(judges_control_words),
      cmocka_unit_test(ctrl_init_sets_settings),
      cmocka_unit_test(ctrl_init_resets_every_launch),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

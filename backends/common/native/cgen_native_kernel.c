/* What every native kernel shares, whatever its language: occupancy
 * discovery, the grid barrier (flip, lead or counter) with its checked wait, and the body
 * that runs the segments over the virtual workgroups, pass after pass.
 * The text is a C subset that OpenCL C, GLSL and CUDA C all read; the
 * primitives it calls (vc_nc_*) are spelled per language. */
#include "backends/common/cgen/cgen_internal.h"
#include "backends/common/native/cgen_native_internal.h"
#include "backends/common/native/native_ctrl.h"
#include "harness/base/mutant.h"

static const char discover_text[] =
    "/* Occupancy discovery (Sorensen, Donaldson et al., OOPSLA 2016): a\n"
    "   workgroup that finds the poll open takes a ticket by compare-and-swap;\n"
    "   a ticket holder polls until the tickets reach EXPECT (what can be\n"
    "   resident at most: no one else can come), someone closed the poll, or\n"
    "   WINDOW polls passed, then closes it; a workgroup that finds it closed\n"
    "   (or the cap reached) leaves at once and never waits. The window is no\n"
    "   wait: cut short, it only narrows. */\n"
    "$F$U vc_nat_discover($p) {\n"
    "  $U cap = vc_nc_load($AVC_NC_CAP);\n"
    "  $U old = vc_nc_peek($AVC_NC_POLL);\n"
    "  $U ticket = VC_NC_NONE;\n"
    "  $U seen = 0u;\n"
    "  $U window = 0u;\n"
    "  $U expect = 0u;\n"
    "  $U i = 0u;\n"
    "  /* Relaxed: a ticket orders nothing (the grid barriers do), and a loop\n"
    "     whose trip count differs per workgroup must not hold memory\n"
    "     barriers (lavapipe runs wide workgroups as coroutines that a\n"
    "     barrier one row executes more often than another desynchronises). */\n"
    "  while (ticket == VC_NC_NONE && (old & VC_NC_CLOSED) == 0u && (cap == 0u || old < cap)) {\n"
    "    seen = vc_nc_cas_relaxed($AVC_NC_POLL, old, old + 1u);\n"
    "    if (seen == old) {\n"
    "      ticket = old;\n"
    "    } else {\n"
    "      old = seen;\n"
    "    }\n"
    "  }\n"
    "  if (ticket == VC_NC_NONE) {\n"
    "    if ((old & VC_NC_CLOSED) == 0u) vc_nc_or($AVC_NC_POLL, VC_NC_CLOSED); /* cap reached */\n"
    "    vc_nc_add($AVC_NC_LATE, 1u);\n"
    "    return VC_NC_NONE;\n"
    "  }\n"
    "  window = vc_nc_load($AVC_NC_WINDOW);\n"
    "  expect = vc_nc_load($AVC_NC_EXPECT);\n"
    "  for (i = 0u; i < window; i++) {\n"
    "    seen = vc_nc_peek($AVC_NC_POLL);\n"
    "    if ((seen & VC_NC_CLOSED) != 0u || (expect != 0u && seen >= expect)) break;\n"
    "  }\n"
    "  vc_nc_or($AVC_NC_POLL, VC_NC_CLOSED);\n"
    "  return ticket;\n"
    "}\n\n";

/* The participant count where discovery closed the poll (either way of
   handing out tickets). */
static const char count_text[] =
    "/* The participants: final once the poll is closed, which the lead\n"
    "   invocation has seen before any invocation asks. */\n"
    "$F$U vc_nat_count($p) {\n"
    "  return $R($AVC_NC_POLL) & (VC_NC_CLOSED - 1u);\n"
    "}\n\n";

/* The same protocol with tickets by fetch-and-add (native-discovery=add,
   the default): one read-modify-write per workgroup. Taking tickets by
   compare-and-swap, every workgroup retries against all the others that
   got in first: on the H200, 1056 workgroups took 0.9 ms to get theirs,
   more than 100 grid barriers cost. The tickets count in their own word;
   POLL stays 0 until the poll is closed, then holds VC_NC_CLOSED and the
   participant count: the first to close stores the tickets it saw taken,
   and a ticket at or above that count came too late. A ticket below it was
   taken before the close by a workgroup that was running then. */
static const char discover_add_text[] =
    "/* Occupancy discovery (Sorensen, Donaldson et al., OOPSLA 2016), with\n"
    "   tickets by fetch-and-add: a workgroup that finds the poll open takes\n"
    "   the next ticket; a ticket holder polls until the tickets reach EXPECT\n"
    "   (what can be resident at most: no one else can come), someone closed\n"
    "   the poll, or WINDOW polls passed, then closes it with the tickets\n"
    "   taken by then as the count, unless another closed it first; a ticket\n"
    "   at or above the count, or the cap, is late. A workgroup that finds the\n"
    "   poll closed leaves at once and never waits. The window is no wait:\n"
    "   cut short, it only narrows. */\n"
    "$F$U vc_nat_discover($p) {\n"
    "  $U cap = vc_nc_load($AVC_NC_CAP);\n"
    "  $U ticket = VC_NC_NONE;\n"
    "  $U seen = 0u;\n"
    "  $U window = 0u;\n"
    "  $U expect = 0u;\n"
    "  $U i = 0u;\n"
    "  if ((vc_nc_peek($AVC_NC_POLL) & VC_NC_CLOSED) == 0u) {\n"
    "    ticket = vc_nc_add($AVC_NC_TICKETS, 1u);\n"
    "    window = vc_nc_load($AVC_NC_WINDOW);\n"
    "    expect = vc_nc_load($AVC_NC_EXPECT);\n"
    "    if (cap != 0u && ticket + 1u >= cap) window = 0u; /* the cap reached: close now */\n"
    "    for (i = 0u; i < window; i++) {\n"
    "      if ((vc_nc_peek($AVC_NC_POLL) & VC_NC_CLOSED) != 0u) break;\n"
    "      if (expect != 0u && vc_nc_peek($AVC_NC_TICKETS) >= expect) break;\n"
    "    }\n"
    "    seen = vc_nc_peek($AVC_NC_TICKETS);\n"
    "    if (cap != 0u && seen > cap) seen = cap;\n"
    "    vc_nc_cas($AVC_NC_POLL, 0u, VC_NC_CLOSED | seen);\n"
    "    if (ticket >= (vc_nc_load($AVC_NC_POLL) & (VC_NC_CLOSED - 1u))) ticket = VC_NC_NONE;\n"
    "  }\n"
    "  if (ticket == VC_NC_NONE) vc_nc_add($AVC_NC_LATE, 1u);\n"
    "  return ticket;\n"
    "}\n\n";

/* A kernel without a grid barrier needs no co-residency, so no discovery:
   every launched workgroup up to the cap participates, workgroup g as
   participant g. */
static const char discover_free_text[] =
    "/* No grid barrier: nothing waits, so every launched workgroup (up to\n"
    "   the cap) participates, without discovery; a poll closed before the\n"
    "   launch (OpenCL's warm-up) still makes every workgroup late. */\n"
    "$F$U vc_nat_count($p) {\n"
    "  $U cap = $R($AVC_NC_CAP);\n"
    "  $U n = $N;\n"
    "  if (cap != 0u && n > cap) n = cap;\n"
    "  return n;\n"
    "}\n\n"
    "$F$U vc_nat_discover($p) {\n"
    "  if ((vc_nc_peek($AVC_NC_POLL) & VC_NC_CLOSED) == 0u && $G < vc_nat_count($a)) return $G;\n"
    "  vc_nc_add($AVC_NC_LATE, 1u);\n"
    "  return VC_NC_NONE;\n"
    "}\n\n";

/* The same, when every invocation joins by itself (join_direct): POLL and
   CAP are written before the launch and never change during a kernel
   without a grid barrier, so each invocation reads them with a relaxed
   load and comes to the same answer as the rest of its workgroup; no slot,
   no workgroup barrier, no read-modify-write. */
static const char discover_direct_text[] =
    "/* No grid barrier, and every invocation joins by itself: the poll and\n"
    "   the cap are written before the launch and do not change during it,\n"
    "   so each invocation of a workgroup reads the same words and takes the\n"
    "   same participant number (or none), without the lead handing it on. */\n"
    "$F$U vc_nat_count($p) {\n"
    "  $U cap = vc_nc_peek($AVC_NC_CAP);\n"
    "  $U n = $N;\n"
    "  if (cap != 0u && n > cap) n = cap;\n"
    "  return n;\n"
    "}\n\n"
    "$F$U vc_nat_discover($p) {\n"
    "  if ((vc_nc_peek($AVC_NC_POLL) & VC_NC_CLOSED) == 0u && $G < vc_nat_count($a)) return $G;\n"
    "  return VC_NC_NONE;\n"
    "}\n\n";

/* ... and its join: each invocation takes its own participant number;
   the lead invocation of a late workgroup counts it. */
static const char join_direct_text[] =
    "  p = vc_nat_discover($a);\n"
    "  np = vc_nat_count($a);\n"
    "  if (p == VC_NC_NONE) np = 1u;\n"
    "  if (lin == 0u && p == VC_NC_NONE) vc_nc_add($AVC_NC_LATE, 1u);\n"
    "  if (p != VC_NC_NONE && lin == 0u) lead = 1u;\n"
    "  if (lead != 0u && p == 0u) vc_nc_store($AVC_NC_PARTICIPANTS, np);\n";

/* The ticket to the whole workgroup without workgroup memory (a program
   may use all of it): the lead invocation stores it in its workgroup's
   slot of the control buffer; after vc_nc_sync every invocation reads it.
   $R is how every invocation reads a word that the workgroup barrier
   already ordered (its slot, the closed poll, the cap): vc_nc_peek with
   the flip barrier; vc_nc_load with gridbar=counter, as at first, which in
   the OpenCL 1.2 and pre-memory-model GLSL orderings is a read-modify-write
   of one word by every invocation of the grid (docs/native.md). */
static const char slot_text[] =
    "$Fvoid vc_nat_publish($P$U t) {\n"
    "  vc_nc_store($AVC_NC_SLOTS + $G, t);\n"
    "}\n\n"
    "$F$U vc_nat_ticket($p) {\n"
    "  return $R($AVC_NC_SLOTS + $G);\n"
    "}\n\n";

/* The counter barrier (gridbar=counter), the first one: an arrival count
   that the last arriver resets before it moves the generation on. */
static const char barrier_text[] =
    "/* Waits until the generation moves on from g. Gives up after the spin\n"
    "   limit (in rounds of 1024 polls), or at once when another wait gave\n"
    "   up (the run is lost anyway, and nothing must hang). Afterwards it\n"
    "   checks its condition itself: a driver that cuts loops short\n"
    "   (lavapipe's loop budget) ends the loop without it, and the run is\n"
    "   marked untrustworthy. */\n"
    "$Fvoid vc_nat_wait($P$U g) {\n"
    "  $U limit = vc_nc_load($AVC_NC_SPIN_LIMIT);\n"
    "  $U polls = 0u;\n"
    "  $U rounds = 0u;\n"
    "  while (vc_nc_load($AVC_NC_GEN) == g) {\n"
    "    if (vc_nc_load($AVC_NC_UNTRUST) != 0u) break;\n"
    "    polls = polls + 1u;\n"
    "    if (polls == 1024u) {\n"
    "      polls = 0u;\n"
    "      rounds = rounds + 1u;\n"
    "      if (limit != 0u && rounds >= limit) break;\n"
    "    }\n"
    "  }\n"
    "  if (vc_nc_load($AVC_NC_GEN) == g) {\n"
    "    vc_nc_or($AVC_NC_UNTRUST, VC_NC_WHY_WAIT);\n"
    "    vc_nc_cas($AVC_NC_UNTRUST_AT, VC_NC_NONE, g);\n"
    "  }\n"
    "}\n\n"
    "/* The grid barrier among np participants: the workgroup finishes and\n"
    "   orders its writes at a workgroup barrier; its lead invocation arrives;\n"
    "   the last to arrive resets the count and releases the others by\n"
    "   moving the generation on; the workgroup leaves at a second workgroup\n"
    "   barrier, which orders what it reads next. Late workgroups (lead 0 in\n"
    "   every invocation) pass through the workgroup barriers only. */\n"
    "$Fvoid vc_nat_grid_barrier($P$U lead, $U np) {\n"
    "  $U g = 0u;\n"
    "  $U target = 0u;\n"
    "  vc_nc_sync();\n"
    "  if (lead != 0u) {\n"
    "    g = vc_nc_load($AVC_NC_GEN);\n"
    "    target = np + vc_nc_load($AVC_NC_PHANTOMS);\n"
    "    if (vc_nc_add($AVC_NC_ARRIVE, 1u) + 1u == target) {\n"
    "      vc_nc_store($AVC_NC_ARRIVE, 0u);\n"
    "      vc_nc_add($AVC_NC_GEN, 1u);\n"
    "    } else {\n"
    "      vc_nat_wait($Ag);\n"
    "    }\n"
    "  }\n"
    "  vc_nc_sync();\n"
    "}\n\n";

/* The flip barrier (gridbar=flip, the default): one word, ARRIVE, that
   needs no reset and no generation word. Participant 0 adds
   2^31 - (target - 1), every other participant 1, so that each complete
   barrier adds exactly 2^31: the top bit flips and the low 31 bits come
   back to what they were (0, from the launch's reset). An arrival whose
   own add flips the bit is the last and goes on; the others wait for the
   flip. A waiter cannot miss it: the next flip needs its own arrival. What
   does not change during a launch (phantoms, spin limit) comes in as
   arguments, read once; the barrier count g is the kernel's own
   (counts_barriers), stored as GEN at its end. A leaky barrier leaves low
   bits behind, which the host sees in ARRIVE after the run. */
static const char flip_text[] =
    "/* Waits until the barrier word's top bit differs from seen's. It polls\n"
    "   with relaxed loads; every 1024 polls it gives up when another wait\n"
    "   gave up (the run is lost anyway, and nothing must hang) or after the\n"
    "   spin limit (rounds of 1024 polls). After the loop it checks the\n"
    "   condition itself: a driver that cuts loops short (lavapipe's loop\n"
    "   budget) ends the loop without it, and the run is marked\n"
    "   untrustworthy; then one acquire fence orders what follows the\n"
    "   barrier after the relaxed load that saw the flip. */\n"
    "$Fvoid vc_nat_wait($P$U seen, $U g, $U limit) {\n"
    "  $U polls = 0u;\n"
    "  $U rounds = 0u;\n"
    "  while (((vc_nc_peek($AVC_NC_ARRIVE) ^ seen) & VC_NC_CLOSED) == 0u) {\n"
    "    polls = polls + 1u;\n"
    "    if (polls == 1024u) {\n"
    "      polls = 0u;\n"
    "      rounds = rounds + 1u;\n"
    "      if (vc_nc_peek($AVC_NC_UNTRUST) != 0u) break;\n"
    "      if (limit != 0u && rounds >= limit) break;\n"
    "    }\n"
    "  }\n"
    "  if (((vc_nc_peek($AVC_NC_ARRIVE) ^ seen) & VC_NC_CLOSED) == 0u) {\n"
    "    vc_nc_or($AVC_NC_UNTRUST, VC_NC_WHY_WAIT);\n"
    "    vc_nc_cas($AVC_NC_UNTRUST_AT, VC_NC_NONE, g);\n"
    "  }\n"
    "  vc_nc_acquire();\n"
    "}\n\n"
    "/* The grid barrier among np participants (and ph phantoms, tests only):\n"
    "   the workgroup finishes and orders its writes at a workgroup barrier;\n"
    "   its lead invocation arrives with one acq_rel add, participant 0's\n"
    "   2^31 - (target - 1), every other one's 1, so that the last arrival\n"
    "   flips the top bit; the others wait for the flip; the workgroup leaves\n"
    "   at a second workgroup barrier. g: the barriers this participant\n"
    "   passed before. Late workgroups pass through the workgroup barriers.\n"
    "   With gridbar=lead the workgroup barriers order memory at workgroup\n"
    "   scope only; the lead's acq_rel add and acquire fence carry the order\n"
    "   across workgroups, as in grid.sync(). */\n"
    "$Fvoid vc_nat_grid_barrier($P$U g, $U p, $U ph, $U limit, $U lead, $U np) {\n"
    "  $U target = np + ph;\n"
    "  $U add = 1u;\n"
    "  $U seen = 0u;\n"
    "  $W();\n"
    "  if (lead != 0u) {\n"
    "    if (p == 0u) add = VC_NC_CLOSED - (target - 1u);\n"
    "    seen = vc_nc_add($AVC_NC_ARRIVE, add);\n"
    "    if ((((seen + add) ^ seen) & VC_NC_CLOSED) == 0u) vc_nat_wait($Aseen, g, limit);\n"
    "  }\n"
    "  $W();\n"
    "}\n\n";

bool vc_native_flip(const vc_native_layout *nl) {
  return !nl->sp->runtime &&
         (nl->o->gridbar == VC_GRIDBAR_FLIP || nl->o->gridbar == VC_GRIDBAR_LEAD);
}

bool vc_native_lead(const vc_native_layout *nl) {
  return !nl->sp->runtime && nl->o->gridbar == VC_GRIDBAR_LEAD;
}

bool vc_native_counts_barriers(const vc_native_layout *nl) {
  return nl->sp->counts_barriers || vc_native_flip(nl);
}

/* Every invocation joins by itself: asked for, and possible (nothing
   waits, and the language has the shared runtime). */
static bool joins_direct(const vc_native_layout *nl) {
  return nl->o->join_direct && !nl->sp->runtime && !vc_native_has_grid_barrier(nl->d);
}

void vc_native_runtime(const vc_native_layout *nl, vc_strbuf *out) {
  if (joins_direct(nl)) {
    vc_native_put(nl, out, discover_direct_text);
  } else {
    if (!vc_native_has_grid_barrier(nl->d)) {
      vc_native_put(nl, out, discover_free_text);
    } else {
      vc_native_put(nl, out, nl->o->discover_cas ? discover_text : discover_add_text);
      vc_native_put(nl, out, count_text);
    }
    vc_native_put(nl, out, slot_text);
  }
  const char *bar = vc_native_flip(nl) ? flip_text : barrier_text;
  if (VC_MUTANT(NATIVE_MISSING_ACQUIRE)) {
    /* native-missing-acquire: the waiters' acquire after the wait goes (the
       flip wait's fence; the counter wait's polls relaxed) and the workgroup
       barrier after the wait is at workgroup scope; the arrival is kept */
    static const char *const no_acquire[] = {
        "  vc_nc_acquire();\n", "",
        "vc_nc_load($AVC_NC_GEN) == g", "vc_nc_peek($AVC_NC_GEN) == g",
        "vc_nc_load($AVC_NC_UNTRUST)", "vc_nc_peek($AVC_NC_UNTRUST)",
        "  }\n  $W();\n}\n", "  }\n  vc_nc_wgsync();\n}\n",
        "  }\n  vc_nc_sync();\n}\n", "  }\n  vc_nc_wgsync();\n}\n"};
    vc_strbuf t;
    vc_sb_init(&t);
    vc_sb_puts_swapped(&t, bar, no_acquire, sizeof no_acquire / sizeof no_acquire[0] / 2);
    vc_native_put(nl, out, t.data);
    vc_sb_free(&t);
  } else {
    vc_native_put(nl, out, bar);
  }
}

/* ---- the kernel body ---- */

/* The segments as one loop: the dialect's way (CUDA), or asked for. */
static bool loops_segments(const vc_native_layout *nl) {
  return nl->sp->loop_segments || nl->o->loop_segments;
}

static void wg_barrier(const vc_native_layout *nl, const char *indent, vc_strbuf *out) {
  vc_sb_puts(out, indent);
  nl->seg->barrier(out);
}

static void declarations(const vc_native_layout *nl, vc_strbuf *out) {
  const uint32_t *wg = nl->prog->workgroup;
  const char *u = nl->seg->type_name[VC_U32];
  for (unsigned a = 0; a < 3; a++) {
    vc_sb_printf(out, "  %s l%c = ", u, "xyz"[a]);
    nl->seg->builtin(VC_LOCAL_ID, a, out);
    vc_sb_puts(out, ";\n");
  }
  vc_sb_printf(out, "  %s lin = lx + ly * %uu + lz * %uu;\n", u, wg[0], wg[0] * wg[1]);
  static const char *const vars[] = {"t", "p",  "np",  "lead", "pass", "runs",
                                     "n", "it", "vwg", "vgx",  "vgy",  "vgz"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
    vc_sb_printf(out, "  %s %s = 0u;\n", u, vars[i]);
  if (vc_native_counts_barriers(nl)) vc_sb_printf(out, "  %s syncs = 0u;\n", u);
  if (vc_native_flip(nl)) vc_sb_printf(out, "  %s ph = 0u;\n  %s spin = 0u;\n", u, u);
  if (loops_segments(nl)) vc_sb_printf(out, "  %s seg = 0u;\n", u);
}

/* Ticket and participant count to the whole workgroup, through the
   control buffer (the ticket's slot, the closed poll), so that the kernel
   adds no workgroup memory to the program's. A late workgroup
   does not return: it runs no virtual workgroup, arrives at no barrier and
   leaves the pass loop at its first test. (An early return in a kernel
   with barriers, or barriers under a branch, made PoCL 3.1 take one
   invocation's branch for the whole workgroup; loops it handles.) The
   lead invocation of a participant does its arrivals and bookkeeping.
   Every invocation reads the count unconditionally: the same read under
   `if (p != VC_NC_NONE)` made lavapipe cut the loops of a one-invocation
   workgroup short (corpus/structure/single_invocation diverged). */
static void join(const vc_native_layout *nl, vc_strbuf *out) {
  if (joins_direct(nl))
    vc_native_put(nl, out, join_direct_text);
  else
    vc_native_put(nl, out,
                  "  if (lin == 0u) {\n"
                  "    t = vc_nat_discover($a);\n"
                  "    vc_nat_publish($At);\n"
                  "  }\n"
                  "  vc_nc_sync();\n"
                  "  p = vc_nat_ticket($a);\n"
                  "  np = vc_nat_count($a);\n"
                  "  if (p == VC_NC_NONE) np = 1u;\n"
                  "  if (p != VC_NC_NONE && lin == 0u) lead = 1u;\n"
                  "  if (lead != 0u && p == 0u) vc_nc_store($AVC_NC_PARTICIPANTS, np);\n");
  /* the flip barrier's settings, once per launch, in every invocation (no
     read under a branch: see above); written before the launch, so a
     relaxed load sees them; a kernel without a grid barrier needs none
     (on NVIDIA's OpenCL every load of the control buffer is volatile) */
  if (vc_native_flip(nl) && vc_native_has_grid_barrier(nl->d))
    vc_native_put(nl, out,
                  "  ph = vc_nc_peek($AVC_NC_PHANTOMS);\n"
                  "  spin = vc_nc_peek($AVC_NC_SPIN_LIMIT);\n");
}

static void grid_barrier(const vc_native_layout *nl, const char *indent, vc_strbuf *out) {
  vc_sb_puts(out, indent);
  if (vc_native_flip(nl)) vc_native_put(nl, out, "vc_nat_grid_barrier($Asyncs, p, ph, spin, ");
  else vc_native_put(nl, out, "vc_nat_grid_barrier($A");
  vc_sb_puts(out, VC_MUTANT(NATIVE_BARRIER_SHORT) ? "lead, np - 1u);\n" : "lead, np);\n");
  if (vc_native_counts_barriers(nl)) vc_sb_printf(out, "%ssyncs = syncs + 1u;\n", indent);
}

/* Participant p runs virtual workgroups p, p + np, ... of segment s with
   the virtual builtin ids; `runs` counts them for the host's check. */
static void segment_loop(const vc_native_layout *nl, uint32_t s, vc_strbuf *out) {
  const vc_program *p = nl->prog, *g = nl->d->segments[s];
  const uint32_t *wg = p->workgroup, *gr = p->grid;
  uint32_t nvwg = (uint32_t)vc_program_workgroups(p);
  vc_sb_printf(out, "    /* segment %u */\n", s);
  vc_sb_printf(out, "    n = 0u;\n    if (p < %uu) n = (%uu - 1u - p) / np + 1u;\n", nvwg, nvwg);
  vc_sb_puts(out, VC_MUTANT(NATIVE_VIRTUAL_ID) ? "    for (it = 0u; it < n; it++) {\n      vwg = p;\n" : "    for (it = 0u; it < n; it++) {\n      vwg = p + it * np;\n");
  vc_sb_printf(out,
               "      vgx = vwg %% %uu;\n      vgy = (vwg / %uu) %% %uu;\n      vgz = vwg / %uu;\n",
               gr[0], gr[0], gr[1], gr[0] * gr[1]);
  vc_sb_printf(out, "      vc_seg%u(", s);
  nl->sp->seg_args(nl, s, out);
  vc_sb_printf(out, "vgx * %uu + lx, vgy * %uu + ly, vgz * %uu + lz,\n", wg[0], wg[1], wg[2]);
  vc_sb_printf(out, "          lx, ly, lz, vgx, vgy, vgz, %uu, %uu, %uu, %uu, %uu, %uu);\n", gr[0],
               gr[1], gr[2], wg[0], wg[1], wg[2]);
  /* workgroup memory belongs to one virtual workgroup at a time */
  if ((g->nshared || vc_node_has_barrier(g->entry, VC_BARRIER_WORKGROUP)) && !VC_MUTANT(NATIVE_SHARED_REUSE))
    wg_barrier(nl, "      ", out);
  vc_sb_puts(out, "      runs = runs + 1u;\n    }\n");
  vc_native_put(nl, out,
                "    if (it != n && lead != 0u) vc_nc_or($AVC_NC_UNTRUST, VC_NC_WHY_VWG);\n");
}

/* The segments of a pass as one loop with a switch into each segment's
   call: one copy of the grid barrier and of the virtual-workgroup loop, run
   again and again, instead of fresh code after every barrier. On the H200
   the unrolled form cost about 1.1 us more per grid barrier than a loop
   around grid.sync(), whatever the barrier count: code never run before
   after every barrier. The barrier is reached by every workgroup (the break
   comes first), never under a branch. */
static void segments_looped(const vc_native_layout *nl, vc_strbuf *out) {
  const vc_program *p = nl->prog;
  const vc_native_desc *d = nl->d;
  const uint32_t *wg = p->workgroup, *gr = p->grid;
  uint32_t nvwg = (uint32_t)vc_program_workgroups(p);
  vc_sb_printf(out, "    n = 0u;\n    if (p < %uu) n = (%uu - 1u - p) / np + 1u;\n", nvwg, nvwg);
  vc_sb_puts(out, "    seg = 0u;\n    for (;;) {\n");
  vc_sb_puts(out, VC_MUTANT(NATIVE_VIRTUAL_ID) ? "      for (it = 0u; it < n; it++) {\n        vwg = p;\n" : "      for (it = 0u; it < n; it++) {\n        vwg = p + it * np;\n");
  vc_sb_printf(
      out,
      "        vgx = vwg %% %uu;\n        vgy = (vwg / %uu) %% %uu;\n        vgz = vwg / %uu;\n",
      gr[0], gr[0], gr[1], gr[0] * gr[1]);
  vc_sb_puts(out, "        switch (seg) {\n");
  for (uint32_t s = 0; s < d->nsegments; s++) {
    const vc_program *g = d->segments[s];
    vc_sb_printf(out, "        case %uu:\n          vc_seg%u(", s, s);
    nl->sp->seg_args(nl, s, out);
    vc_sb_printf(out, "vgx * %uu + lx, vgy * %uu + ly, vgz * %uu + lz,\n", wg[0], wg[1], wg[2]);
    vc_sb_printf(out, "              lx, ly, lz, vgx, vgy, vgz, %uu, %uu, %uu, %uu, %uu, %uu);\n",
                 gr[0], gr[1], gr[2], wg[0], wg[1], wg[2]);
    if ((g->nshared || vc_node_has_barrier(g->entry, VC_BARRIER_WORKGROUP)) && !VC_MUTANT(NATIVE_SHARED_REUSE))
      wg_barrier(nl, "          ", out);
    vc_sb_puts(out, "          break;\n");
  }
  vc_sb_puts(out, "        default:\n          break;\n        }\n");
  vc_sb_puts(out, "        runs = runs + 1u;\n      }\n");
  vc_native_put(nl, out,
                "      if (it != n && lead != 0u) vc_nc_or($AVC_NC_UNTRUST, VC_NC_WHY_VWG);\n");
  vc_sb_printf(out, "      seg = seg + 1u;\n      if (seg == %uu) break;\n", d->nsegments);
  grid_barrier(nl, "      ", out);
  vc_sb_puts(out, "    }\n");
}

/* One pass: [reset the flag, barrier,] the segments with a barrier
   between them and, with a flag, after the last; then the test that ends
   the loop, and a barrier before the next pass. No barrier stands under a
   branch (see join). */
static void pass_body(const vc_native_layout *nl, vc_strbuf *out) {
  const vc_native_desc *d = nl->d;
  const vc_fixpoint *fx = &d->fixpoint;
  bool flag = fx->present && fx->has_flag;
  uint32_t maxp = fx->present ? fx->max - (fx->max > 1 && VC_MUTANT(NATIVE_PASSES_SHORT)) : 1;
  if (flag) {
    vc_sb_puts(out, "    if (lead != 0u && p == 0u) ");
    nl->sp->plan_elem(fx->flag, "0u", out);
    vc_sb_puts(out, " = 0u;\n");
    grid_barrier(nl, "    ", out);
  }
  if (loops_segments(nl)) {
    segments_looped(nl, out);
    if (flag) grid_barrier(nl, "    ", out);
  } else {
    for (uint32_t s = 0; s < d->nsegments; s++) {
      segment_loop(nl, s, out);
      if (s + 1 < d->nsegments || flag) grid_barrier(nl, "    ", out);
    }
  }
  vc_sb_puts(out, "    pass = pass + 1u;\n");
  if (flag) {
    /* every invocation reads the flag: no one writes it between the grid
       barrier after the last segment and the one before the next reset,
       so the whole workgroup takes the same way out */
    vc_sb_printf(out, "    if (p == VC_NC_NONE || pass == %uu) break;\n", maxp);
    vc_sb_puts(out, "    if (");
    nl->sp->plan_elem(fx->flag, "0u", out);
    vc_sb_puts(out, " == 0u) break;\n");
  } else {
    vc_sb_printf(out, "    if (p == VC_NC_NONE || pass == %uu) break;\n", maxp);
  }
  /* the next pass; with a flag, also so that no reset races a read */
  if (flag || maxp > 1) grid_barrier(nl, "    ", out);
}

void vc_native_kernel_body(const vc_native_layout *nl, vc_strbuf *out) {
  declarations(nl, out);
  join(nl, out);
  vc_sb_puts(out, "  for (;;) {\n");
  pass_body(nl, out);
  vc_sb_puts(out, "  }\n");
  /* the host reads the counts after the kernel has ended: nothing needs
     ordering, and a fenced add by every participant's lead is a cost a
     kernel without a grid barrier shows */
  vc_native_put(nl, out,
                "  if (lead != 0u) {\n"
                "    vc_nc_add_relaxed($AVC_NC_VWG_RUNS, runs);\n"
                "    if (p == 0u) vc_nc_store($AVC_NC_PASSES, pass);\n");
  if (vc_native_counts_barriers(nl))
    vc_native_put(nl, out, "    if (p == 0u) vc_nc_store($AVC_NC_GEN, syncs);\n");
  vc_sb_puts(out, "  }\n");
}

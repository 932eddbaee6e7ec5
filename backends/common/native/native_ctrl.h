/* The control buffer of a native kernel (docs/native.md).
 *
 * A native kernel binds the plan buffers and then one control buffer of
 * VC_NC_WORDS u32 words. The plugin allocates it, writes it before every
 * launch (vc_native_ctrl_init: barrier state reset, settings), and reads it
 * back after the launch (vc_native_ctrl_stats). The generated kernel names
 * the same words (cgen_native.c writes these numbers as #defines), so this
 * header is the one place the layout is written down. */
#ifndef VC_NATIVE_CTRL_H
#define VC_NATIVE_CTRL_H

#include <stdbool.h>
#include <stdint.h>

#include "backends/backend.h"

/* Words the kernel writes. */
#define VC_NC_POLL 0u         /* discovery: VC_NC_CLOSED | tickets taken (with cas), or
                                 VC_NC_CLOSED | the participants once closed (add) */
#define VC_NC_ARRIVE 1u       /* grid barrier: arrivals at the current barrier */
#define VC_NC_GEN 2u          /* grid barrier: generation = barriers completed */
#define VC_NC_UNTRUST 3u      /* VC_NC_WHY_* bits; 0 = every wait saw its condition */
#define VC_NC_UNTRUST_AT 4u   /* generation of the first wait that gave up, else ~0 */
#define VC_NC_PARTICIPANTS 5u /* participant count, written by participant 0 */
#define VC_NC_PASSES 6u       /* fixpoint passes run, written by participant 0 */
#define VC_NC_VWG_RUNS 7u     /* virtual workgroups run, summed over all segments and passes */
#define VC_NC_LATE 8u         /* workgroups that found the poll closed and left */
/* Words the plugin sets (the kernel only reads them). */
#define VC_NC_CAP 9u          /* most participants; 0 = no cap */
#define VC_NC_SPIN_LIMIT 10u  /* rounds of 1024 polls a wait makes before it gives up; 0 = none */
#define VC_NC_WINDOW 11u      /* polls a ticket holder makes before closing the poll */
#define VC_NC_PHANTOMS 12u    /* tests only: arrivals a barrier waits for that never come */
#define VC_NC_EXPECT 13u      /* tickets after which a ticket holder closes the poll; 0 = none */
/* Written by the kernel again (native-discovery=add). */
#define VC_NC_TICKETS 14u     /* discovery: tickets taken, by fetch-and-add */
#define VC_NC_WORDS 16u       /* the words above, written before every launch */
/* Then one word per launched workgroup, VC_NC_SLOTS + its group id: where
   the lead invocation leaves the workgroup's ticket for the others (no
   workgroup memory of the program's is taken). Never reset: each
   workgroup writes its own before reading it. */
#define VC_NC_SLOTS VC_NC_WORDS

#define VC_NC_CLOSED 0x80000000u /* in VC_NC_POLL: no more tickets */
#define VC_NC_NONE 0xffffffffu   /* no ticket: a late workgroup */

/* Why a run is untrustworthy (VC_NC_UNTRUST). */
#define VC_NC_WHY_WAIT 1u /* a grid-barrier wait ended with the generation unchanged */
#define VC_NC_WHY_VWG 2u  /* a virtual-workgroup loop ended before its last workgroup */

/* What the plugin writes into the settings words. */
typedef struct vc_native_ctrl_opts {
  uint32_t cap;        /* VC_NC_CAP */
  uint32_t spin_limit; /* VC_NC_SPIN_LIMIT */
  uint32_t window;     /* VC_NC_WINDOW */
  uint32_t phantoms;   /* VC_NC_PHANTOMS */
  uint32_t expect;     /* VC_NC_EXPECT */
} vc_native_ctrl_opts;

/* Words of the control buffer of a kernel launched with `launched`
   workgroups: the VC_NC_WORDS words and a slot per workgroup. */
static inline uint32_t vc_native_ctrl_words(uint32_t launched) { return VC_NC_SLOTS + launched; }

/* What the host needs to judge a finished run: taken from the kernel's
   description at compile time (vc_native_shape_of). */
typedef struct vc_native_shape {
  uint32_t virtual_wgs;  /* the program's workgroups */
  uint32_t nsegments;
  uint32_t max_passes;   /* 1 without a fixpoint */
  bool has_flag;
  bool cooperative;      /* CUDA: every launched block participates */
} vc_native_shape;

void vc_native_shape_of(const vc_kernel_desc *k, bool cooperative, vc_native_shape *s);

/* A run of d can complete a grid barrier: more than one segment, or a
   fixpoint of more than one pass or with a flag. A kernel without one
   needs no co-residency: every launched workgroup up to the cap
   participates, without discovery (docs/native.md). */
bool vc_native_has_grid_barrier(const vc_native_desc *d);

/* The words to write before a launch: zero state, the settings. */
void vc_native_ctrl_init(uint32_t words[VC_NC_WORDS], const vc_native_ctrl_opts *o);

/* Grid barriers a run of `passes` passes executes (docs/native.md). */
uint64_t vc_native_expected_barriers(const vc_native_shape *s, uint32_t passes);

/* Fills stats from the words read back after a launch of `launched`
   physical workgroups. Beyond the kernel's own untrustworthy bits, every
   count that differs from what the passes imply (barriers, virtual
   workgroups run, participants) makes the run untrustworthy; the note
   says which. */
void vc_native_ctrl_stats(const uint32_t words[VC_NC_WORDS], const vc_native_shape *s,
                          uint32_t launched, vc_native_stats *stats);

#endif

/* harness/split: the backend-neutral splitter and its plan. */
/* The backend-neutral splitter (docs/splitter.md).
 *
 * Cuts a program at each top-level grid barrier into segment programs that
 * any backend (and the oracle) can run as plain launches, and writes down the
 * plan that threads buffers between them: which buffers each segment binds
 * and how, which values it reloads from and saves to per-invocation spill
 * buffers, and the host traffic each mode must show. */
#ifndef VC_SPLIT_H
#define VC_SPLIT_H

#include <stdint.h>

#include "backends/backend.h"
#include "harness/base/error.h"
#include "harness/model/program.h"
#include "harness/base/strbuf.h"

typedef struct vc_split_segment {
  vc_program *prog;      /* no grid barrier, no fixpoint; buffers: those it touches */
  uint32_t *bind;        /* bind[k]: plan index of prog->buffers[k] */
  uint32_t nbind;
  uint32_t *sbind;       /* sbind[k]: source program shared array of prog->shared[k] */
  uint32_t nsbind;
  uint32_t *spill_in;    /* symbols (of the source program) reloaded at the start */
  uint32_t nspill_in;
  uint32_t *spill_out;   /* symbols saved at the end and before each return */
  uint32_t nspill_out;
  uint32_t *remat;       /* lets recomputed at the start instead of spilled */
  uint32_t nremat;
  uint64_t up_bytes;     /* host-split, per pass: bound buffers whose contents it needs */
  uint64_t down_bytes;   /* host-split, per pass: bound buffers it writes */
} vc_split_segment;

typedef struct vc_split {
  vc_arena arena;        /* owns everything below except segment programs */
  const vc_program *src; /* not owned */
  vc_buffer *buffers;    /* plan table: the source program's buffers, then spills */
  uint32_t nbuffers;
  uint32_t nuser;        /* == src->nbuffers */
  uint32_t *spill_sym;   /* for plan buffer nuser + i: the symbol it holds */
  vc_split_segment *segs;
  uint32_t nsegs;
  uint32_t barriers;     /* grid barriers in the source */
  /* what one pass moves in each mode, and what a whole run adds */
  uint64_t resident_up_once;   /* initial contents of read and read_write buffers */
  uint64_t resident_down_once; /* the outputs */
  uint64_t flag_bytes_per_pass;/* 4 with a fixpoint flag (each way), else 0 */
} vc_split;

int vc_split_program(const vc_program *p, vc_split **out, vc_error *err);
void vc_split_free(vc_split *s);

/* The pieces of a native kernel (backends/backend.h), pointing into s. The
   arrays live as long as s. */
void vc_split_native_desc(const vc_split *s, vc_native_desc *d);

/* Human-readable plan for `vyre-conform split`; with_programs also prints
   every segment program. */
void vc_split_describe(const vc_split *s, int with_programs, vc_strbuf *out);

/* Is plan buffer i a host-visible output (a user buffer that is not read-only)? */
int vc_split_is_output(const vc_split *s, uint32_t i);

#endif

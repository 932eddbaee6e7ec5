/* The CUDA plugin's objects and the operations each of its files provides.
 * Nothing here leaves the plugin: it exports only vyre_conform_backend. */
#ifndef VC_CUDA_INTERNAL_H
#define VC_CUDA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/backend.h"
#include "harness/base/kcache.h"
#include "backends/common/native/native_ctrl.h"
#include "backends/cuda/cuda_driver.h"
#include "backends/cuda/cuda_limits.h"

#define VC_CUDA_DEFAULT_STAGING (32u << 20) /* pinned bytes, in two halves */
#define VC_CUDA_MIN_STAGING (8u << 10)
#define VC_CUDA_DEFAULT_TARGET "sm_90"      /* compile_offline without a target */
#define VC_CUDA_DEFAULT_DEADLINE_S 30u
#define VC_CUDA_MAX_DEADLINE_S 86400u
#define VC_CUDA_DEFAULT_GRAPH_MIN 3u /* batches of fewer launches go on the stream */
/* native kernels: the written-out grid barrier with grid.sync()'s own orders
   (faster per barrier than cooperative_groups' on the H200, and a 25x
   quicker NVRTC compile: docs/performance.md) */
#define VC_CUDA_DEFAULT_INLINE_BARRIER 1
#define VC_CUDA_DEFAULT_INLINE_ORDER VC_CUDA_INLINE_RELEASE

/* "timing=...": how launches get their device times (docs/backend-cuda.md).
   stamps: graph batches from the device clock each segment kernel reads
   at its start (cuda_stamps.c), other launches from events; launch: an
   event after every launch; none: no device times. */
#define VC_CUDA_TIMING_LIST(X) X(STAMPS, "stamps") X(LAUNCH, "launch") X(NONE, "none")
typedef enum vc_cuda_timing_mode {
#define VC_CUDA_TIMING_ENUM(n, s) VC_CUDA_TIMING_##n,
  VC_CUDA_TIMING_LIST(VC_CUDA_TIMING_ENUM)
#undef VC_CUDA_TIMING_ENUM
} vc_cuda_timing_mode;
#define VC_CUDA_DEFAULT_TIMING VC_CUDA_TIMING_STAMPS
/* "stamp-memory=...": where the kernels write their stamps. host: pinned
   host memory mapped for the device, read in place; device: device
   memory, copied back once per finish. */
#define VC_CUDA_STAMP_MEMORY_LIST(X) X(HOST, "host") X(DEVICE, "device")
typedef enum vc_cuda_stamp_memory {
#define VC_CUDA_STAMP_MEMORY_ENUM(n, s) VC_CUDA_STAMP_##n,
  VC_CUDA_STAMP_MEMORY_LIST(VC_CUDA_STAMP_MEMORY_ENUM)
#undef VC_CUDA_STAMP_MEMORY_ENUM
} vc_cuda_stamp_memory;
#define VC_CUDA_DEFAULT_STAMP_MEMORY VC_CUDA_STAMP_HOST
#define VC_CUDA_NO_SLOT UINT32_MAX

/* open's options ("key=value,..."). */
typedef struct vc_cuda_options {
  uint64_t staging;       /* "staging=BYTES": the pinned staging buffer */
  int malloc_host;        /* "host-memory=malloc": host_alloc gives pageable memory, copied
                             through staging (the path of memory from elsewhere) */
  uint32_t deadline_ms;   /* "deadline=SECONDS": how long finish waits */
  uint32_t native_blocks; /* "native-blocks=N": most blocks of a native launch; 0 = no cap */
  uint32_t native_over;   /* "native-over=N", tests only: blocks over the co-resident ones */
  char include[512];      /* "include=DIR": cooperative_groups.h for native kernels; "" = found */
  int timing;             /* "timing=...": vc_cuda_timing_mode */
  int stamp_memory;       /* "stamp-memory=...": vc_cuda_stamp_memory */
  char cache_dir[VC_KCACHE_DIR_MAX]; /* "cache=DIR": cubins or PTX from NVRTC; "" = none */
  int inline_barrier;     /* "barrier=inline" (default) or "cg": without cooperative_groups.h */
  int launch_stream;      /* "launch=stream": each launch on the stream as it comes, no graph */
  uint32_t graph_min;     /* "graph-min=N": the fewest launches a batch sends as a graph */
  int graph_instantiate;  /* "graph-update=instantiate": a new graph for every batch */
  int inline_order;       /* "inline-order=...": vc_cuda_inline, its memory orders */
  int module_ptx;         /* "module=ptx": load PTX (the driver's JIT) even where a cubin can be made */
} vc_cuda_options;

/* Host memory host_alloc handed out; copies of pinned memory skip staging. */
typedef struct vc_cuda_host {
  unsigned char *p;
  uint64_t bytes;
  bool pinned; /* cuMemHostAlloc, else malloc (host-memory=malloc) */
} vc_cuda_host;

/* One launch: its bracketing events (indices into the device's pool), or
   its stamp slots (stamp, the start, and stamp + 1, the next launch's
   start or the batch's end; VC_CUDA_NO_SLOT on the stream), and its
   kernel, named when finish gives up. A launch of a stamped batch has no
   start event; its end is the batch's one event. */
typedef struct vc_cuda_timing {
  uint32_t start, end;
  uint32_t stamp;
  char label[128];
} vc_cuda_timing;

/* A segment launch held back for the next batch (launch=graph): all a
   kernel node needs, by value. stamp: the address of its stamp slot, the
   kernel's last parameter (0: no stamp). */
typedef struct vc_cuda_node {
  CUfunction fn;
  uint32_t grid[3], block[3];
  uint32_t nbufs;
  CUdeviceptr ptrs[VC_MAX_BUFFERS];
  CUdeviceptr stamp;
} vc_cuda_node;

/* The instantiated graph of the last batch sent as one (cuda_graph.c),
   kept for the next batch of the same shape: n kernel nodes in a chain;
   timing=launch, an event node before the first and after each;
   timing=stamps, the stamp kernel's node and one event node after the
   last; timing=none, nothing else. */
typedef struct vc_cuda_graph {
  CUgraph graph;
  CUgraphExec exec;
  uint32_t n;
  int timing;            /* vc_cuda_timing_mode */
  vc_cuda_node *nodes;   /* n: the parameters the exec holds */
  CUgraphNode *knodes;   /* n */
  CUgraphNode *enodes;   /* launch: n + 1; stamps: 1 */
  CUevent *events;       /* the events the exec records, as enodes */
  CUgraphNode snode;     /* stamps: the stamp kernel after the last launch */
  CUdeviceptr sslot;     /* the slot it writes */
} vc_cuda_graph;

/* timing=stamps (cuda_stamps.c): the slots of the graph batches sent
   since the last finish, each a 64-bit %globaltimer value (ns), 0 until
   written, and the one-thread kernel that stamps a batch's end. */
/* The stamp slots' memory. */
typedef struct vc_cuda_stamp_slots {
  uint64_t *host;     /* what the host reads: the mapped slots, or the copy (device) */
  CUdeviceptr dptr;   /* what the kernels write */
  CUdeviceptr dmem;   /* stamp-memory=device: the device memory (dptr); else 0 */
} vc_cuda_stamp_slots;

typedef struct vc_cuda_stamps {
  vc_cuda_stamp_slots mem;
  uint32_t cap, used; /* slots; used since the last finish */
  uint32_t read;      /* stamp-memory=device: slots already copied into host */
  CUmodule mod;       /* the stamp kernel, loaded at the first stamped batch */
  CUfunction fn;
  uint64_t untimed; /* launches given no time: a stamp missing or going backwards */
} vc_cuda_stamps;

/* What the graph path did since open, for tests and the bench. */
typedef struct vc_cuda_graph_stats {
  uint64_t batches;      /* flushes of held-back launches */
  uint64_t graphs;       /* of them sent as a graph */
  uint64_t instantiated; /* graphs built and instantiated */
  uint64_t node_updates; /* kernel or event nodes set in place */
} vc_cuda_graph_stats;

struct vc_dev {
  const vc_cu *cu;
  uint32_t index;
  CUdevice device;
  CUcontext ctx; /* the primary context, retained */
  CUstream stream;
  char name[256];
  char label[300]; /* "NVIDIA H200 (CUDA device 0)", for messages */
  int cc_major, cc_minor;
  char arch[32];   /* NVRTC target, found at the first compile */
  vc_cuda_limits limits;
  vc_cuda_options opts;
  /* pinned staging: two halves, so that copying one half on the host
     overlaps the transfer of the other */
  unsigned char *stage;
  size_t stage_half;
  CUevent stage_done[2];
  /* what host_alloc gave and host_free has not taken back */
  vc_cuda_host *hosts;
  uint32_t nhosts, host_cap;
  /* launches since the last finish, and the events they use; events are
     created once and reused */
  vc_cuda_timing *timings;
  uint32_t pending, cap;
  CUevent *events;
  uint32_t used_events, created_events, event_cap;
  /* 1 + the event that ended the last launch while nothing else has been
     enqueued after it (the next launch starts there), else 0 */
  uint32_t chain;
  /* launch=graph: the segment launches held back since the last flush
     (timings[batch_first ..] are theirs), and the graph kept for reuse */
  bool use_graph;        /* launch=graph and the driver has the graph calls */
  vc_cuda_node *batch;
  uint32_t nbatch, batch_cap, batch_first;
  vc_cuda_graph graph;
  vc_cuda_graph_stats gstats;
  vc_cuda_stamps stamps;
};

struct vc_buf {
  CUdeviceptr ptr;
  uint64_t bytes;
};

struct vc_kern {
  CUmodule module;
  CUfunction fn;
  uint32_t nbufs;     /* buffers bound (native: the plan's, without the control buffer) */
  vc_cuda_shape shape; /* native: the grid is the blocks launched */
  char label[128];
  /* native kernels only (cuda_native.c) */
  bool native;
  bool ran;            /* launched since compile: native_stats has words to read */
  vc_native_shape nshape;
  vc_buf ctrl;         /* the control buffer */
  uint32_t *ctrl_init; /* pinned: the words written before every launch */
  CUdeviceptr *ptrs;   /* the launch's parameters: plan buffers, then ctrl */
  void **params;
};

/* cuda_device.c */
int vc_cuda_parse_options(const char *text, vc_cuda_options *opts, vc_error *err);
int vc_cuda_device_count(uint32_t *count, vc_error *err);
int vc_cuda_open(uint32_t index, const char *options, vc_dev **dev, vc_error *err);
void vc_cuda_close(vc_dev *dev);
/* Anything enqueued on the stream but a launch: the next launch records
   its own start event. */
static inline void vc_cuda_unchain(vc_dev *dev) { dev->chain = 0; }
/* Makes dev's context current on the calling thread (every operation starts
   so), then sends any launches held back for a graph (vc_cuda_flush), so
   that what the operation enqueues comes after them. */
int vc_cuda_enter(vc_dev *dev, const char *op, vc_error *err);
/* One device attribute; VC_CUDA_ATTR(dev, MAX_THREADS_PER_BLOCK, &v, err). */
int vc_cuda_attr(vc_dev *dev, CUdevice_attribute a, const char *name, int *value, vc_error *err);
#define VC_CUDA_ATTR(dev, a, v, err) vc_cuda_attr(dev, CU_DEVICE_ATTRIBUTE_##a, #a, v, err)

/* cuda_describe.c */
int vc_cuda_describe(vc_dev *dev, vc_device_info *info, vc_error *err);
/* 16 UUID bytes as 32 lowercase hex digits. */
void vc_cuda_uuid_hex(const unsigned char bytes[16], char *out, size_t n);

/* cuda_memory.c */
int vc_cuda_alloc(vc_dev *dev, uint64_t bytes, vc_buf **buf, vc_error *err);
void vc_cuda_free_buffer(vc_dev *dev, vc_buf *buf);
int vc_cuda_upload(vc_dev *dev, vc_buf *buf, const void *src, uint64_t bytes, vc_error *err);
int vc_cuda_download(vc_dev *dev, vc_buf *buf, void *dst, uint64_t bytes, vc_error *err);
int vc_cuda_zero(vc_dev *dev, vc_buf *buf, vc_error *err);
int vc_cuda_host_alloc(vc_dev *dev, uint64_t bytes, void **p, vc_error *err);
void vc_cuda_host_free(vc_dev *dev, void *p);
/* At close, in the device's context: what host_free was not given. */
void vc_cuda_host_free_all(vc_dev *dev);

/* cuda_kernel.c */
/* "sm_90", "sm_90a", "compute_90" → the NVRTC architecture ("compute_90"). */
int vc_cuda_target_arch(const char *target, char *arch, size_t n, vc_error *err);
int vc_cuda_emit(const vc_kernel_desc *k, vc_dev *dev, char **source, vc_error *err);
int vc_cuda_compile_offline(const vc_kernel_desc *k, const char *target, void **binary,
                            size_t *size, char **log, vc_error *err);
int vc_cuda_compile(vc_dev *dev, const vc_kernel_desc *k, vc_kern **kern, vc_compile_info *info,
                    vc_error *err);
void vc_cuda_free_kernel(vc_dev *dev, vc_kern *kern);

/* cuda_launch.c */
int vc_cuda_launch(vc_dev *dev, vc_kern *kern, vc_buf *const *bufs, uint32_t nbufs,
                   vc_error *err);
int vc_cuda_finish(vc_dev *dev, uint64_t *device_ns, uint32_t cap, uint32_t *count,
                   vc_error *err);
/* The stream path of one held-back launch (cuda_graph.c sends small
   batches so): its events as the stream path records them. */
int vc_cuda_stream_node(vc_dev *dev, const vc_cuda_node *nd, vc_cuda_timing *t, vc_error *err);
/* The next event of the device's pool (index into dev->events). */
int vc_cuda_next_event(vc_dev *dev, uint32_t *index, vc_error *err);
/* The device times of graph batches: timing=stamps (the option) and a
   batch big enough to be a graph. */
static inline bool vc_cuda_stamped(const vc_dev *dev) {
  return dev->opts.timing == VC_CUDA_TIMING_STAMPS;
}

/* cuda_stamps.c: timing=stamps, the stamp slots and the stamp kernel */
/* n fresh slots for a batch (zeroed: 0 is "not written"), the first in
   *first, their device addresses from vc_cuda_stamp_addr; loads the stamp
   kernel the first time. Growing the slots waits for the stream (what was
   stamped is kept). The context is current. */
int vc_cuda_stamps_take(vc_dev *dev, uint32_t n, uint32_t *first, vc_error *err);
static inline CUdeviceptr vc_cuda_stamp_addr(const vc_dev *dev, uint32_t slot) {
  return dev->stamps.mem.dptr + 8u * (CUdeviceptr)slot;
}
/* After the stream is synchronised: the slots made readable (device: one
   copy of those not yet read). */
int vc_cuda_stamps_collect(vc_dev *dev, vc_error *err);
/* Launch t's device time from its slots: 0 when a stamp is missing (0) or
   the next one is not later (counted in stamps.untimed). */
uint64_t vc_cuda_stamp_ns(vc_dev *dev, const vc_cuda_timing *t);
/* Launch t done, as far as its stamps tell (host memory only: the next
   stamp written); false when they cannot tell. */
bool vc_cuda_stamp_done(const vc_dev *dev, const vc_cuda_timing *t);
/* The slots free again (finish). */
static inline void vc_cuda_stamps_reset(vc_dev *dev) {
  dev->stamps.used = dev->stamps.read = 0;
}
/* At close, in the device's context, the stream synchronised. */
void vc_cuda_stamps_free(vc_dev *dev);

/* cuda_graph.c: batches of segment launches as one CUDA graph */
/* Sends the held-back launches: on the stream when fewer than graph-min,
   else as a graph (the kept one, updated in place, when the shape is the
   same). The context is current. On failure the batch's launches are
   dropped from the pending ones, and the message names them. */
int vc_cuda_flush(vc_dev *dev, vc_error *err);
/* The kept graph is destroyed when it launches fn (any graph: NULL), e.g.
   before fn's module is unloaded. */
void vc_cuda_graph_forget(vc_dev *dev, CUfunction fn);

/* cuda_native.c: native kernels, launched cooperatively (docs/native.md) */
/* VC_ERR_UNSUPPORTED when the device cannot launch cooperatively. */
int vc_cuda_native_check(vc_dev *dev, const char *label, vc_error *err);
/* After the module is loaded: the blocks each launch gets (co-resident, at
   most the program's workgroups and native-blocks), the control buffer, the
   parameter arrays. */
int vc_cuda_native_setup(vc_dev *dev, const vc_kernel_desc *k, vc_kern *kern, vc_error *err);
/* Before a launch: the control words reset on the stream, the parameters
   filled (bufs in plan order). */
int vc_cuda_native_prepare(vc_dev *dev, vc_kern *kern, vc_buf *const *bufs, vc_error *err);
/* Device objects only when entered (the context is current and the stream
   synchronised). */
void vc_cuda_native_free(vc_dev *dev, vc_kern *kern, bool entered);
int vc_cuda_native_stats(vc_dev *dev, vc_kern *kern, vc_native_stats *stats, vc_error *err);

#endif

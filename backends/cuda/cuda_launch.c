/* Launches on the device's stream, each bracketed by a pair of events, and
 * finish, which waits (up to the deadline) and reads each launch's device
 * time: from its events, or from its stamps (timing=stamps, cuda_stamps.c).
 * With launch=graph a segment launch is only noted here; the batch
 * goes out as a graph (cuda_graph.c) at finish or before any other
 * operation, and small batches come back here through vc_cuda_stream_node.
 *
 * Back-to-back launches share events: the event that ends one launch is
 * where the next one starts, since nothing else stands between them on the
 * stream. That is the same measurement as a fresh start event (recorded at
 * the same place in the stream) at one event record per launch instead of
 * two. Anything else enqueued in between (a copy, a memset, a control
 * buffer reset) breaks the chain (vc_cuda_unchain). */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/cuda/cuda_internal.h"
#include "harness/base/clock.h"

static int grow(void **p, uint32_t *cap, size_t size, vc_dev *dev, vc_error *err) {
  uint32_t n = *cap ? 2 * *cap : 64;
  void *q = realloc(*p, n * size);
  if (!q) return vc_fail(err, VC_ERR_NOMEM, "launch on %s: no memory for events", dev->label);
  *p = q;
  *cap = n;
  return 0;
}

/* The next free event of the pool, creating it the first time. */
int vc_cuda_next_event(vc_dev *dev, uint32_t *index, vc_error *err) {
  if (dev->used_events == dev->event_cap) {
    void *p = dev->events;
    int rc = grow(&p, &dev->event_cap, sizeof *dev->events, dev, err);
    dev->events = p;
    if (rc != 0) return rc;
  }
  if (dev->used_events == dev->created_events) {
    CUresult r = dev->cu->cuEventCreate(&dev->events[dev->created_events], CU_EVENT_DEFAULT);
    if (r != CUDA_SUCCESS)
      return vc_cu_fail(dev->cu, err, r, "launch: cuEventCreate on %s", dev->label);
    dev->created_events++;
  }
  *index = dev->used_events++;
  return 0;
}

/* The launch record at timings[pending], not yet counted: its label, no
   events yet. */
static int new_timing(vc_dev *dev, const char *label, vc_cuda_timing **out, vc_error *err) {
  if (dev->pending == dev->cap) {
    void *p = dev->timings;
    int rc = grow(&p, &dev->cap, sizeof *dev->timings, dev, err);
    dev->timings = p;
    if (rc != 0) return rc;
  }
  vc_cuda_timing *t = &dev->timings[dev->pending];
  memcpy(t->label, label, sizeof t->label);
  t->start = t->end = UINT32_MAX;
  t->stamp = VC_CUDA_NO_SLOT;
  *out = t;
  return 0;
}

/* The start event: the last launch's end when the chain holds, else a
   fresh one recorded now. */
static int start_event(vc_dev *dev, vc_cuda_timing *t, vc_error *err) {
  if (dev->chain) {
    t->start = dev->chain - 1;
    return 0;
  }
  int rc = vc_cuda_next_event(dev, &t->start, err);
  if (rc != 0) return rc;
  CUresult r = dev->cu->cuEventRecord(dev->events[t->start], dev->stream);
  if (r != CUDA_SUCCESS)
    return vc_cu_fail(dev->cu, err, r, "%s: cuEventRecord on %s", t->label, dev->label);
  return 0;
}

static int end_event(vc_dev *dev, vc_cuda_timing *t, vc_error *err) {
  int rc = vc_cuda_next_event(dev, &t->end, err);
  if (rc != 0) return rc;
  CUresult r = dev->cu->cuEventRecord(dev->events[t->end], dev->stream);
  if (r != CUDA_SUCCESS)
    return vc_cu_fail(dev->cu, err, r, "%s: cuEventRecord on %s", t->label, dev->label);
  dev->chain = t->end + 1;
  return 0;
}

/* kernel parameter k is buffer k's device address (backends/common/cgen/cgen.h) */
static void fill_node(vc_cuda_node *nd, const vc_kern *kern, vc_buf *const *bufs,
                      uint32_t nbufs) {
  nd->fn = kern->fn;
  memcpy(nd->grid, kern->shape.grid, sizeof nd->grid);
  memcpy(nd->block, kern->shape.block, sizeof nd->block);
  nd->nbufs = nbufs;
  for (uint32_t i = 0; i < nbufs; i++) nd->ptrs[i] = bufs[i]->ptr;
  nd->stamp = 0; /* a graph batch with stamps sets it when it goes out */
}

static int launch_segment(vc_dev *dev, const vc_cuda_node *nd, const char *label,
                          vc_error *err) {
  CUdeviceptr ptrs[VC_MAX_BUFFERS + 1];
  void *params[VC_MAX_BUFFERS + 1];
  for (uint32_t i = 0; i < nd->nbufs; i++) ptrs[i] = nd->ptrs[i];
  ptrs[nd->nbufs] = nd->stamp; /* the stamp slot, last: 0 on the stream */
  for (uint32_t i = 0; i <= nd->nbufs; i++) params[i] = &ptrs[i];
  const uint32_t *g = nd->grid, *b = nd->block;
  CUresult r = dev->cu->cuLaunchKernel(nd->fn, g[0], g[1], g[2], b[0], b[1], b[2], 0, dev->stream,
                                       params, NULL);
  if (r != CUDA_SUCCESS)
    return vc_cu_fail(dev->cu, err, r,
                      "%s: cuLaunchKernel (grid %ux%ux%u, block %ux%ux%u) on %s", label, g[0],
                      g[1], g[2], b[0], b[1], b[2], dev->label);
  return 0;
}

int vc_cuda_stream_node(vc_dev *dev, const vc_cuda_node *nd, vc_cuda_timing *t, vc_error *err) {
  bool timed = dev->opts.timing != VC_CUDA_TIMING_NONE;
  int rc = timed ? start_event(dev, t, err) : 0;
  if (rc == 0) rc = launch_segment(dev, nd, t->label, err);
  if (rc == 0 && timed) rc = end_event(dev, t, err);
  return rc;
}

/* One-dimensional grid of the co-resident blocks; parameters prepared by
   vc_cuda_native_prepare. */
static int launch_native(vc_dev *dev, vc_kern *kern, vc_error *err) {
  const uint32_t *g = kern->shape.grid, *b = kern->shape.block;
  CUresult r = dev->cu->cuLaunchCooperativeKernel(kern->fn, g[0], 1, 1, b[0], b[1], b[2], 0,
                                                  dev->stream, kern->params);
  if (r != CUDA_SUCCESS)
    return vc_cu_fail(dev->cu, err, r,
                      "%s: cuLaunchCooperativeKernel (%u blocks of %ux%ux%u) on %s", kern->label,
                      g[0], b[0], b[1], b[2], dev->label);
  return 0;
}

/* launch=graph: the launch is only noted, for the next flush (no driver
   call: the batch goes out at finish or before anything else is enqueued). */
static int hold_back(vc_dev *dev, vc_kern *kern, vc_buf *const *bufs, uint32_t nbufs,
                     vc_error *err) {
  vc_cuda_timing *t;
  int rc = new_timing(dev, kern->label, &t, err);
  if (rc != 0) return rc;
  if (dev->nbatch == dev->batch_cap) {
    void *p = dev->batch;
    rc = grow(&p, &dev->batch_cap, sizeof *dev->batch, dev, err);
    dev->batch = p;
    if (rc != 0) return rc;
  }
  if (dev->nbatch == 0) dev->batch_first = dev->pending;
  fill_node(&dev->batch[dev->nbatch++], kern, bufs, nbufs);
  dev->pending++;
  return 0;
}

int vc_cuda_launch(vc_dev *dev, vc_kern *kern, vc_buf *const *bufs, uint32_t nbufs,
                   vc_error *err) {
  if (nbufs != kern->nbufs || (!kern->native && nbufs > VC_MAX_BUFFERS))
    return vc_fail(err, VC_ERR_USAGE, "%s on %s: %u buffers bound, the kernel has %u",
                   kern->label, dev->label, nbufs, kern->nbufs);
  int rc = vc_cuda_check_limits(&dev->limits, &kern->shape, kern->label, dev->label, err);
  if (rc != 0) return rc;
  /* native launches (one per run, cooperative) never go into a graph */
  if (dev->use_graph && !kern->native) return hold_back(dev, kern, bufs, nbufs, err);
  rc = vc_cuda_enter(dev, "launch", err);
  /* the control words are reset before the start event: not device time */
  if (rc == 0 && kern->native) rc = vc_cuda_native_prepare(dev, kern, bufs, err);
  vc_cuda_timing *t = NULL;
  bool timed = dev->opts.timing != VC_CUDA_TIMING_NONE;
  if (rc == 0) rc = new_timing(dev, kern->label, &t, err);
  if (rc == 0 && kern->native) {
    if (timed) rc = start_event(dev, t, err);
    if (rc == 0) rc = launch_native(dev, kern, err);
    if (rc == 0 && timed) rc = end_event(dev, t, err);
  } else if (rc == 0) {
    vc_cuda_node nd;
    fill_node(&nd, kern, bufs, nbufs);
    rc = vc_cuda_stream_node(dev, &nd, t, err);
  }
  if (rc == 0) {
    dev->pending++;
    return 0;
  }
  vc_cuda_unchain(dev);
  return rc;
}

/* Launch t done, as its end event or its stamps tell; false when neither
   can. */
static bool launch_done(const vc_dev *dev, const vc_cuda_timing *t) {
  if (t->stamp != VC_CUDA_NO_SLOT) return vc_cuda_stamp_done(dev, t);
  return t->end != UINT32_MAX && dev->cu->cuEventQuery(dev->events[t->end]) == CUDA_SUCCESS;
}

/* Polls `last`, an event after the n launches: the first 2 ms by yielding
   (a short kernel is seen within microseconds), then every 100 us.
   VC_ERR_TIMEOUT names the first launch not yet done (with per-launch
   events or stamps in host memory; else the first of those that cannot
   tell). */
static int wait_deadline(vc_dev *dev, uint32_t n, CUevent last, vc_error *err) {
  const vc_cu *cu = dev->cu;
  uint64_t start = vc_now_ns(), limit = (uint64_t)dev->opts.deadline_ms * 1000000u;
  for (;;) {
    CUresult r = cu->cuEventQuery(last);
    if (r == CUDA_SUCCESS) return 0;
    if (r != CUDA_ERROR_NOT_READY)
      return vc_cu_fail(cu, err, r, "finish: cuEventQuery after %u launches on %s", n,
                        dev->label);
    uint64_t waited = vc_now_ns() - start;
    if (waited >= limit) break;
    if (waited < 2000000u) {
      sched_yield();
    } else {
      struct timespec nap = {0, 100000};
      nanosleep(&nap, NULL);
    }
  }
  uint32_t first = 0;
  while (first + 1 < n && launch_done(dev, &dev->timings[first])) first++;
  return vc_fail(err, VC_ERR_TIMEOUT,
                 "%s: %s (launch %u of %u) did not finish within %u s (the deadline option); it "
                 "may still be running",
                 dev->label, dev->timings[first].label, first + 1, n, dev->opts.deadline_ms / 1000u);
}

int vc_cuda_finish(vc_dev *dev, uint64_t *device_ns, uint32_t cap, uint32_t *count,
                   vc_error *err) {
  *count = 0;
  /* entering sends the launches held back for a graph */
  int rc = vc_cuda_enter(dev, "finish", err);
  uint32_t n = dev->pending;
  /* the events are free again, whatever happens below (and a batch that
     could not be sent is dropped with the pending launches) */
  dev->pending = 0;
  dev->nbatch = 0;
  dev->used_events = 0;
  vc_cuda_unchain(dev);
  const vc_cu *cu = dev->cu;
  bool no_timing = dev->opts.timing == VC_CUDA_TIMING_NONE;
  if (rc == 0 && n) {
    uint32_t last = 0;
    if (no_timing) {
      /* one event after the launches, for the deadline only */
      rc = vc_cuda_next_event(dev, &last, err);
      CUresult r = rc ? CUDA_SUCCESS : cu->cuEventRecord(dev->events[last], dev->stream);
      if (r != CUDA_SUCCESS)
        rc = vc_cu_fail(cu, err, r, "finish: cuEventRecord on %s", dev->label);
      dev->used_events = 0;
    } else {
      last = dev->timings[n - 1].end;
    }
    if (rc == 0) rc = wait_deadline(dev, n, dev->events[last], err);
  }
  if (rc != 0) {
    vc_cuda_stamps_reset(dev);
    return rc;
  }
  /* returns at once after the wait; reports what the launches left */
  CUresult r = cu->cuStreamSynchronize(dev->stream);
  if (r != CUDA_SUCCESS) {
    vc_cuda_stamps_reset(dev);
    return vc_cu_fail(cu, err, r, "finish: cuStreamSynchronize after %u launches on %s", n,
                      dev->label);
  }
  rc = vc_cuda_stamps_collect(dev, err);
  for (uint32_t i = 0; rc == 0 && i < n && i < cap && !no_timing; i++) {
    const vc_cuda_timing *t = &dev->timings[i];
    if (t->stamp != VC_CUDA_NO_SLOT) {
      /* a stamp missing or going backwards: no time, never a made-up one */
      device_ns[i] = vc_cuda_stamp_ns(dev, t);
      *count = i + 1;
      continue;
    }
    float ms = 0;
    r = cu->cuEventElapsedTime(&ms, dev->events[t->start], dev->events[t->end]);
    if (r != CUDA_SUCCESS) {
      rc = vc_cu_fail(cu, err, r, "finish: cuEventElapsedTime of launch %u on %s", i, dev->label);
      break;
    }
    device_ns[i] = ms > 0 ? (uint64_t)((double)ms * 1e6 + 0.5) : 0;
    *count = i + 1;
  }
  vc_cuda_stamps_reset(dev);
  return rc;
}

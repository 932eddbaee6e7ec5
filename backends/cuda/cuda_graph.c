/* Batches of segment launches sent as one CUDA graph (launch=graph, the
 * default).
 *
 * A launch on the stream costs the host a cuLaunchKernel and, for its device
 * time, a cuEventRecord: on the H200 the event alone made a launch loop
 * 1.28x slower. Held back until the batch goes out (finish, or any other
 * operation: vc_cuda_enter flushes), the launches of one batch become one
 * graph: the kernel nodes in one chain, so that they run in order. With
 * timing=stamps (the default) each kernel stamps its start into its slot
 * and a stamp kernel node and one event node follow the last (cuda_stamps.c);
 * with timing=launch an event node comes first and one after each kernel
 * node, and finish reads each launch's cuEventElapsedTime. One
 * cuGraphLaunch then replaces 2n driver calls.
 *
 * Instantiating costs more than launching, so the instantiated graph is
 * kept: a next batch of the same shape (the same kernels, grids and blocks
 * in the same order) only sets, in place, the kernel nodes whose buffers
 * moved and the event nodes whose event differs; usually none, since the
 * event pool hands out the same events after every finish. Batches of fewer
 * than graph-min launches (host-split sends one at a time) go on the stream
 * as they would without graphs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_internal.h"

/* "segment 0, segment 1, ..., segment 199" for messages: the batch's
   labels, the middle left out when there are many. */
static void batch_labels(const vc_dev *dev, uint32_t first, uint32_t n, char *out, size_t size) {
  size_t at = 0;
  out[0] = '\0';
  for (uint32_t i = 0; i < n && at + 1 < size; i++) {
    if (n > 4 && i == 2) {
      at += (size_t)snprintf(out + at, size - at, ", ...");
      i = n - 2;
    }
    if (at + 1 >= size) break;
    at += (size_t)snprintf(out + at, size - at, "%s%.48s", i ? ", " : "",
                           dev->timings[first + i].label);
  }
}

static int batch_fail(vc_dev *dev, vc_error *err, CUresult r, uint32_t n, const char *call) {
  char labels[320];
  batch_labels(dev, dev->batch_first, n, labels, sizeof labels);
  return vc_cu_fail(dev->cu, err, r, "graph of %u launches (%s) on %s: %s", n, labels,
                    dev->label, call);
}

/* A failure the driver tied to one node: that launch, by its label. */
static int node_fail(vc_dev *dev, vc_error *err, CUresult r, uint32_t i, uint32_t n,
                     const char *call) {
  const vc_cuda_node *nd = &dev->graph.nodes[i];
  const uint32_t *g = nd->grid, *b = nd->block;
  return vc_cu_fail(dev->cu, err, r,
                    "%s (launch %u of a graph of %u): %s (grid %ux%ux%u, block %ux%ux%u) on %s",
                    dev->timings[dev->batch_first + i].label, i + 1, n, call, g[0], g[1], g[2],
                    b[0], b[1], b[2], dev->label);
}

void vc_cuda_graph_forget(vc_dev *dev, CUfunction fn) {
  vc_cuda_graph *g = &dev->graph;
  bool uses = fn == NULL;
  for (uint32_t i = 0; !uses && i < g->n; i++) uses = g->nodes[i].fn == fn;
  if (!uses) return;
  const vc_cu *cu = dev->cu;
  /* an exec still running is freed by the driver once it completes */
  if (g->exec) cu->cuGraphExecDestroy(g->exec);
  if (g->graph) cu->cuGraphDestroy(g->graph);
  free(g->nodes);
  free(g->knodes);
  free(g->enodes);
  free(g->events);
  memset(g, 0, sizeof *g);
}

/* Event nodes of a graph of n launches. */
static uint32_t event_nodes(int timing, uint32_t n) {
  return timing == VC_CUDA_TIMING_LAUNCH ? n + 1 : timing == VC_CUDA_TIMING_STAMPS ? 1 : 0;
}

/* Event node j of the batch. timing=launch: before launch 0 (j = 0), after
   launch j - 1; stamps: the one after the stamp kernel, every launch's end. */
static CUevent batch_event(const vc_dev *dev, int timing, uint32_t n, uint32_t j) {
  if (timing == VC_CUDA_TIMING_STAMPS)
    return dev->events[dev->timings[dev->batch_first + n - 1].end];
  const vc_cuda_timing *t = &dev->timings[dev->batch_first + (j ? j - 1 : 0)];
  return dev->events[j ? t->end : t->start];
}

/* The driver copies the parameter values when a node is added or set. The
   kernel's last parameter is its stamp slot (0: none). */
static void kernel_params(vc_cuda_node *nd, void **params, CUDA_KERNEL_NODE_PARAMS *kp) {
  for (uint32_t i = 0; i < nd->nbufs; i++) params[i] = &nd->ptrs[i];
  params[nd->nbufs] = &nd->stamp;
  memset(kp, 0, sizeof *kp);
  kp->func = nd->fn;
  kp->gridDimX = nd->grid[0];
  kp->gridDimY = nd->grid[1];
  kp->gridDimZ = nd->grid[2];
  kp->blockDimX = nd->block[0];
  kp->blockDimY = nd->block[1];
  kp->blockDimZ = nd->block[2];
  kp->kernelParams = params;
}

/* The stamp kernel's node: one thread writing the batch's end stamp. */
static void stamp_params(const vc_dev *dev, CUdeviceptr *slot, void **params,
                         CUDA_KERNEL_NODE_PARAMS *kp) {
  params[0] = slot;
  memset(kp, 0, sizeof *kp);
  kp->func = dev->stamps.fn;
  kp->gridDimX = kp->gridDimY = kp->gridDimZ = 1;
  kp->blockDimX = kp->blockDimY = kp->blockDimZ = 1;
  kp->kernelParams = params;
}

static int graph_alloc(vc_dev *dev, uint32_t n, int timing, vc_error *err) {
  vc_cuda_graph *g = &dev->graph;
  g->n = n;
  g->timing = timing;
  g->nodes = calloc(n, sizeof *g->nodes);
  g->knodes = calloc(n, sizeof *g->knodes);
  g->enodes = calloc(n + 1, sizeof *g->enodes);
  g->events = calloc(n + 1, sizeof *g->events);
  if (!g->nodes || !g->knodes || !g->enodes || !g->events)
    return vc_fail(err, VC_ERR_NOMEM, "graph of %u launches on %s: no memory", n, dev->label);
  memcpy(g->nodes, dev->batch, n * sizeof *g->nodes);
  return 0;
}

static int add_event(vc_dev *dev, uint32_t j, CUgraphNode *dep, uint32_t n, vc_error *err) {
  vc_cuda_graph *g = &dev->graph;
  g->events[j] = batch_event(dev, g->timing, n, j);
  CUresult r = dev->cu->cuGraphAddEventRecordNode(&g->enodes[j], g->graph, dep, dep ? 1 : 0,
                                                  g->events[j]);
  if (r != CUDA_SUCCESS) return batch_fail(dev, err, r, n, "cuGraphAddEventRecordNode");
  return 0;
}

/* timing=stamps: the stamp kernel after the last launch (sslot its slot),
   then the batch's one event. */
static int add_stamp(vc_dev *dev, CUdeviceptr sslot, CUgraphNode *dep, uint32_t n,
                     vc_error *err) {
  vc_cuda_graph *g = &dev->graph;
  void *params[1];
  CUDA_KERNEL_NODE_PARAMS kp;
  g->sslot = sslot;
  stamp_params(dev, &g->sslot, params, &kp);
  CUresult r = dev->cu->cuGraphAddKernelNode(&g->snode, g->graph, dep, dep ? 1 : 0, &kp);
  if (r != CUDA_SUCCESS)
    return batch_fail(dev, err, r, n, "cuGraphAddKernelNode(the stamp kernel)");
  return add_event(dev, 0, &g->snode, n, err);
}

/* The chain of nodes, then an instantiation whose failure names the node
   the driver blames. */
static int build(vc_dev *dev, uint32_t n, int timing, CUdeviceptr sslot, vc_error *err) {
  vc_cuda_graph_forget(dev, NULL);
  vc_cuda_graph *g = &dev->graph;
  const vc_cu *cu = dev->cu;
  bool timed = timing == VC_CUDA_TIMING_LAUNCH;
  int rc = graph_alloc(dev, n, timing, err);
  if (rc != 0) return rc;
  CUresult r = cu->cuGraphCreate(&g->graph, 0);
  if (r != CUDA_SUCCESS) {
    g->graph = NULL;
    return batch_fail(dev, err, r, n, "cuGraphCreate");
  }
  CUgraphNode *prev = NULL;
  if (timed && (rc = add_event(dev, 0, NULL, n, err)) != 0) return rc;
  if (timed) prev = &g->enodes[0];
  for (uint32_t i = 0; i < n; i++) {
    void *params[VC_MAX_BUFFERS + 1];
    CUDA_KERNEL_NODE_PARAMS kp;
    kernel_params(&g->nodes[i], params, &kp);
    r = cu->cuGraphAddKernelNode(&g->knodes[i], g->graph, prev, prev ? 1 : 0, &kp);
    if (r != CUDA_SUCCESS) return node_fail(dev, err, r, i, n, "cuGraphAddKernelNode");
    prev = &g->knodes[i];
    if (timed && (rc = add_event(dev, i + 1, prev, n, err)) != 0) return rc;
    if (timed) prev = &g->enodes[i + 1];
  }
  if (timing == VC_CUDA_TIMING_STAMPS && (rc = add_stamp(dev, sslot, prev, n, err)) != 0)
    return rc;
  CUDA_GRAPH_INSTANTIATE_PARAMS ip;
  memset(&ip, 0, sizeof ip);
  r = cu->cuGraphInstantiateWithParams(&g->exec, g->graph, &ip);
  if (r != CUDA_SUCCESS) {
    g->exec = NULL;
    for (uint32_t i = 0; ip.hErrNode_out && i < n; i++)
      if (g->knodes[i] == ip.hErrNode_out)
        return node_fail(dev, err, r, i, n, "cuGraphInstantiateWithParams");
    return batch_fail(dev, err, r, n, "cuGraphInstantiateWithParams");
  }
  dev->gstats.instantiated++;
  return 0;
}

static bool same_shape(const vc_dev *dev, uint32_t n, int timing) {
  const vc_cuda_graph *g = &dev->graph;
  if (!g->exec || g->n != n || g->timing != timing) return false;
  for (uint32_t i = 0; i < n; i++) {
    const vc_cuda_node *a = &g->nodes[i], *b = &dev->batch[i];
    if (a->fn != b->fn || a->nbufs != b->nbufs || memcmp(a->grid, b->grid, sizeof a->grid) ||
        memcmp(a->block, b->block, sizeof a->block))
      return false;
  }
  return true;
}

/* The kept exec made this batch's: the nodes whose buffers, stamp slots
   or events differ, set in place (launches already sent keep what they
   had). */
static int update(vc_dev *dev, uint32_t n, CUdeviceptr sslot, vc_error *err) {
  vc_cuda_graph *g = &dev->graph;
  const vc_cu *cu = dev->cu;
  for (uint32_t i = 0; i < n; i++) {
    vc_cuda_node *nd = &g->nodes[i];
    if (!memcmp(nd->ptrs, dev->batch[i].ptrs, nd->nbufs * sizeof nd->ptrs[0]) &&
        nd->stamp == dev->batch[i].stamp)
      continue;
    memcpy(nd->ptrs, dev->batch[i].ptrs, nd->nbufs * sizeof nd->ptrs[0]);
    nd->stamp = dev->batch[i].stamp;
    void *params[VC_MAX_BUFFERS + 1];
    CUDA_KERNEL_NODE_PARAMS kp;
    kernel_params(nd, params, &kp);
    CUresult r = cu->cuGraphExecKernelNodeSetParams(g->exec, g->knodes[i], &kp);
    if (r != CUDA_SUCCESS) return node_fail(dev, err, r, i, n, "cuGraphExecKernelNodeSetParams");
    dev->gstats.node_updates++;
  }
  if (g->timing == VC_CUDA_TIMING_STAMPS && g->sslot != sslot) {
    void *params[1];
    CUDA_KERNEL_NODE_PARAMS kp;
    g->sslot = sslot;
    stamp_params(dev, &g->sslot, params, &kp);
    CUresult r = cu->cuGraphExecKernelNodeSetParams(g->exec, g->snode, &kp);
    if (r != CUDA_SUCCESS)
      return batch_fail(dev, err, r, n, "cuGraphExecKernelNodeSetParams(the stamp kernel)");
    dev->gstats.node_updates++;
  }
  for (uint32_t j = 0; j < event_nodes(g->timing, n); j++) {
    CUevent e = batch_event(dev, g->timing, n, j);
    if (e == g->events[j]) continue;
    CUresult r = cu->cuGraphExecEventRecordNodeSetEvent(g->exec, g->enodes[j], e);
    if (r != CUDA_SUCCESS) return batch_fail(dev, err, r, n, "cuGraphExecEventRecordNodeSetEvent");
    g->events[j] = e;
    dev->gstats.node_updates++;
  }
  return 0;
}

/* This batch's events from the pool: one before the first launch, one
   after each. */
static int take_events(vc_dev *dev, uint32_t n, vc_error *err) {
  vc_cuda_timing *t = &dev->timings[dev->batch_first];
  int rc = vc_cuda_next_event(dev, &t[0].start, err);
  for (uint32_t i = 0; rc == 0 && i < n; i++) {
    if (i) t[i].start = t[i - 1].end;
    rc = vc_cuda_next_event(dev, &t[i].end, err);
  }
  return rc;
}

/* timing=stamps: n + 1 slots (launch i starts at slot i, the stamp kernel
   writes the last) and one event, every launch's end. */
static int take_stamps(vc_dev *dev, uint32_t n, CUdeviceptr *sslot, vc_error *err) {
  vc_cuda_timing *t = &dev->timings[dev->batch_first];
  uint32_t first = 0, end = 0;
  int rc = vc_cuda_stamps_take(dev, n + 1, &first, err);
  if (rc == 0) rc = vc_cuda_next_event(dev, &end, err);
  if (rc != 0) return rc;
  for (uint32_t i = 0; i < n; i++) {
    t[i].stamp = first + i;
    t[i].end = end;
    dev->batch[i].stamp = vc_cuda_stamp_addr(dev, first + i);
  }
  *sslot = vc_cuda_stamp_addr(dev, first + n);
  return 0;
}

static int send_graph(vc_dev *dev, uint32_t n, vc_error *err) {
  int timing = dev->opts.timing, rc = 0;
  CUdeviceptr sslot = 0;
  if (timing == VC_CUDA_TIMING_LAUNCH) rc = take_events(dev, n, err);
  else if (timing == VC_CUDA_TIMING_STAMPS) rc = take_stamps(dev, n, &sslot, err);
  if (rc != 0) return rc;
  if (!dev->opts.graph_instantiate && same_shape(dev, n, timing)) rc = update(dev, n, sslot, err);
  else rc = build(dev, n, timing, sslot, err);
  CUresult r = rc ? CUDA_SUCCESS : dev->cu->cuGraphLaunch(dev->graph.exec, dev->stream);
  if (r != CUDA_SUCCESS) rc = batch_fail(dev, err, r, n, "cuGraphLaunch");
  if (rc != 0) return rc;
  dev->gstats.graphs++;
  vc_cuda_unchain(dev); /* a graph's own event node starts the next one */
  return 0;
}

int vc_cuda_flush(vc_dev *dev, vc_error *err) {
  uint32_t n = dev->nbatch, first = dev->batch_first;
  if (n == 0) return 0;
  dev->gstats.batches++;
  int rc = 0;
  if (n < dev->opts.graph_min) {
    for (uint32_t i = 0; rc == 0 && i < n; i++)
      rc = vc_cuda_stream_node(dev, &dev->batch[i], &dev->timings[first + i], err);
  } else {
    rc = send_graph(dev, n, err);
    /* a half-built or half-updated exec is not kept */
    if (rc != 0) vc_cuda_graph_forget(dev, NULL);
  }
  dev->nbatch = 0;
  if (rc != 0) {
    /* the batch's launches are not pending: finish reads no event of theirs */
    dev->pending = first;
    vc_cuda_unchain(dev);
  }
  return rc;
}

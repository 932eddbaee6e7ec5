/* Launches on the device's in-order queue, and their profiled device times. */
#include <stdlib.h>

#include "backends/opencl/ocl.h"

void vc_ocl_drop_events(vc_dev *d) {
  for (uint32_t i = 0; i < d->nevents; i++) clReleaseEvent(d->events[i]);
  d->nevents = 0;
}

static int keep_event(vc_dev *d, cl_event ev, vc_error *err) {
  if (d->nevents == d->cap) {
    uint32_t cap = d->cap ? d->cap * 2 : 16;
    cl_event *e = realloc(d->events, cap * sizeof *e);
    if (!e) {
      clReleaseEvent(ev);
      return vc_fail(err, VC_ERR_NOMEM, "%s: out of memory recording a launch", d->label);
    }
    d->events = e;
    d->cap = cap;
  }
  d->events[d->nevents++] = ev;
  return 0;
}

int vc_ocl_launch(vc_dev *d, vc_kern *k, vc_buf *const *bufs, uint32_t nbufs, vc_error *err) {
  if (nbufs != k->nbufs)
    return vc_fail(err, VC_ERR_USAGE, "%s: %s binds %u buffers, the launch gives %u", d->label,
                   k->label, k->nbufs, nbufs);
  for (uint32_t i = 0; i < nbufs; i++) {
    cl_int st = clSetKernelArg(k->kernel, i, sizeof(cl_mem), &bufs[i]->mem);
    if (st != CL_SUCCESS)
      return vc_fail(err, VC_ERR_DEVICE, "%s: %s: clSetKernelArg(buffer %u): %s", d->label,
                     k->label, i, vc_ocl_status_name(st));
  }
  cl_event ev;
  cl_int st = clEnqueueNDRangeKernel(d->queue, k->kernel, 3, NULL, k->global, k->local, 0, NULL,
                                     &ev);
  if (st != CL_SUCCESS)
    return vc_fail(err, VC_ERR_DEVICE, "%s: %s: clEnqueueNDRangeKernel: %s", d->label, k->label,
                   vc_ocl_status_name(st));
  return keep_event(d, ev, err);
}

/* Device time of one finished launch, from the profiling counters. */
static int event_ns(const vc_dev *d, cl_event ev, uint64_t *ns, vc_error *err) {
  cl_ulong start = 0, end = 0;
  cl_int st = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
  if (st == CL_SUCCESS)
    st = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
  if (st != CL_SUCCESS) return vc_ocl_fail(err, VC_ERR_DEVICE, d, "clGetEventProfilingInfo", st);
  *ns = end >= start ? end - start : 0;
  return 0;
}

int vc_ocl_finish(vc_dev *d, uint64_t *device_ns, uint32_t cap, uint32_t *count, vc_error *err) {
  *count = 0;
  cl_int st = clFinish(d->queue);
  if (st != CL_SUCCESS) {
    vc_ocl_drop_events(d);
    return vc_ocl_fail(err, VC_ERR_DEVICE, d, "clFinish", st);
  }
  int rc = 0;
  for (uint32_t i = 0; i < d->nevents; i++) {
    cl_int status = CL_COMPLETE;
    clGetEventInfo(d->events[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
    if (status < 0 && !rc)
      rc = vc_fail(err, VC_ERR_DEVICE, "%s: launch %u since the last finish failed: %s", d->label,
                   i, vc_ocl_status_name(status));
    if (!rc && i < cap) {
      rc = event_ns(d, d->events[i], &device_ns[i], err);
      if (!rc) *count = i + 1;
    }
  }
  vc_ocl_drop_events(d);
  return rc;
}

int vc_ocl_native_stats(vc_dev *d, vc_kern *k, vc_native_stats *stats, vc_error *err) {
  (void)k;
  (void)stats;
  return vc_fail(err, VC_ERR_UNSUPPORTED, "%s: native mode is not implemented for OpenCL yet",
                 d->label);
}

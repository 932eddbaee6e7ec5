/* Launches on the device's in-order queue, and finish: it waits for them
 * with a deadline, then reads their profiled device times. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "backends/opencl/ocl_internal.h"
#include "harness/base/clock.h"

void vc_ocl_drop_events(vc_dev *d) {
  for (uint32_t i = 0; i < d->nevents; i++) clReleaseEvent(d->events[i].ev);
  d->nevents = 0;
}

int vc_ocl_keep_event(vc_dev *d, cl_event ev, const char *label, vc_error *err) {
  if (d->nevents == d->cap) {
    uint32_t cap = d->cap ? d->cap * 2 : 16;
    vc_ocl_launch_rec *e = realloc(d->events, cap * sizeof *e);
    if (!e) {
      clReleaseEvent(ev);
      return vc_fail(err, VC_ERR_NOMEM, "%s: out of memory recording a launch", d->label);
    }
    d->events = e;
    d->cap = cap;
  }
  vc_ocl_launch_rec *r = &d->events[d->nevents++];
  r->ev = ev;
  snprintf(r->label, sizeof r->label, "%s", label);
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
  if (k->native) {
    int rc = vc_ocl_native_prepare(d, k, err);
    if (rc) return rc;
  }
  cl_event ev;
  cl_int st = clEnqueueNDRangeKernel(d->queue, k->kernel, 3, NULL, k->global, k->local, 0, NULL,
                                     &ev);
  if (st != CL_SUCCESS)
    return vc_fail(err, VC_ERR_DEVICE, "%s: %s: clEnqueueNDRangeKernel: %s", d->label, k->label,
                   vc_ocl_status_name(st));
  return vc_ocl_keep_event(d, ev, k->label, err);
}

static void sleep_ns(uint64_t ns) {
  struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
  nanosleep(&ts, NULL);
}

/* Polls each launch until it completes, fails, or the deadline passes: a
   kernel that never ends (a grid barrier whose participants are not all
   running) must not hang the harness. The kernel itself is not stopped
   (OpenCL cannot); later commands on the queue wait for it. */
static int wait_deadline(vc_dev *d, vc_error *err) {
  cl_int st = clFlush(d->queue);
  if (st != CL_SUCCESS) return vc_ocl_fail(err, VC_ERR_DEVICE, d, "clFlush", st);
  uint64_t start = vc_now_ns(), limit = (uint64_t)d->deadline_ms * 1000000u;
  for (uint32_t i = 0; i < d->nevents; i++) {
    uint64_t nap = 20000; /* 20 us, doubling to 5 ms */
    for (;;) {
      cl_int status = CL_COMPLETE;
      st = clGetEventInfo(d->events[i].ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
                          &status, NULL);
      if (st != CL_SUCCESS) return vc_ocl_fail(err, VC_ERR_DEVICE, d, "clGetEventInfo", st);
      if (status == CL_COMPLETE || status < 0) break;
      if (vc_now_ns() - start >= limit)
        return vc_fail(err, VC_ERR_TIMEOUT,
                       "%s: %s did not finish within %u s (the deadline option); it may still "
                       "be running",
                       d->label, d->events[i].label, d->deadline_ms / 1000u);
      sleep_ns(nap);
      if (nap < 5000000u) nap *= 2;
    }
  }
  return 0;
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
  int rc = wait_deadline(d, err);
  cl_int st = rc ? CL_SUCCESS : clFinish(d->queue);
  if (rc || st != CL_SUCCESS) {
    vc_ocl_drop_events(d);
    return rc ? rc : vc_ocl_fail(err, VC_ERR_DEVICE, d, "clFinish", st);
  }
  for (uint32_t i = 0; i < d->nevents; i++) {
    cl_int status = CL_COMPLETE;
    clGetEventInfo(d->events[i].ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                   NULL);
    if (status < 0 && !rc)
      rc = vc_fail(err, VC_ERR_DEVICE, "%s: launch %u since the last finish (%s) failed: %s",
                   d->label, i, d->events[i].label, vc_ocl_status_name(status));
    if (!rc && i < cap) {
      rc = event_ns(d, d->events[i].ev, &device_ns[i], err);
      if (!rc) *count = i + 1;
    }
  }
  vc_ocl_drop_events(d);
  return rc;
}

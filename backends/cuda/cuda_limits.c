#include "backends/cuda/cuda_limits.h"

#include <inttypes.h>

static const char axis_name[3] = {'x', 'y', 'z'};

static int check_block(const vc_cuda_limits *lim, const vc_cuda_shape *s, const char *label,
                       const char *device, vc_error *err) {
  uint64_t threads = (uint64_t)s->block[0] * s->block[1] * s->block[2];
  if (threads > lim->max_threads_per_block)
    return vc_fail(err, VC_ERR_LIMIT,
                   "%s: workgroup of %" PRIu64
                   " invocations exceeds the %u threads per block of %s",
                   label, threads, lim->max_threads_per_block, device);
  if (s->kernel_max_threads && threads > s->kernel_max_threads)
    return vc_fail(err, VC_ERR_LIMIT,
                   "%s: workgroup of %" PRIu64 " invocations exceeds the %u threads per block this "
                   "kernel can launch on %s (its register use)",
                   label, threads, s->kernel_max_threads, device);
  for (int a = 0; a < 3; a++)
    if (s->block[a] > lim->max_block[a])
      return vc_fail(err, VC_ERR_LIMIT,
                     "%s: workgroup size %c of %u exceeds the block dimension %c limit %u of %s",
                     label, axis_name[a], s->block[a], axis_name[a], lim->max_block[a], device);
  return 0;
}

int vc_cuda_check_limits(const vc_cuda_limits *lim, const vc_cuda_shape *s, const char *label,
                         const char *device, vc_error *err) {
  int rc = check_block(lim, s, label, device, err);
  if (rc != 0) return rc;
  for (int a = 0; a < 3; a++)
    if (s->grid[a] > lim->max_grid[a])
      return vc_fail(err, VC_ERR_LIMIT,
                     "%s: grid %c of %u workgroups exceeds the grid dimension %c limit %u of %s",
                     label, axis_name[a], s->grid[a], axis_name[a], lim->max_grid[a], device);
  if (s->shared_bytes > lim->max_shared_per_block)
    return vc_fail(err, VC_ERR_LIMIT,
                   "%s: %" PRIu64 " bytes of shared memory exceed the %" PRIu64
                   " bytes per block of %s",
                   label, s->shared_bytes, lim->max_shared_per_block, device);
  return 0;
}

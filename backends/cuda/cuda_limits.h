/* The device limits a launch must respect, checked before cuLaunchKernel so
 * that a program too big for the device fails with both figures named
 * instead of the driver's bare CUDA_ERROR_INVALID_VALUE. */
#ifndef VC_CUDA_LIMITS_H
#define VC_CUDA_LIMITS_H

#include <stdint.h>

#include "harness/base/error.h"

typedef struct vc_cuda_limits {
  uint32_t max_threads_per_block;  /* CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK */
  uint32_t max_block[3];           /* CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X/Y/Z */
  uint32_t max_grid[3];            /* CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X/Y/Z */
  uint64_t max_shared_per_block;   /* CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK (static) */
} vc_cuda_limits;

/* What one kernel asks of a launch. */
typedef struct vc_cuda_shape {
  uint32_t block[3];         /* the program's workgroup */
  uint32_t grid[3];          /* the program's grid */
  uint32_t kernel_max_threads; /* CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK (registers
                                  may lower it below the device's figure); 0: unknown */
  uint64_t shared_bytes;     /* CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES */
} vc_cuda_shape;

/* VC_ERR_LIMIT naming the kernel (label), the device, the figure asked for
   and the limit, for the first limit s exceeds; 0 when it fits. */
int vc_cuda_check_limits(const vc_cuda_limits *lim, const vc_cuda_shape *s, const char *label,
                         const char *device, vc_error *err);

#endif

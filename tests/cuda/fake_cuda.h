/* A fake CUDA driver (libvc-fake-cuda.so) for testing the plugin's device
 * code without a GPU: the plugin opens it through VYRE_CONFORM_LIBCUDA.
 *
 * It keeps "device" memory in host memory and checks what a driver checks
 * (a current context, copies inside live allocations, parameters that are
 * device addresses, launch dimensions). Its streams are lazy on purpose:
 * queued copies, memsets and launches run only when something waits
 * (cuStreamSynchronize, cuEventSynchronize), so a staging buffer reused
 * before its copy finished shows up as wrong bytes, as it would on a GPU
 * whose copy engine is slow. Each executed launch advances a fake clock by
 * 0.25 ms, which cuEventElapsedTime reports. Kernels are not executed; a
 * test may play one (fake_cuda_set_kernel), e.g. write the control words a
 * native kernel would; every launch that is not cooperative plays the stamp
 * of the generated segment kernels (timing=stamps): the fake clock at its
 * start stored to the slot its last parameter names, when not 0 (the
 * played kernel runs after, and may overwrite it or advance the clock);
 * another process may ask, through FAKE_CUDA_PLAY_ENV,
 * for vc-cuda-bench's chain segment ("chain": every launch but a
 * cooperative one adds 1 to the first 1024 words of its first parameter).
 * A test may also make launches hang (they never complete while the hang
 * is set: cuEventQuery says not ready). Kernel parameters are device
 * addresses or mapped host memory (CU_MEMHOSTALLOC_DEVICEMAP, whose device
 * pointer is its host address).
 *
 * Graphs: chains of kernel and event record nodes, instantiated by copy;
 * cuGraphLaunch queues the nodes on the stream in their order, so event
 * nodes get the fake clock's times as cuEventRecord's do, and a kernel
 * node pointing into freed memory is refused at launch.
 *
 * Built with FAKE_CUDA_OLD_NAMES it exports cuEventElapsedTime and
 * cuDeviceGetUuid without _v2, as drivers before CUDA 12.8 do; with
 * FAKE_CUDA_NO_GRAPH it has no graph entry points.
 *
 * The test reaches these controls by dlopen'ing the same file. */
#ifndef VC_FAKE_CUDA_H
#define VC_FAKE_CUDA_H

#include <stddef.h>
#include <stdint.h>

#define FAKE_CUDA_LAUNCH_MS 0.25f
#define FAKE_CUDA_LAUNCH_NS 250000u
#define FAKE_CUDA_PLAY_ENV "VC_FAKE_CUDA_PLAY"

typedef struct fake_cuda_stats {
  uint32_t device_allocs, host_allocs; /* live */
  uint32_t events, streams, modules;   /* live */
  int ctx_retains;
  int ctx_current;                     /* 1 if a context is current */
  uint32_t launches;                   /* executed */
  uint32_t cooperative_launches;       /* executed, of them cuLaunchCooperativeKernel */
  uint32_t event_records;              /* cuEventRecord calls */
  uint32_t pageable_async_copies;      /* async copies from or to unpinned memory */
  uint32_t htod_copies, dtoh_copies;   /* async copies enqueued, each way */
  const void *last_copy_host;          /* the host side of the last async copy */
  uint32_t unsafe_frees;               /* memory or modules freed with work still queued */
  /* the last launch */
  uint32_t grid[3], block[3];
  uint32_t nparams;
  uint64_t param_bytes[64];            /* size of the allocation each parameter points to */
  char last_ptx_entry[64];             /* ".entry NAME" of the last module loaded */
  uint32_t ptx_loads, cubin_loads;     /* modules loaded from PTX text, from a cubin (ELF) */
  /* graphs (none in a build with FAKE_CUDA_NO_GRAPH) */
  uint32_t graphs, graph_execs;        /* live */
  uint32_t graph_instantiations;       /* cuGraphInstantiateWithParams that succeeded */
  uint32_t graph_node_sets;            /* nodes set in an exec, kernel or event */
  uint32_t graph_launches;             /* cuGraphLaunch that succeeded */
  uint32_t stamps;                     /* stamp slots written by executed launches */
} fake_cuda_stats;

/* What a played kernel sees when its launch executes. */
typedef struct fake_cuda_launch {
  uint32_t grid[3], block[3];
  int cooperative;
  uint32_t nparams;
  void *params[64]; /* the device memory each parameter points to */
  uint64_t stamp_ns; /* the stamp written to the last parameter's slot, 0: none */
} fake_cuda_launch;
typedef void (*fake_cuda_kernel_fn)(const fake_cuda_launch *l);

typedef void (*fake_cuda_stats_fn)(fake_cuda_stats *out);
/* The nth call (1 = the next) of the entry point named (without _v2)
   returns r instead of running. */
typedef void (*fake_cuda_fail_fn)(const char *name, unsigned nth, int r);
/* Overrides a device attribute (CUdevice_attribute) for later queries. */
typedef void (*fake_cuda_set_attr_fn)(int attr, int value);
/* CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK of kernels loaded from now on. */
typedef void (*fake_cuda_set_kernel_threads_fn)(int threads);
typedef void (*fake_cuda_set_devices_fn)(int count);
/* Blocks per SM cuOccupancyMaxActiveBlocksPerMultiprocessor answers; -1:
   8 up to 256 threads, else 2048 / threads. */
typedef void (*fake_cuda_set_occupancy_fn)(int per_sm);
/* While on, no launch completes. */
typedef void (*fake_cuda_set_hang_fn)(int on);
/* Run at each executed launch (NULL: none). */
typedef void (*fake_cuda_set_kernel_fn)(fake_cuda_kernel_fn fn);
/* The next graph instantiation fails, blaming kernel node k (0 = the
   first kernel node added). */
typedef void (*fake_cuda_fail_node_fn)(int k);
/* Moves the device clock on (a played kernel that takes longer). */
typedef void (*fake_cuda_advance_ns_fn)(uint64_t ns);

/* The controls, by these names. */
void fake_cuda_stats_get(fake_cuda_stats *out);
void fake_cuda_fail(const char *name, unsigned nth, int r);
void fake_cuda_set_attr(int attr, int value);
void fake_cuda_set_kernel_threads(int threads);
void fake_cuda_set_devices(int count);
void fake_cuda_set_occupancy(int per_sm);
void fake_cuda_set_hang(int on);
void fake_cuda_set_kernel(fake_cuda_kernel_fn fn);
void fake_cuda_fail_node(int k);
void fake_cuda_advance_ns(uint64_t ns);

#endif

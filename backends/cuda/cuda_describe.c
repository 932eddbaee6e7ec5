/* Device identity and limits, for the run record (vc_device_info). */
#include <stdio.h>
#include <string.h>

#include "backends/cuda/cuda_internal.h"
#include "backends/cuda/cuda_nvrtc.h"
#include "harness/base/strbuf.h"

#define VC_NVIDIA_VENDOR_ID 0x10deu

void vc_cuda_uuid_hex(const unsigned char bytes[16], char *out, size_t n) {
  static const char digits[] = "0123456789abcdef";
  if (n < 33) {
    if (n) out[0] = '\0';
    return;
  }
  for (int i = 0; i < 16; i++) {
    out[2 * i] = digits[bytes[i] >> 4];
    out[2 * i + 1] = digits[bytes[i] & 15];
  }
  out[32] = '\0';
}

/* The kernel module's version ("580.159.04"): the driver API only gives the
   CUDA version it implements, and a vendor report needs the driver's. */
static void kernel_driver_version(char *out, size_t n) {
  out[0] = '\0';
  FILE *f = fopen("/proc/driver/nvidia/version", "r");
  if (!f) return;
  char line[512];
  if (fgets(line, sizeof line, f)) {
    /* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  <date>" or
       "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04 ...":
       the first word after "Module" made of digits and dots. */
    const char *k = strstr(line, "Module");
    for (k = k ? k + strlen("Module") : NULL; k && *k && *k != '\n';) {
      k += strspn(k, " ");
      size_t len = strcspn(k, " \n");
      if (len && len < n && strspn(k, "0123456789.") == len && memchr(k, '.', len)) {
        memcpy(out, k, len);
        out[len] = '\0';
        break;
      }
      k += len;
    }
  }
  fclose(f);
}

/* An attribute that older drivers may not know: -1 when it cannot be read. */
static int optional_attr(vc_dev *dev, CUdevice_attribute a) {
  int v = -1;
  if (dev->cu->cuDeviceGetAttribute(&v, a, dev->device) != CUDA_SUCCESS) v = -1;
  return v;
}

/* PCI vendor and device ids; the attribute combines the two 16-bit halves. */
static void pci_ids(vc_dev *dev, vc_device_info *info) {
  int v = optional_attr(dev, CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID);
  uint32_t u = (uint32_t)v, lo = u & 0xffffu, hi = u >> 16;
  info->vendor_id = VC_NVIDIA_VENDOR_ID;
  if (v == -1) return;
  if (lo == VC_NVIDIA_VENDOR_ID) info->device_id = hi;
  else if (hi == VC_NVIDIA_VENDOR_ID) info->device_id = lo;
}

typedef struct extra_attr {
  const char *key;
  CUdevice_attribute attr;
} extra_attr;

/* Figures worth recording beside the limits: they explain timings and
   occupancy (clock, memory, SM resources) and the device's mode. */
static const extra_attr extras[] = {
    {"clock_khz", CU_DEVICE_ATTRIBUTE_CLOCK_RATE},
    {"memory_clock_khz", CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE},
    {"memory_bus_width_bits", CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH},
    {"l2_cache_bytes", CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE},
    {"warp_size", CU_DEVICE_ATTRIBUTE_WARP_SIZE},
    {"max_threads_per_sm", CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR},
    {"max_blocks_per_sm", CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR},
    {"max_registers_per_block", CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK},
    {"max_shared_per_sm", CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR},
    {"max_shared_per_block_optin", CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN},
    {"ecc_enabled", CU_DEVICE_ATTRIBUTE_ECC_ENABLED},
    {"compute_mode", CU_DEVICE_ATTRIBUTE_COMPUTE_MODE},
    {"kernel_exec_timeout", CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT},
    {"integrated", CU_DEVICE_ATTRIBUTE_INTEGRATED},
    {"async_engines", CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT},
    {"mps_enabled", CU_DEVICE_ATTRIBUTE_MPS_ENABLED},
};

static void extra_lines(vc_dev *dev, vc_device_info *info) {
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_sb_printf(&sb, "compute_capability=%d.%d\n", dev->cc_major, dev->cc_minor);
  vc_sb_printf(&sb, "cuda_driver_version=%d\n", dev->cu->driver_version);
  vc_sb_printf(&sb, "libcuda=%s\n", dev->cu->path);
  char bus[64];
  if (dev->cu->cuDeviceGetPCIBusId(bus, (int)sizeof bus, dev->device) == CUDA_SUCCESS)
    vc_sb_printf(&sb, "pci_bus_id=%s\n", bus);
  for (size_t i = 0; i < sizeof extras / sizeof extras[0]; i++) {
    int v = optional_attr(dev, extras[i].attr);
    if (v != -1) vc_sb_printf(&sb, "%s=%d\n", extras[i].key, v);
  }
  int major, minor;
  const char *path;
  vc_error e;
  if (vc_nvrtc_version(&major, &minor, &path, &e) == 0)
    vc_sb_printf(&sb, "nvrtc=%d.%d %s\n", major, minor, path);
  else
    vc_sb_puts(&sb, "nvrtc=absent\n");
  /* what native kernels need and get */
  char inc[512];
  if (vc_nvrtc_include_dir(dev->opts.include, inc, sizeof inc, &e) == 0)
    vc_sb_printf(&sb, "native_include=%s\n", inc);
  else
    vc_sb_puts(&sb, "native_include=absent\n");
  if (dev->opts.native_blocks) vc_sb_printf(&sb, "native_blocks=%u\n", dev->opts.native_blocks);
  if (dev->opts.native_over) vc_sb_printf(&sb, "native_over=%u\n", dev->opts.native_over);
  vc_sb_printf(&sb, "deadline_s=%u\n", dev->opts.deadline_ms / 1000u);
  /* what each path records (docs/backend-cuda.md, Graphs) */
  static const char *const timing[] = {
#define TIMING_NAME(n, s) [VC_CUDA_TIMING_##n] = s,
      VC_CUDA_TIMING_LIST(TIMING_NAME)
#undef TIMING_NAME
  };
  static const char *const stamp_memory[] = {
#define STAMP_MEMORY_NAME(n, s) [VC_CUDA_STAMP_##n] = s,
      VC_CUDA_STAMP_MEMORY_LIST(STAMP_MEMORY_NAME)
#undef STAMP_MEMORY_NAME
  };
  if (dev->opts.timing == VC_CUDA_TIMING_STAMPS)
    vc_sb_printf(&sb,
                 "timing=stamps stamp_memory=%s (graph batches: %%globaltimer at each launch's "
                 "start, from one launch to the next; other launches: events)\n",
                 stamp_memory[dev->opts.stamp_memory]);
  else
    vc_sb_printf(&sb, "timing=%s\n", timing[dev->opts.timing]);
  /* how launches reach the device: a driver without graphs runs stream */
  if (dev->use_graph)
    vc_sb_printf(&sb, "launch=graph graph_min=%u graph_update=%s\n", dev->opts.graph_min,
                 dev->opts.graph_instantiate ? "instantiate" : "nodes");
  else if (dev->opts.launch_stream)
    vc_sb_puts(&sb, "launch=stream\n");
  else
    vc_sb_printf(&sb, "launch=stream (graph asked; the driver has no %s)\n",
                 dev->cu->graph_missing);
  snprintf(info->extra, sizeof info->extra, "%s", vc_sb_str(&sb));
  vc_sb_free(&sb);
}

static int identity(vc_dev *dev, vc_device_info *info, vc_error *err) {
  const vc_cu *cu = dev->cu;
  int v = cu->driver_version;
  snprintf(info->api, sizeof info->api, "cuda");
  snprintf(info->api_version, sizeof info->api_version, "%d.%d", v / 1000, v % 1000 / 10);
  snprintf(info->driver_name, sizeof info->driver_name, "NVIDIA");
  kernel_driver_version(info->driver_version, sizeof info->driver_version);
  if (!info->driver_version[0])
    snprintf(info->driver_version, sizeof info->driver_version, "cuda %d", v);
  snprintf(info->device_name, sizeof info->device_name, "%s", dev->name);
  pci_ids(dev, info);
  CUuuid uuid;
  CUresult r = cu->cuDeviceGetUuid(&uuid, dev->device);
  if (r != CUDA_SUCCESS) return vc_cu_fail(cu, err, r, "cuDeviceGetUuid on %s", dev->label);
  vc_cuda_uuid_hex((const unsigned char *)uuid.bytes, info->uuid, sizeof info->uuid);
  return 0;
}

static int limits(vc_dev *dev, vc_device_info *info, vc_error *err) {
  const vc_cuda_limits *l = &dev->limits;
  int sms = 0, coop = 0;
  int rc = VC_CUDA_ATTR(dev, MULTIPROCESSOR_COUNT, &sms, err);
  if (rc == 0) rc = VC_CUDA_ATTR(dev, COOPERATIVE_LAUNCH, &coop, err);
  if (rc != 0) return rc;
  size_t total = 0;
  CUresult r = dev->cu->cuDeviceTotalMem(&total, dev->device);
  if (r != CUDA_SUCCESS) return vc_cu_fail(dev->cu, err, r, "cuDeviceTotalMem on %s", dev->label);
  info->compute_units = (uint32_t)sms;
  info->max_workgroup_invocations = l->max_threads_per_block;
  memcpy(info->max_workgroup_size, l->max_block, sizeof l->max_block);
  memcpy(info->max_grid, l->max_grid, sizeof l->max_grid);
  info->max_shared_bytes = l->max_shared_per_block;
  info->max_buffer_bytes = total; /* cuMemAlloc has no per-allocation limit below this */
  info->global_mem_bytes = total;
  info->cooperative = coop != 0;
  info->timestamps = true; /* events around launches, or stamps in graph batches */
  return 0;
}

int vc_cuda_describe(vc_dev *dev, vc_device_info *info, vc_error *err) {
  memset(info, 0, sizeof *info);
  int rc = identity(dev, info, err);
  if (rc == 0) rc = limits(dev, info, err);
  if (rc != 0) return rc;
  /* what cuda_nvrtc.c asks of NVRTC, and so of every kernel */
  snprintf(info->float_env, sizeof info->float_env,
           "denorm32=preserve rounding32=rte contraction=off div32=ieee "
           "(nvrtc --fmad=false -ftz=false --prec-div=true --prec-sqrt=true)");
  extra_lines(dev, info);
  return 0;
}

/* Internal interface of the Vulkan plugin: the objects behind the opaque
 * handles of backends/backend.h and the functions the plugin's files share.
 *
 * Command model: every device has one command buffer that is "open" while
 * work is recorded into it. launch only records; upload, download, zero and
 * finish record what they need, then submit the command buffer and wait
 * (vk_flush). A resident-split pass (many launches, one finish) is therefore
 * one submission with no host wait between its dispatches. */
#ifndef VC_VK_INTERNAL_H
#define VC_VK_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

#include "backends/backend.h"
#include "harness/base/kcache.h"
#include "backends/common/native/cgen_native.h"
#include "backends/common/native/native_ctrl.h"
#include "harness/base/strbuf.h"

/* Dispatches recorded into one command buffer before it is submitted anyway
   (the size of the timestamp query pool and of the descriptor pool). */
#define VK_BATCH_DISPATCHES 1024u
#define VK_BATCH_DESCRIPTORS 16384u
/* Staging memory for uploads and downloads; larger copies go in chunks. */
#define VK_STAGING_MAX (64u << 20)
/* Buffers one kernel may bind (the splitter's spill buffers come on top of a
   program's own); the device's descriptor limits are usually lower. */
#define VK_MAX_BINDINGS 256u
/* A fence wait outside finish longer than this is reported as a timeout
   (nanoseconds); finish waits for the deadline option. */
#define VK_FENCE_TIMEOUT_NS (600ull * 1000000000ull)
#define VK_DEADLINE_DEFAULT_S 30u

/* Which ordering native kernels use (the native-memory-model option). */
typedef struct vk_int64_caps {
  bool ints;           /* shaderInt64 */
  bool buffer_atomics; /* shaderBufferInt64Atomics */
  bool shared_atomics; /* shaderSharedInt64Atomics */
  bool ext;            /* VK_KHR_shader_atomic_int64 enabled (device API < 1.2) */
} vk_int64_caps;

typedef enum vk_vmm_choice {
  VK_VMM_AUTO = 0, /* the Vulkan memory model where the device has it */
  VK_VMM_OFF,      /* coherent buffers and memoryBarrierBuffer() */
  VK_VMM_ON        /* the memory model, or native kernels are refused */
} vk_vmm_choice;

/* The device options (docs/backend-vulkan.md). */
typedef struct vk_options {
  int float_controls;    /* 1: request DenormPreserve where the device supports it */
  uint32_t deadline_s;   /* finish gives up after this long */
  uint32_t native_wgs;   /* physical workgroups of a native dispatch at most; 0: default */
  bool wgs_default;      /* native-wgs not given: sized by the compute units where known */
  vc_native_ctrl_opts ctrl;
  /* else the device's defaults (vk_native.c) */
  bool cap_given, window_given, spin_given, expect_given;
  int vmm;               /* vk_vmm_choice (an int, as the option parser stores it) */
  int gridbar;           /* vc_gridbar: native kernels' grid barrier (gridbar option) */
  int loop_segments;     /* native-segments=loop: a pass as one loop over the segments */
  int discover_cas;      /* native-discovery=cas: tickets by compare-and-swap, as at first */
  char cache_dir[VC_KCACHE_DIR_MAX]; /* cache=DIR: SPIR-V and the pipeline cache; "" = none */
  int malloc_host;       /* host-memory=malloc: host_alloc gives malloc memory, copied
                            through staging (the path of memory from elsewhere) */
} vk_options;

/* Host memory host_alloc handed out: host-visible, coherent device memory
   mapped once, behind a VkBuffer that copies use directly (no staging);
   with host-memory=malloc, plain malloc memory (buffer VK_NULL_HANDLE). */
typedef struct vk_host {
  unsigned char *p;
  uint64_t bytes;
  VkBuffer buffer;
  VkDeviceMemory memory;
} vk_host;

/* The device's compute units (NVIDIA SMs, AMD compute units, Arm shader
   cores) and the hardware threads (warps, wavefronts) one holds at once,
   from whichever vendor extension the device has; core Vulkan says
   neither, so without one both are 0. */
typedef struct vk_cores {
  uint32_t units;
  uint32_t threads_per_unit; /* warps or wavefronts resident at most */
  uint32_t thread_width;     /* invocations per warp or wavefront */
  const char *source;        /* the extension, or "none" */
} vk_cores;
/* What the device says about 32-bit float behaviour (VK_KHR_shader_float_controls). */
typedef struct vk_float_caps {
  bool known;          /* the device reported VkPhysicalDeviceFloatControlsProperties */
  bool preserve32;     /* shaderDenormPreserveFloat32 */
  bool ftz32;          /* shaderDenormFlushToZeroFloat32 */
  bool rte32, rtz32;   /* shaderRoundingModeRTEFloat32 / RTZFloat32 */
  VkShaderFloatControlsIndependence denorm_indep, round_indep;
} vk_float_caps;

/* What glslang is asked to produce. */
typedef struct vk_target {
  uint32_t client;        /* glslang_target_client_version_t */
  uint32_t spirv;         /* glslang_target_language_version_t */
  bool denorm_preserve;   /* add DenormPreserve 32 (SPV_KHR_float_controls) */
  bool memory_model;      /* native kernels: the Vulkan memory model ordering */
  int gridbar;            /* native kernels: vc_gridbar */
  bool loop_segments;     /* native kernels: the segments as one loop */
  bool discover_cas;      /* native kernels: discovery's tickets by compare-and-swap */
} vk_target;

struct vc_buf {
  VkBuffer buffer;
  VkDeviceMemory memory;
  uint64_t size;
};

struct vc_kern {
  VkDescriptorSetLayout set_layout;
  VkPipelineLayout layout;
  VkPipeline pipeline;
  uint32_t nbuffers;
  uint64_t *buffer_bytes;   /* what the program declares for each binding */
  uint32_t grid[3];         /* native: the persistent dispatch, W x 1 x 1 */
  char label[128];
  /* native kernels only: nbuffers plan buffers, then the control buffer */
  bool native;
  vc_buf *ctrl;             /* vc_native_ctrl_words(W): VC_NC_WORDS written before every
                               dispatch, then the workgroups' ticket slots */
  vc_native_shape shape;
  vc_native_ctrl_opts ctrl_opts;
  bool ran;                 /* dispatched since compile: native_stats has words to read */
};

struct vc_dev {
  uint32_t index;           /* physical device index, for messages */
  VkInstance instance;
  VkPhysicalDevice phys;
  VkDevice device;
  VkQueue queue;
  uint32_t queue_family;
  uint32_t instance_version;
  VkPhysicalDeviceProperties props;
  VkPhysicalDeviceMemoryProperties mem;
  uint64_t max_alloc;       /* maxMemoryAllocationSize */
  uint32_t timestamp_bits;  /* of the queue family; 0: no device timing */
  vk_float_caps fc;
  bool float_controls_ext;  /* VK_KHR_shader_float_controls enabled (device API < 1.2) */
  bool denorm_preserve;     /* every shader requests DenormPreserve 32 */
  vk_options opt;
  bool lavapipe;            /* driverID VK_DRIVER_ID_MESA_LLVMPIPE */
  vk_cores cores;           /* compute units, where a vendor extension says */
  uint32_t subgroup_size;   /* lavapipe: the lanes of one row (SIMD vector) */
  bool vmm_available;       /* vulkanMemoryModel and vulkanMemoryModelDeviceScope */
  bool vmm_ext;             /* VK_KHR_vulkan_memory_model enabled (device API < 1.2) */
  bool native_vmm;          /* native kernels use the memory model */
  bool vmm_chains;          /* vulkanMemoryModelAvailabilityVisibilityChains (gridbar=lead) */
  vk_int64_caps int64;      /* 64-bit integers and atomics, enabled where present */

  VkPipelineCache cache;    /* in memory, for compiles without a kernel cache (cache=none) */
  VkCommandPool pool;
  VkCommandBuffer cmd;
  VkFence fence;
  VkDescriptorPool dpool;
  VkQueryPool qpool;        /* VK_NULL_HANDLE without timestamps */

  bool recording;           /* cmd is open */
  bool pending;             /* cmd was submitted and a wait timed out: still running */
  char last_label[128];     /* kernel of the last dispatch recorded, for messages */
  uint32_t ndispatch;       /* dispatches recorded in cmd */
  uint32_t ndescriptors;    /* storage-buffer descriptors allocated from dpool */
  VkBuffer prev[VK_MAX_BINDINGS]; /* buffers of the last dispatch recorded in cmd */
  uint32_t nprev;

  uint64_t *times;          /* device ns per dispatch since the last finish */
  uint32_t ntimes, times_cap;

  VkBuffer staging;
  VkDeviceMemory staging_mem;
  void *staging_map;
  uint64_t staging_size;

  vk_host *hosts;           /* what host_alloc gave and host_free has not taken back */
  uint32_t nhosts, host_cap;
};

/* vk_result.c: VkResult spelling and the error helpers every file uses. */
const char *vk_result_name(VkResult r);
/* Fails with a message naming the device and the call:
   "Vulkan device 0 (llvmpipe): vkCreateBuffer: VK_ERROR_OUT_OF_DEVICE_MEMORY". */
int vk_fail_call(vc_error *err, const vc_dev *dev, const char *call, VkResult r);
vc_errcode vk_result_code(VkResult r);

/* vk_instance.c */
int vk_instance_create(VkInstance *inst, uint32_t *version, vc_error *err);
int vk_physical_devices(VkInstance inst, VkPhysicalDevice **devs, uint32_t *count, vc_error *err);
int vk_device_count(uint32_t *count, vc_error *err);

/* vk_options.c: "key=value,..." into o (defaults first); VC_ERR_USAGE names
   a bad pair and lists the known keys. */
int vk_options_parse(const char *s, vk_options *o, vc_error *err);

/* vk_device.c */
int vk_open(uint32_t index, const char *options, vc_dev **out, vc_error *err);
void vk_close(vc_dev *dev);

/* vk_properties.c: the extended property queries describe and open share. */
typedef struct vk_props {
  VkPhysicalDeviceProperties2 p2;
  VkPhysicalDeviceIDProperties id;
  VkPhysicalDeviceSubgroupProperties subgroup;
  VkPhysicalDeviceMaintenance3Properties maint3;
  VkPhysicalDeviceDriverProperties driver;
  VkPhysicalDeviceFloatControlsProperties fc;
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm;       /* VK_NV_shader_sm_builtins */
  VkPhysicalDeviceShaderCorePropertiesAMD amd;           /* VK_AMD_shader_core_properties */
  VkPhysicalDeviceShaderCoreBuiltinsPropertiesARM arm;   /* VK_ARM_shader_core_builtins */
  bool has_driver, has_fc, has_sm, has_amd, has_arm;
} vk_props;

vk_cores vk_cores_of(const vk_props *p);
bool vk_device_has_extension(VkPhysicalDevice pd, const char *name);
void vk_props_query(VkPhysicalDevice pd, vk_props *p);
/* vulkanMemoryModel and vulkanMemoryModelDeviceScope, from Vulkan 1.2 or
   VK_KHR_vulkan_memory_model; *ext: the extension must be enabled. */
bool vk_memory_model_query(VkPhysicalDevice pd, bool *ext, bool *chains);
/* shaderInt64 and the 64-bit atomics features of the device. */
void vk_int64_query(VkPhysicalDevice pd, vk_int64_caps *c);

/* vk_describe.c */
int vk_describe(vc_dev *dev, vc_device_info *info, vc_error *err);
/* driverVersion decoded by the vendor's convention (NVIDIA 10.8.8.6 bits, else Vulkan). */
void vk_driver_version_string(uint32_t vendor, uint32_t v, char *buf, size_t n);

/* vk_spirv.c: GLSL to SPIR-V with glslang, in process. */
int vk_glslang_acquire(vc_error *err);  /* glslang process init, counted */
void vk_glslang_release(void);
int vk_glslang_hold_offline(vc_error *err); /* held until the plugin is unloaded */
int vk_glsl_to_spirv(const char *glsl, const vk_target *t, const char *label, uint32_t **words,
                     size_t *nwords, char **log, vc_error *err);
/* GLSL of kernel k for target t: the shared generator's output (native
   kernels: the native generator, with the memory model when t asks for
   it), plus the float-controls request when t asks for it. */
int vk_kernel_glsl(const vc_kernel_desc *k, const vk_target *t, char **glsl, vc_error *err);
int vk_target_parse(const char *name, vk_target *t, vc_error *err);
int vk_compile_offline(const vc_kernel_desc *k, const char *target, void **binary, size_t *size,
                       char **log, vc_error *err);

/* vk_limits.c: device limits checked before anything is compiled or dispatched. */
int vk_check_program_limits(const vc_dev *dev, const vc_program *p, const char *label,
                            vc_error *err);

/* vk_limits.c, native kernels: the workgroup, the plan buffers plus the
   control buffer, every shared array of the program. */
int vk_check_native_limits(const vc_dev *dev, const vc_kernel_desc *k, const char *label,
                           vc_error *err);

/* vk_native.c: native kernels (docs/native.md). */
void vk_native_caps(vc_dev *dev);              /* at open: ordering and defaults */
vk_target vk_native_target(const vc_dev *dev); /* what native kernels compile for */
const char *vk_native_ordering(const vc_dev *dev);
/* Refuses (VC_ERR_UNSUPPORTED) a native kernel the device cannot run right. */
int vk_native_check(const vc_dev *dev, const char *label, vc_error *err);
int vk_native_setup(vc_dev *dev, const vc_kernel_desc *k, vc_kern *kern, vc_error *err);
/* VC_NC_EXPECT of a dispatch of `launched` workgroups of `invocations`:
   the most that can be resident at once, by the compute units and the
   warps each holds (an upper bound: closing the poll there loses no one),
   else `launched` (each takes one ticket at most). */
uint32_t vk_native_expect(const vk_cores *c, uint64_t invocations, uint32_t launched);
/* Records the control words' reset before the dispatch. */
void vk_native_record_reset(vc_dev *dev, vc_kern *kern);
int vk_native_stats(vc_dev *dev, vc_kern *kern, vc_native_stats *stats, vc_error *err);

/* vk_kernel.c */
int vk_emit(const vc_kernel_desc *k, vc_dev *dev, char **source, vc_error *err);
int vk_compile(vc_dev *dev, const vc_kernel_desc *k, vc_kern **kern, vc_compile_info *info,
               vc_error *err);
void vk_free_kernel(vc_dev *dev, vc_kern *kern);

/* vk_memory.c */
int vk_memory_type(const vc_dev *dev, uint32_t bits, VkMemoryPropertyFlags want,
                   VkMemoryPropertyFlags prefer, uint32_t *type);
int vk_alloc(vc_dev *dev, uint64_t bytes, vc_buf **buf, vc_error *err);
void vk_free_buffer(vc_dev *dev, vc_buf *buf);
void vk_staging_free(vc_dev *dev);
int vk_staging_reserve(vc_dev *dev, uint64_t bytes, vc_error *err);
int vk_host_alloc(vc_dev *dev, uint64_t bytes, void **p, vc_error *err);
void vk_host_free(vc_dev *dev, void *p);
void vk_host_free_all(vc_dev *dev); /* at close */
/* The mapped host_alloc memory [p, p + bytes) lies in, or NULL. */
const vk_host *vk_host_find(const vc_dev *dev, const void *p, uint64_t bytes);

/* vk_transfer.c */
int vk_upload(vc_dev *dev, vc_buf *buf, const void *src, uint64_t bytes, vc_error *err);
int vk_download(vc_dev *dev, vc_buf *buf, void *dst, uint64_t bytes, vc_error *err);
int vk_zero(vc_dev *dev, vc_buf *buf, vc_error *err);

/* vk_commands.c: the device's command buffer. */
int vk_begin(vc_dev *dev, vc_error *err);    /* opens cmd if it is not open */
int vk_flush(vc_dev *dev, vc_error *err);    /* submits cmd, waits, collects timestamps */
/* The same, giving up at the deadline option; a wait that gives up (here
   or in vk_flush) is VC_ERR_TIMEOUT and leaves the work pending. */
int vk_flush_deadline(vc_dev *dev, vc_error *err);
/* Waits, without a limit, for work left pending by a timed-out wait, so
   that nothing it uses is reused or freed under it. */
void vk_settle(vc_dev *dev);
int vk_commands_create(vc_dev *dev, vc_error *err);
void vk_commands_destroy(vc_dev *dev);

/* vk_launch.c */
int vk_launch(vc_dev *dev, vc_kern *kern, vc_buf *const *bufs, uint32_t nbufs, vc_error *err);
int vk_finish(vc_dev *dev, uint64_t *device_ns, uint32_t cap, uint32_t *count, vc_error *err);

/* vk_cache.c: the kernel cache (harness/base/kcache.h) for SPIR-V and the
   driver's pipeline cache. */
void vk_cache_spirv_key(const char *glsl, const vk_target *t, vc_kcache_key *k);
/* 1 with *words (malloc'ed) on a hit, 0 on a miss. */
int vk_cache_spirv_get(const vc_dev *dev, const vc_kcache_key *k, uint32_t **words,
                       size_t *nwords);
/* The key of one pipeline's cache data: the device as the driver names it,
   the SPIR-V, and what else make_pipeline creates it from. */
void vk_cache_pipeline_key(const vc_dev *dev, const uint32_t *words, size_t nwords,
                           uint32_t nbindings, vc_kcache_key *k);
/* *out: a pipeline cache holding key's entry when the kernel cache has one
   of this device that the driver takes (*hit), else an empty one. */
VkResult vk_cache_pipeline_open(vc_dev *dev, const vc_kcache_key *k, VkPipelineCache *out,
                                bool *hit);
/* After a miss: c's data (the one pipeline just created) under key. */
int vk_cache_pipeline_put(vc_dev *dev, VkPipelineCache c, const vc_kcache_key *k, vc_error *err);
/* dev->cache, empty: the in-memory cache compiles without cache=DIR use. */
VkResult vk_cache_pipeline_create(vc_dev *dev);

#endif

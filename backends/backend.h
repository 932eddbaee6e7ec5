/* The backend plugin ABI.
 *
 * A backend is a shared object exporting VC_BACKEND_ENTRY, a function that
 * returns a pointer to a static vc_backend table. The harness dlopens it,
 * checks abi_version and struct_size, and drives the device only through the
 * table. A plugin links only its own API library and the program model
 * (harness/model/program.h); it never reaches into the runner.
 *
 * Conventions: every operation that can fail returns 0 on success or a
 * vc_errcode and fills *err with a message that names the device and the
 * call. Strings and binaries a plugin hands out are malloc'ed; the caller
 * free()s them.
 *
 * Buffer binding: a kernel's buffers are bound in the order of the program's
 * buffer table (segment kernels: the segment program's buffers; native
 * kernels: the plan table of vc_native_desc). */
#ifndef VC_BACKEND_H
#define VC_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/base/error.h"
#include "harness/model/program.h"

/* Bump on any change to this file or to the layout of harness/model/program.h
   (ci/check-abi holds it; record the new line in ci/abi.txt). */
#define VC_BACKEND_ABI_VERSION 4u
#define VC_BACKEND_ENTRY "vyre_conform_backend"

typedef struct vc_dev vc_dev;   /* an open device, owned by the plugin */
typedef struct vc_kern vc_kern; /* a compiled kernel */
typedef struct vc_buf vc_buf;   /* a device buffer */

typedef struct vc_device_info {
  char api[16];             /* the API's name, as the plugin spells it ("vulkan") */
  char api_version[64];
  char driver_name[128];
  char driver_version[128];
  uint32_t vendor_id, device_id;
  char device_name[256];
  char uuid[80];            /* hex, or "" when the API gives none */
  uint32_t compute_units;
  uint32_t max_workgroup_invocations;
  uint32_t max_workgroup_size[3];
  uint32_t max_grid[3];
  uint64_t max_shared_bytes;
  uint64_t max_buffer_bytes;
  uint64_t global_mem_bytes;
  bool timestamps;          /* device time is measured; otherwise host-only */
  bool cooperative;         /* the API promises co-residency (cooperative launch) */
  char float_env[256];      /* e.g. "denorm32=preserve rounding32=rte" */
  char extra[4096];         /* further "key=value\n" lines, recorded verbatim */
} vc_device_info;

typedef enum vc_kernel_kind {
  VC_KERNEL_SEGMENT = 0, /* prog has no grid barrier and no fixpoint: one launch */
  VC_KERNEL_NATIVE = 1   /* the whole program, grid barriers satisfied on the device */
} vc_kernel_kind;

/* What a native kernel is made of: the splitter's segments, run in one launch
 * with a device-side grid barrier between them. Values live across a barrier
 * travel through the spill buffers, which are per virtual invocation. */
typedef struct vc_native_desc {
  const vc_buffer *buffers;        /* plan table: the program's buffers, then spills */
  uint32_t nbuffers;
  uint32_t nsegments;
  const vc_program *const *segments;
  const uint32_t *const *bind;     /* bind[s][k]: plan index of segment s's buffer k */
  const vc_shared *shared;         /* the whole program's shared arrays */
  uint32_t nshared;
  const uint32_t *const *shared_bind; /* shared_bind[s][k]: index in shared of segment s's
                                         shared array k */
  vc_fixpoint fixpoint;            /* flag is a plan index */
} vc_native_desc;

typedef struct vc_kernel_desc {
  vc_kernel_kind kind;
  const vc_program *prog;          /* SEGMENT: the segment program; NATIVE: the whole program */
  const vc_native_desc *native;    /* NATIVE only */
  const char *label;               /* for messages, e.g. "segment 2" */
} vc_kernel_desc;

typedef struct vc_compile_info {
  uint64_t compile_ns;  /* code generation and driver compile */
  char *log;            /* compiler log or NULL; caller frees */
  bool cache_hit;       /* the compiled form came from the kernel cache (cache=DIR) */
} vc_compile_info;

/* Filled after a native launch has finished. */
typedef struct vc_native_stats {
  uint32_t participants;            /* workgroups that took part (discovery or co-resident) */
  uint32_t virtual_per_participant; /* program workgroups per participant, rounded up */
  uint64_t barriers;                /* device grid barriers executed */
  uint32_t passes;                  /* fixpoint passes run on the device */
  bool untrustworthy;               /* a wait ended without its condition (see docs) */
  char note[256];
} vc_native_stats;

typedef struct vc_backend {
  uint32_t abi_version;  /* VC_BACKEND_ABI_VERSION */
  uint32_t struct_size;  /* sizeof(vc_backend) */
  const char *name;      /* the <name> of its file vc-backend-<name>.so */

  /* Devices the API shows; an error (VC_ERR_NO_DRIVER, VC_ERR_NO_DEVICE)
     says exactly why there are none. */
  int (*device_count)(uint32_t *count, vc_error *err);
  /* options: "key=value,..." for plugin-specific settings, or NULL. */
  int (*open)(uint32_t index, const char *options, vc_dev **dev, vc_error *err);
  int (*describe)(vc_dev *dev, vc_device_info *info, vc_error *err);
  void (*close)(vc_dev *dev);

  /* Generated source for a kernel; dev may be NULL. */
  int (*emit)(const vc_kernel_desc *k, vc_dev *dev, char **source, vc_error *err);
  /* Compile without a device for target (e.g. "sm_90", "spirv1.3"; NULL: the
     plugin's default); NULL entry where the API cannot. *binary is malloc'ed
     (PTX text, SPIR-V words). */
  int (*compile_offline)(const vc_kernel_desc *k, const char *target, void **binary,
                         size_t *size, char **log, vc_error *err);
  int (*compile)(vc_dev *dev, const vc_kernel_desc *k, vc_kern **kern, vc_compile_info *info,
                 vc_error *err);
  void (*free_kernel)(vc_dev *dev, vc_kern *kern);

  int (*alloc)(vc_dev *dev, uint64_t bytes, vc_buf **buf, vc_error *err);
  void (*free_buffer)(vc_dev *dev, vc_buf *buf);
  /* Blocking copies between host memory and a buffer. */
  int (*upload)(vc_dev *dev, vc_buf *buf, const void *src, uint64_t bytes, vc_error *err);
  int (*download)(vc_dev *dev, vc_buf *buf, void *dst, uint64_t bytes, vc_error *err);
  /* Sets a whole buffer to zero on the device (no host traffic). */
  int (*zero)(vc_dev *dev, vc_buf *buf, vc_error *err);

  /* Enqueues one launch; bufs in binding order. Launches run in order. */
  int (*launch)(vc_dev *dev, vc_kern *kern, vc_buf *const *bufs, uint32_t nbufs, vc_error *err);
  /* Waits for all enqueued work and returns the device time of each launch
     since the last finish, in order (up to cap; *count says how many).
     Without device timestamps *count is 0. */
  int (*finish)(vc_dev *dev, uint64_t *device_ns, uint32_t cap, uint32_t *count, vc_error *err);
  /* After finish: what the last launch of a native kernel did. */
  int (*native_stats)(vc_dev *dev, vc_kern *kern, vc_native_stats *stats, vc_error *err);

  /* The file name extension of compile_offline's binaries ("ptx", "spv");
     NULL where compile_offline is NULL. */
  const char *offline_ext;

  /* Host memory for upload and download that the device copies directly
     (pinned, or mapped device-visible memory), at least `bytes` long (also
     for 0), word aligned; host_free takes back only what host_alloc gave, after
     the copies that use it have returned. Both NULL: the harness uses malloc.
     ABI version 4. */
  int (*host_alloc)(vc_dev *dev, uint64_t bytes, void **p, vc_error *err);
  void (*host_free)(vc_dev *dev, void *p);
} vc_backend;

typedef const vc_backend *(*vc_backend_entry_fn)(void);

#endif

/* A fake CUDA driver for the plugin's tests: see fake_cuda.h. Defining the
 * functions under cuda.h gives them the versioned names (cuMemAlloc_v2 ...)
 * that the header maps them to, as the real driver exports them. */
#include <cuda.h>
#include <elf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/cuda/fake_cuda.h"

#ifdef FAKE_CUDA_OLD_NAMES
/* A driver from before CUDA 12.8: the unversioned names only. */
#undef cuEventElapsedTime
#undef cuDeviceGetUuid
CUresult CUDAAPI cuEventElapsedTime(float *ms, CUevent a, CUevent b);
CUresult CUDAAPI cuDeviceGetUuid(CUuuid *uuid, CUdevice d);
#endif

#define MAX_ALLOCS 1024
#define MAX_FAILS 8

struct CUctx_st {
  int retains;
};

struct CUevent_st {
  bool done;
  uint64_t t_ns;
  CUstream stream; /* of its last record */
};

typedef enum op_kind { OP_HTOD, OP_DTOH, OP_MEMSET32, OP_MEMSET8, OP_LAUNCH, OP_RECORD } op_kind;

typedef struct op {
  op_kind kind;
  void *host;
  CUdeviceptr dev;
  size_t n;
  unsigned value;
  CUevent ev;
  fake_cuda_launch launch; /* OP_LAUNCH */
} op;

struct CUstream_st {
  op *q;
  size_t head, n, cap;
};

struct CUfunc_st {
  CUmodule mod;
};

/* One function per module: every module the plugin loads has one vc_main. */
struct CUmod_st {
  char *ptx;
  int max_threads, shared_bytes;
  struct CUfunc_st fn;
};

typedef struct alloc {
  char *base;
  size_t size;
  bool host;
  bool mapped; /* host memory of CU_MEMHOSTALLOC_DEVICEMAP: a kernel may write it */
} alloc;

typedef struct fail {
  char name[64];
  unsigned left;
  CUresult r;
} fail;

static struct CUctx_st primary;
static CUcontext current;
static alloc allocs[MAX_ALLOCS];
static fail fails[MAX_FAILS];
static fake_cuda_stats st;
/* the device clock (ns since an arbitrary start, never 0: a stamp of 0 is one
   not written): events and stamps read it */
static uint64_t clock_ns = 1000000u;
static int attr_override[256];
static bool attr_set[256];
static int kernel_threads = 1024, device_count = 1, occupancy = -1;
static bool hang;
static fake_cuda_kernel_fn played;
static bool play_chain; /* FAKE_CUDA_PLAY_ENV=chain */

/* ---- controls ---- */

void fake_cuda_stats_get(fake_cuda_stats *out) {
  st.ctx_retains = primary.retains;
  st.ctx_current = current != NULL;
  *out = st;
}

void fake_cuda_fail(const char *name, unsigned nth, int r) {
  for (int i = 0; i < MAX_FAILS; i++)
    if (!fails[i].left) {
      snprintf(fails[i].name, sizeof fails[i].name, "%s", name);
      fails[i].left = nth;
      fails[i].r = (CUresult)r;
      return;
    }
}

void fake_cuda_set_attr(int attr, int value) {
  if (attr < 0 || attr >= 256) return;
  attr_override[attr] = value;
  attr_set[attr] = true;
}

void fake_cuda_set_kernel_threads(int threads) { kernel_threads = threads; }
void fake_cuda_set_devices(int count) { device_count = count; }
void fake_cuda_set_occupancy(int per_sm) { occupancy = per_sm; }
void fake_cuda_set_hang(int on) { hang = on != 0; }
void fake_cuda_set_kernel(fake_cuda_kernel_fn fn) { played = fn; }
void fake_cuda_advance_ns(uint64_t ns) { clock_ns += ns; }

/* An injected failure for this call of name, or CUDA_SUCCESS. */
static CUresult injected(const char *name) {
  for (int i = 0; i < MAX_FAILS; i++)
    if (fails[i].left && strcmp(fails[i].name, name) == 0 && --fails[i].left == 0)
      return fails[i].r;
  return CUDA_SUCCESS;
}

#define ENTER(name)                                                                         \
  do {                                                                                      \
    CUresult r_ = injected(name);                                                           \
    if (r_ != CUDA_SUCCESS) return r_;                                                      \
  } while (0)

#define NEED_CONTEXT()                                                                      \
  do {                                                                                      \
    if (!current) return CUDA_ERROR_INVALID_CONTEXT;                                        \
  } while (0)

/* ---- allocations ---- */

static alloc *find(const void *p, size_t n, bool host) {
  const char *c = p;
  for (int i = 0; i < MAX_ALLOCS; i++) {
    alloc *a = &allocs[i];
    if (a->base && a->host == host && c >= a->base && c + n <= a->base + a->size) return a;
  }
  return NULL;
}

static CUresult add_alloc(void **p, size_t n, bool host) {
  for (int i = 0; i < MAX_ALLOCS; i++)
    if (!allocs[i].base) {
      allocs[i].base = calloc(1, n ? n : 1);
      if (!allocs[i].base) return CUDA_ERROR_OUT_OF_MEMORY;
      allocs[i].size = n;
      allocs[i].host = host;
      allocs[i].mapped = false;
      *p = allocs[i].base;
      if (host) st.host_allocs++;
      else st.device_allocs++;
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult drop_alloc(void *p, bool host) {
  for (int i = 0; i < MAX_ALLOCS; i++)
    if (allocs[i].base == p && allocs[i].host == host) {
      free(allocs[i].base);
      allocs[i].base = NULL;
      if (host) st.host_allocs--;
      else st.device_allocs--;
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_INVALID_VALUE;
}

/* ---- the lazy stream ---- */

static CUresult push(CUstream s, op o) {
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  if (s->n == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 16;
    op *q = realloc(s->q, cap * sizeof *q);
    if (!q) return CUDA_ERROR_OUT_OF_MEMORY;
    s->q = q;
    s->cap = cap;
  }
  s->q[s->n++] = o;
  return CUDA_SUCCESS;
}

/* A segment of vc-cuda-bench's chain program: the first 1024 words of
   the first parameter go up by one. */
static void chain_step(const fake_cuda_launch *l) {
  if (l->nparams == 0) return;
  const alloc *a = find(l->params[0], 4, false);
  if (!a) return;
  uint32_t *w = l->params[0];
  size_t room = (size_t)(a->base + a->size - (char *)w) / 4;
  for (size_t i = 0; i < room && i < 1024; i++) w[i]++;
}

/* A kernel parameter's allocation: device memory or mapped host memory;
   NULL for anything else. */
static const alloc *param_alloc(const void *p) {
  const alloc *a = find(p, 1, false);
  if (!a) a = find(p, 1, true);
  return a && (!a->host || a->mapped) ? a : NULL;
}

/* Parameter i of n: a device address; the last of a segment kernel (not
   cooperative) is its stamp slot, which may be 0 (no stamp). */
static bool param_ok(const void *p, uint32_t i, uint32_t n, int cooperative) {
  if (!p && i + 1 == n && !cooperative) return true;
  return param_alloc(p) != NULL;
}

/* The generated segment kernels' stamp (docs/backend-cuda.md, timing=stamps):
   the first thread stores the device clock at its start to the slot its
   last parameter names, as does the one-parameter stamp kernel. Not
   cooperative launches: native kernels have no slot. */
static uint64_t play_stamp(const fake_cuda_launch *l) {
  if (l->cooperative || l->nparams == 0 || !l->params[l->nparams - 1]) return 0;
  void *slot = l->params[l->nparams - 1];
  const alloc *a = param_alloc(slot);
  if (!a || (char *)slot + 8 > a->base + a->size) return 0;
  memcpy(slot, &clock_ns, 8);
  st.stamps++;
  return clock_ns;
}

static void execute(const op *o) {
  switch (o->kind) {
  case OP_HTOD: memcpy((void *)(uintptr_t)o->dev, o->host, o->n); break;
  case OP_DTOH: memcpy(o->host, (const void *)(uintptr_t)o->dev, o->n); break;
  case OP_MEMSET8: memset((void *)(uintptr_t)o->dev, (int)o->value, o->n); break;
  case OP_MEMSET32:
    for (size_t i = 0; i < o->n; i++) memcpy((char *)(uintptr_t)o->dev + 4 * i, &o->value, 4);
    break;
  case OP_LAUNCH: {
    fake_cuda_launch l = o->launch;
    l.stamp_ns = play_stamp(&l);
    clock_ns += FAKE_CUDA_LAUNCH_NS;
    st.launches++;
    if (l.cooperative) st.cooperative_launches++;
    if (played) played(&l);
    else if (play_chain && !l.cooperative) chain_step(&l);
    break;
  }
  case OP_RECORD:
    o->ev->done = true;
    o->ev->t_ns = clock_ns;
    break;
  }
}

/* Runs queued work up to operation `end` (exclusive); false when a hung
   launch stopped it. */
static bool run_until(CUstream s, size_t end) {
  while (s->head < end) {
    if (hang && s->q[s->head].kind == OP_LAUNCH) return false;
    execute(&s->q[s->head++]);
  }
  if (s->head == s->n) s->head = s->n = 0;
  return true;
}

#define MAX_STREAMS 8
static CUstream streams[MAX_STREAMS]; /* the plugin's, and a benchmark's own */

/* ---- entry points ---- */

CUresult CUDAAPI cuInit(unsigned int flags) {
  ENTER("cuInit");
  const char *play = getenv(FAKE_CUDA_PLAY_ENV);
  play_chain = play && strcmp(play, "chain") == 0;
  return flags ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

CUresult CUDAAPI cuDriverGetVersion(int *v) {
  *v = 13000;
  return CUDA_SUCCESS;
}

static const char *result_name(CUresult r) {
  switch (r) {
  case CUDA_SUCCESS: return "CUDA_SUCCESS";
  case CUDA_ERROR_INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
  case CUDA_ERROR_OUT_OF_MEMORY: return "CUDA_ERROR_OUT_OF_MEMORY";
  case CUDA_ERROR_INVALID_CONTEXT: return "CUDA_ERROR_INVALID_CONTEXT";
  case CUDA_ERROR_UNSUPPORTED_PTX_VERSION: return "CUDA_ERROR_UNSUPPORTED_PTX_VERSION";
  case CUDA_ERROR_ILLEGAL_ADDRESS: return "CUDA_ERROR_ILLEGAL_ADDRESS";
  case CUDA_ERROR_NOT_READY: return "CUDA_ERROR_NOT_READY";
  case CUDA_ERROR_LAUNCH_TIMEOUT: return "CUDA_ERROR_LAUNCH_TIMEOUT";
  case CUDA_ERROR_NOT_SUPPORTED: return "CUDA_ERROR_NOT_SUPPORTED";
  case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE: return "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE";
  default: return NULL;
  }
}

CUresult CUDAAPI cuGetErrorName(CUresult r, const char **s) {
  *s = result_name(r);
  return *s ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGetErrorString(CUresult r, const char **s) {
  *s = r == CUDA_ERROR_OUT_OF_MEMORY ? "out of memory" : result_name(r) ? "fake description" : NULL;
  return *s ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuDeviceGetCount(int *n) {
  *n = device_count;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGet(CUdevice *d, int ordinal) {
  if (ordinal < 0 || ordinal >= device_count) return CUDA_ERROR_INVALID_DEVICE;
  *d = ordinal;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice d) {
  (void)d;
  snprintf(name, (size_t)len, "Fake GPU");
  return CUDA_SUCCESS;
}

static int attribute(CUdevice_attribute a) {
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: return 1024;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: return 1024;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: return 1024;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: return 64;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: return 2147483647;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: return 65535;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: return 65535;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: return 49152;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: return 9;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: return 0;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: return 132;
  case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: return 1;
  case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: return 1980000;
  case CU_DEVICE_ATTRIBUTE_WARP_SIZE: return 32;
  case CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID: return (int)(0x2335u << 16 | 0x10deu);
  default: return -1; /* unknown to this "driver" */
  }
}

CUresult CUDAAPI cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d) {
  (void)d;
  if ((int)a >= 0 && (int)a < 256 && attr_set[a]) {
    *v = attr_override[a];
    return CUDA_SUCCESS;
  }
  *v = attribute(a);
  return *v == -1 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceTotalMem(size_t *bytes, CUdevice d) {
  (void)d;
  *bytes = (size_t)141 << 30;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetUuid(CUuuid *uuid, CUdevice d) {
  (void)d;
  for (int i = 0; i < 16; i++) uuid->bytes[i] = (char)(i * 16 + 15 - i);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetPCIBusId(char *bus, int len, CUdevice d) {
  (void)d;
  snprintf(bus, (size_t)len, "0000:19:00.0");
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) {
  (void)d;
  ENTER("cuDevicePrimaryCtxRetain");
  primary.retains++;
  *c = &primary;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice d) {
  (void)d;
  if (primary.retains <= 0) return CUDA_ERROR_INVALID_CONTEXT;
  primary.retains--;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext c) {
  ENTER("cuCtxSetCurrent");
  if (c && (c != &primary || primary.retains <= 0)) return CUDA_ERROR_INVALID_CONTEXT;
  current = c;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamCreate(CUstream *s, unsigned int flags) {
  (void)flags;
  NEED_CONTEXT();
  int slot = 0;
  while (slot < MAX_STREAMS && streams[slot]) slot++;
  if (slot == MAX_STREAMS) return CUDA_ERROR_OUT_OF_MEMORY;
  *s = calloc(1, sizeof **s);
  if (!*s) return CUDA_ERROR_OUT_OF_MEMORY;
  streams[slot] = *s;
  st.streams++;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamDestroy(CUstream s) {
  NEED_CONTEXT();
  run_until(s, s->n);
  for (int i = 0; i < MAX_STREAMS; i++)
    if (streams[i] == s) streams[i] = NULL;
  free(s->q);
  free(s);
  st.streams--;
  return CUDA_SUCCESS;
}

/* A real driver would wait for ever behind a hung launch; the fake says so. */
CUresult CUDAAPI cuStreamSynchronize(CUstream s) {
  ENTER("cuStreamSynchronize");
  NEED_CONTEXT();
  return run_until(s, s->n) ? CUDA_SUCCESS : CUDA_ERROR_LAUNCH_TIMEOUT;
}

CUresult CUDAAPI cuEventCreate(CUevent *e, unsigned int flags) {
  (void)flags;
  NEED_CONTEXT();
  *e = calloc(1, sizeof **e);
  if (!*e) return CUDA_ERROR_OUT_OF_MEMORY;
  st.events++;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventDestroy(CUevent e) {
  free(e);
  st.events--;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventRecord(CUevent e, CUstream s) {
  NEED_CONTEXT();
  st.event_records++;
  e->done = false;
  e->stream = s;
  return push(s, (op){.kind = OP_RECORD, .ev = e});
}

/* Runs the stream up to the last record of e; false when a hung launch
   stands before it. */
static bool run_to_event(CUevent e) {
  CUstream s = NULL;
  for (int i = 0; i < MAX_STREAMS; i++)
    if (streams[i] && streams[i] == e->stream) s = e->stream;
  for (size_t i = s ? s->n : 0; i > (s ? s->head : 0); i--)
    if (s->q[i - 1].kind == OP_RECORD && s->q[i - 1].ev == e) return run_until(s, i);
  return true;
}

CUresult CUDAAPI cuEventSynchronize(CUevent e) {
  NEED_CONTEXT();
  return run_to_event(e) ? CUDA_SUCCESS : CUDA_ERROR_LAUNCH_TIMEOUT;
}

CUresult CUDAAPI cuEventQuery(CUevent e) {
  ENTER("cuEventQuery");
  NEED_CONTEXT();
  run_to_event(e);
  return e->done ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

CUresult CUDAAPI cuEventElapsedTime(float *ms, CUevent a, CUevent b) {
  if (!a->done || !b->done) return CUDA_ERROR_NOT_READY;
  *ms = (float)(((double)b->t_ns - (double)a->t_ns) / 1e6);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAlloc(CUdeviceptr *p, size_t n) {
  ENTER("cuMemAlloc");
  NEED_CONTEXT();
  void *h = NULL;
  CUresult r = add_alloc(&h, n, false);
  *p = (CUdeviceptr)(uintptr_t)h;
  return r;
}

/* Freeing what queued work may still use is a use after free on a GPU. */
static void note_free(void) {
  for (int i = 0; i < MAX_STREAMS; i++)
    if (streams[i] && streams[i]->n > streams[i]->head) st.unsafe_frees++;
}

CUresult CUDAAPI cuMemFree(CUdeviceptr p) {
  NEED_CONTEXT();
  note_free();
  return drop_alloc((void *)(uintptr_t)p, false);
}

CUresult CUDAAPI cuMemHostAlloc(void **p, size_t n, unsigned int flags) {
  ENTER("cuMemHostAlloc");
  NEED_CONTEXT();
  CUresult r = add_alloc(p, n, true);
  if (r == CUDA_SUCCESS && (flags & CU_MEMHOSTALLOC_DEVICEMAP)) {
    alloc *a = find(*p, 1, true);
    a->mapped = true;
  }
  return r;
}

/* Mapped host memory has one address on both sides (unified addressing). */
CUresult CUDAAPI cuMemHostGetDevicePointer(CUdeviceptr *d, void *p, unsigned int flags) {
  ENTER("cuMemHostGetDevicePointer");
  NEED_CONTEXT();
  const alloc *a = find(p, 1, true);
  if (flags || !a || !a->mapped) return CUDA_ERROR_INVALID_VALUE;
  *d = (CUdeviceptr)(uintptr_t)p;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFreeHost(void *p) {
  NEED_CONTEXT();
  return drop_alloc(p, true);
}

static CUresult copy(op_kind kind, void *host, CUdeviceptr dev, size_t n, CUstream s) {
  NEED_CONTEXT();
  if (!find((void *)(uintptr_t)dev, n, false)) return CUDA_ERROR_INVALID_VALUE;
  if (!find(host, n, true)) st.pageable_async_copies++;
  if (kind == OP_HTOD) st.htod_copies++;
  else st.dtoh_copies++;
  st.last_copy_host = host;
  return push(s, (op){.kind = kind, .host = host, .dev = dev, .n = n});
}

CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t n, CUstream s) {
  ENTER("cuMemcpyHtoDAsync");
  void *host;
  memcpy(&host, &src, sizeof host); /* the queue keeps one pointer type */
  return copy(OP_HTOD, host, dst, n, s);
}

CUresult CUDAAPI cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t n, CUstream s) {
  ENTER("cuMemcpyDtoHAsync");
  return copy(OP_DTOH, dst, src, n, s);
}

CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr dst, unsigned int v, size_t n, CUstream s) {
  NEED_CONTEXT();
  if (!find((void *)(uintptr_t)dst, 4 * n, false)) return CUDA_ERROR_INVALID_VALUE;
  return push(s, (op){.kind = OP_MEMSET32, .dev = dst, .n = n, .value = v});
}

CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, CUstream s) {
  NEED_CONTEXT();
  if (!find((void *)(uintptr_t)dst, n, false)) return CUDA_ERROR_INVALID_VALUE;
  return push(s, (op){.kind = OP_MEMSET8, .dev = dst, .n = n, .value = v});
}

/* Static shared memory: the sum of the .shared arrays the PTX declares. */
static int shared_bytes(const char *ptx) {
  int sum = 0;
  for (const char *p = strstr(ptx, ".shared .align"); p; p = strstr(p + 1, ".shared .align")) {
    const char *b = strchr(p, '['), *eol = strchr(p, '\n');
    if (b && (!eol || b < eol)) sum += atoi(b + 1);
  }
  return sum;
}

static void write_log(unsigned n, const CUjit_option *o, void **v, const char *text) {
  char *buf = NULL;
  size_t size = 0;
  for (unsigned i = 0; i < n; i++) {
    if (o[i] == CU_JIT_INFO_LOG_BUFFER) buf = v[i];
    if (o[i] == CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES) size = (size_t)(uintptr_t)v[i];
  }
  if (buf && size) snprintf(buf, size, "%s", text);
}

/* EM_CUDA, and the .nv.info attribute giving a kernel's parameter bytes
   (EIATTR_CBANK_PARAM_SIZE, a 16-bit value). */
#define FAKE_EM_CUDA 190
#define FAKE_EIATTR_CBANK_PARAM_SIZE 0x19

/* A kernel's parameter bytes from its .nv.info.NAME section: attributes of
   format 1 (2 bytes), 2 or 3 (4 bytes: value in the last two), 4 (a 16-bit
   size, then that many bytes). -1 when not found. */
static int cubin_param_bytes(const unsigned char *p, size_t n) {
  for (size_t i = 0; i + 4 <= n;) {
    unsigned fmt = p[i], attr = p[i + 1], val = (unsigned)p[i + 2] | (unsigned)p[i + 3] << 8;
    if (fmt == 3 && attr == FAKE_EIATTR_CBANK_PARAM_SIZE) return (int)val;
    i += fmt == 1 ? 2 : fmt == 4 ? 4 + val : 4;
  }
  return -1;
}

/* A cubin (an ELF image for EM_CUDA) as the PTX-like text the rest of this
   fake reads: ".entry NAME(" and one ".param .u64" per 8 parameter bytes
   for each kernel (.nv.info.NAME), and the static shared memory (the
   size of .nv.shared.NAME) in *shared. NULL when it is no cubin. */
static char *cubin_summary(const unsigned char *img, int *shared) {
  const Elf64_Ehdr *h = (const void *)img;
  if (h->e_ident[EI_CLASS] != ELFCLASS64 || h->e_machine != FAKE_EM_CUDA || !h->e_shoff ||
      h->e_shentsize != sizeof(Elf64_Shdr) || h->e_shstrndx >= h->e_shnum)
    return NULL;
  const Elf64_Shdr *sh = (const void *)(img + h->e_shoff);
  const char *names = (const char *)img + sh[h->e_shstrndx].sh_offset;
  size_t cap = 4096, len = 0;
  char *out = calloc(1, cap);
  if (!out) return NULL;
  *shared = 0;
  for (unsigned i = 0; i < h->e_shnum; i++) {
    const char *name = names + sh[i].sh_name;
    if (strncmp(name, ".nv.info.", 9) == 0) {
      int bytes = cubin_param_bytes(img + sh[i].sh_offset, sh[i].sh_size);
      len += (size_t)snprintf(out + len, cap - len, ".entry %s(\n", name + 9);
      for (int k = 0; bytes > 0 && k < bytes / 8 && len + 32 < cap; k++)
        len += (size_t)snprintf(out + len, cap - len, ".param .u64 p%d\n", k);
      len += (size_t)snprintf(out + len, cap - len, ")\n");
    }
    /* the kernel's static shared memory; from sm_80 on the section also
       holds the 1 KB the system reserves, which PTX does not declare */
    if (strncmp(name, ".nv.shared.", 11) == 0 && strncmp(name, ".nv.shared.reserved", 19) != 0)
      *shared += (int)(sh[i].sh_size >= 1024 ? sh[i].sh_size - 1024 : sh[i].sh_size);
  }
  return out;
}

/* PTX text, or a cubin (what it holds: cubin_summary); counted apart so that
   a test can tell which the plugin loaded. */
CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned int n,
                                    CUjit_option *o, void **v) {
  ENTER("cuModuleLoadDataEx");
  NEED_CONTEXT();
  bool cubin = memcmp(image, "\177ELF", 4) == 0;
  int cubin_shared = 0;
  char *summary = cubin ? cubin_summary(image, &cubin_shared) : NULL;
  if (cubin && !summary) return CUDA_ERROR_INVALID_IMAGE;
  const char *ptx = cubin ? summary : image;
  const char *entry = strstr(ptx, ".entry ");
  if ((!cubin && !strstr(ptx, ".version")) || !entry) {
    free(summary);
    return cubin ? CUDA_ERROR_NO_BINARY_FOR_GPU : CUDA_ERROR_INVALID_PTX;
  }
  *m = calloc(1, sizeof **m);
  if (!*m) {
    free(summary);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  (*m)->ptx = cubin ? summary : strdup(ptx);
  /* for tests that assemble what the plugin loads */
  const char *out = getenv("FAKE_CUDA_PTX_OUT");
  FILE *f = !cubin && out && *out ? fopen(out, "w") : NULL;
  if (f) {
    fputs(ptx, f);
    fclose(f);
  }
  (*m)->max_threads = kernel_threads;
  (*m)->shared_bytes = cubin ? cubin_shared : shared_bytes(ptx);
  size_t len = strcspn(entry, "(\n");
  snprintf(st.last_ptx_entry, sizeof st.last_ptx_entry, "%.*s", (int)len, entry);
  write_log(n, o, v, cubin ? "fake jit: loaded a cubin" : "fake jit: loaded");
  if (cubin) st.cubin_loads++;
  else st.ptx_loads++;
  st.modules++;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleUnload(CUmodule m) {
  NEED_CONTEXT();
  note_free();
  free(m->ptx);
  free(m);
  st.modules--;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
  char entry[128];
  snprintf(entry, sizeof entry, ".entry %s(", name);
  if (!strstr(m->ptx, entry)) return CUDA_ERROR_NOT_FOUND;
  m->fn.mod = m;
  *f = &m->fn;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction f) {
  switch (a) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = f->mod->max_threads; return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *v = f->mod->shared_bytes; return CUDA_SUCCESS;
  default: return CUDA_ERROR_INVALID_VALUE;
  }
}

static bool dims_ok(const unsigned g[3], const unsigned b[3]) {
  return g[0] && g[1] && g[2] && b[0] && b[1] && b[2] && b[2] <= 64 && g[1] <= 65535 &&
         g[2] <= 65535 && (unsigned long)b[0] * b[1] * b[2] <= 1024;
}

static int blocks_per_sm(int block) {
  if (occupancy >= 0) return occupancy;
  return block <= 256 ? 8 : 2048 / block;
}

static CUresult launch(CUfunction f, const unsigned g[3], const unsigned b[3], unsigned shared,
                       CUstream s, void **params, void **extra, int cooperative) {
  NEED_CONTEXT();
  if (!f || extra || shared || !dims_ok(g, b)) return CUDA_ERROR_INVALID_VALUE;
  memcpy(st.grid, g, sizeof st.grid);
  memcpy(st.block, b, sizeof st.block);
  op o = {.kind = OP_LAUNCH};
  o.launch.cooperative = cooperative;
  memcpy(o.launch.grid, g, sizeof o.launch.grid);
  memcpy(o.launch.block, b, sizeof o.launch.block);
  /* the PTX says how many parameters; each must hold a device address */
  uint32_t n = 0;
  for (const char *p = strstr(f->mod->ptx, ".param .u64"); p; p = strstr(p + 1, ".param .u64"))
    n++;
  st.nparams = n;
  o.launch.nparams = n;
  for (uint32_t i = 0; i < n && i < 64; i++) {
    CUdeviceptr d;
    memcpy(&d, params[i], sizeof d);
    const void *p = (void *)(uintptr_t)d;
    if (!param_ok(p, i, n, cooperative)) return CUDA_ERROR_INVALID_VALUE;
    const alloc *a = param_alloc(p);
    st.param_bytes[i] = a ? a->size : 0;
    o.launch.params[i] = (void *)(uintptr_t)d;
  }
  return push(s, o);
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                                unsigned int bx, unsigned int by, unsigned int bz,
                                unsigned int shared, CUstream s, void **params, void **extra) {
  ENTER("cuLaunchKernel");
  const unsigned g[3] = {gx, gy, gz}, b[3] = {bx, by, bz};
  return launch(f, g, b, shared, s, params, extra, 0);
}

/* Refused, as a driver does, beyond the co-resident blocks. */
CUresult CUDAAPI cuLaunchCooperativeKernel(CUfunction f, unsigned int gx, unsigned int gy,
                                           unsigned int gz, unsigned int bx, unsigned int by,
                                           unsigned int bz, unsigned int shared, CUstream s,
                                           void **params) {
  ENTER("cuLaunchCooperativeKernel");
  int coop = 0;
  cuDeviceGetAttribute(&coop, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 0);
  if (!coop) return CUDA_ERROR_NOT_SUPPORTED;
  int sms = 0;
  cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0);
  unsigned long long blocks = (unsigned long long)gx * gy * gz;
  if (blocks > (unsigned long long)blocks_per_sm((int)(bx * by * bz)) * (unsigned)sms)
    return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
  const unsigned g[3] = {gx, gy, gz}, b[3] = {bx, by, bz};
  return launch(f, g, b, shared, s, params, NULL, 1);
}

CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, CUfunction f, int block,
                                                             size_t dyn) {
  ENTER("cuOccupancyMaxActiveBlocksPerMultiprocessor");
  (void)f;
  (void)dyn;
  *n = blocks_per_sm(block);
  return CUDA_SUCCESS;
}

/* ---- graphs (not built with FAKE_CUDA_NO_GRAPH: a driver without them) ---- */
#ifndef FAKE_CUDA_NO_GRAPH

typedef struct gnode {
  int kernel;              /* else an event record */
  CUfunction fn;
  fake_cuda_launch launch; /* kernel: dimensions and parameter addresses */
  CUevent ev;              /* event record */
  int dep;                 /* the node it depends on, -1: none */
} gnode;

struct CUgraphNode_st {
  CUgraph graph;
  int index;
};

struct CUgraph_st {
  gnode *nodes;
  CUgraphNode *handles;
  int n, cap;
};

/* An instantiated copy: setting a node changes the exec, not the graph. */
struct CUgraphExec_st {
  CUgraph from;
  gnode *nodes;
  int n;
};

static int fail_node = -1; /* kernel node the next instantiation blames */

void fake_cuda_fail_node(int kernel_node) { fail_node = kernel_node; }

/* The parameters of a kernel node, checked as a launch checks them. */
static CUresult kernel_node(const CUDA_KERNEL_NODE_PARAMS *p, gnode *g) {
  const unsigned gd[3] = {p->gridDimX, p->gridDimY, p->gridDimZ};
  const unsigned bd[3] = {p->blockDimX, p->blockDimY, p->blockDimZ};
  if (!p->func || p->extra || p->sharedMemBytes || !dims_ok(gd, bd)) return CUDA_ERROR_INVALID_VALUE;
  memset(g, 0, sizeof *g);
  g->kernel = 1;
  g->fn = p->func;
  memcpy(g->launch.grid, gd, sizeof gd);
  memcpy(g->launch.block, bd, sizeof bd);
  uint32_t n = 0;
  for (const char *s = strstr(p->func->mod->ptx, ".param .u64"); s; s = strstr(s + 1, ".param .u64"))
    n++;
  g->launch.nparams = n;
  for (uint32_t i = 0; i < n && i < 64; i++) {
    CUdeviceptr d;
    memcpy(&d, p->kernelParams[i], sizeof d);
    if (!param_ok((void *)(uintptr_t)d, i, n, 0)) return CUDA_ERROR_INVALID_VALUE;
    g->launch.params[i] = (void *)(uintptr_t)d;
  }
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphCreate(CUgraph *g, unsigned int flags) {
  ENTER("cuGraphCreate");
  NEED_CONTEXT();
  if (flags) return CUDA_ERROR_INVALID_VALUE;
  *g = calloc(1, sizeof **g);
  if (!*g) return CUDA_ERROR_OUT_OF_MEMORY;
  st.graphs++;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphDestroy(CUgraph g) {
  for (int i = 0; i < g->n; i++) free(g->handles[i]);
  free(g->handles);
  free(g->nodes);
  free(g);
  st.graphs--;
  return CUDA_SUCCESS;
}

/* Only chains, as the plugin builds them: a node depends on none or one
   node of the same graph, added before it. */
static CUresult add_node(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps,
                         const gnode *node) {
  if (ndeps > 1 || (ndeps && (!deps[0] || deps[0]->graph != g))) return CUDA_ERROR_INVALID_VALUE;
  if (g->n == g->cap) {
    int cap = g->cap ? 2 * g->cap : 16;
    gnode *n = realloc(g->nodes, (size_t)cap * sizeof *n);
    if (!n) return CUDA_ERROR_OUT_OF_MEMORY;
    g->nodes = n;
    CUgraphNode *h = realloc(g->handles, (size_t)cap * sizeof *h);
    if (!h) return CUDA_ERROR_OUT_OF_MEMORY;
    g->handles = h;
    g->cap = cap;
  }
  CUgraphNode h = calloc(1, sizeof *h);
  if (!h) return CUDA_ERROR_OUT_OF_MEMORY;
  h->graph = g;
  h->index = g->n;
  g->nodes[g->n] = *node;
  g->nodes[g->n].dep = ndeps ? deps[0]->index : -1;
  g->handles[g->n++] = h;
  *out = h;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphAddKernelNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
                                      size_t ndeps, const CUDA_KERNEL_NODE_PARAMS *p) {
  ENTER("cuGraphAddKernelNode");
  NEED_CONTEXT();
  gnode node;
  CUresult r = kernel_node(p, &node);
  return r != CUDA_SUCCESS ? r : add_node(out, g, deps, ndeps, &node);
}

CUresult CUDAAPI cuGraphAddEventRecordNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
                                           size_t ndeps, CUevent e) {
  ENTER("cuGraphAddEventRecordNode");
  NEED_CONTEXT();
  if (!e) return CUDA_ERROR_INVALID_VALUE;
  gnode node = {.ev = e};
  return add_node(out, g, deps, ndeps, &node);
}

CUresult CUDAAPI cuGraphInstantiateWithParams(CUgraphExec *x, CUgraph g,
                                              CUDA_GRAPH_INSTANTIATE_PARAMS *p) {
  ENTER("cuGraphInstantiateWithParams");
  NEED_CONTEXT();
  p->hErrNode_out = NULL;
  p->result_out = CUDA_GRAPH_INSTANTIATE_SUCCESS;
  if (fail_node >= 0) {
    for (int i = 0, k = 0; i < g->n; i++)
      if (g->nodes[i].kernel && k++ == fail_node) p->hErrNode_out = g->handles[i];
    fail_node = -1;
    p->result_out = CUDA_GRAPH_INSTANTIATE_ERROR;
    return CUDA_ERROR_INVALID_VALUE;
  }
  *x = calloc(1, sizeof **x);
  if (!*x) return CUDA_ERROR_OUT_OF_MEMORY;
  (*x)->nodes = malloc((size_t)(g->n ? g->n : 1) * sizeof *g->nodes);
  if (!(*x)->nodes) {
    free(*x);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  if (g->n) memcpy((*x)->nodes, g->nodes, (size_t)g->n * sizeof *g->nodes);
  (*x)->n = g->n;
  (*x)->from = g;
  st.graph_execs++;
  st.graph_instantiations++;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec x) {
  free(x->nodes);
  free(x);
  st.graph_execs--;
  return CUDA_SUCCESS;
}

static gnode *exec_node(CUgraphExec x, CUgraphNode h) {
  return h && h->graph == x->from && h->index < x->n ? &x->nodes[h->index] : NULL;
}

CUresult CUDAAPI cuGraphExecKernelNodeSetParams(CUgraphExec x, CUgraphNode h,
                                                const CUDA_KERNEL_NODE_PARAMS *p) {
  ENTER("cuGraphExecKernelNodeSetParams");
  NEED_CONTEXT();
  gnode *n = exec_node(x, h), node;
  if (!n || !n->kernel) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = kernel_node(p, &node);
  if (r != CUDA_SUCCESS) return r;
  node.dep = n->dep;
  *n = node;
  st.graph_node_sets++;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphExecEventRecordNodeSetEvent(CUgraphExec x, CUgraphNode h, CUevent e) {
  ENTER("cuGraphExecEventRecordNodeSetEvent");
  NEED_CONTEXT();
  gnode *n = exec_node(x, h);
  if (!n || n->kernel || !e) return CUDA_ERROR_INVALID_VALUE;
  n->ev = e;
  st.graph_node_sets++;
  return CUDA_SUCCESS;
}

/* The nodes go on the stream in the order they were added (a chain: the
   order of its dependencies); a kernel node whose buffer was freed since
   it was set is refused as a launch would be. */
CUresult CUDAAPI cuGraphLaunch(CUgraphExec x, CUstream s) {
  ENTER("cuGraphLaunch");
  NEED_CONTEXT();
  for (int i = 0; i < x->n; i++) {
    const gnode *n = &x->nodes[i];
    if (n->dep >= i) return CUDA_ERROR_INVALID_VALUE;
    for (uint32_t k = 0; n->kernel && k < n->launch.nparams; k++)
      if (!param_ok(n->launch.params[k], k, n->launch.nparams, 0)) return CUDA_ERROR_INVALID_VALUE;
  }
  for (int i = 0; i < x->n; i++) {
    const gnode *n = &x->nodes[i];
    CUresult r;
    if (n->kernel) {
      memcpy(st.grid, n->launch.grid, sizeof st.grid);
      memcpy(st.block, n->launch.block, sizeof st.block);
      r = push(s, (op){.kind = OP_LAUNCH, .launch = n->launch});
    } else {
      n->ev->done = false;
      n->ev->stream = s;
      r = push(s, (op){.kind = OP_RECORD, .ev = n->ev});
    }
    if (r != CUDA_SUCCESS) return r;
  }
  st.graph_launches++;
  return CUDA_SUCCESS;
}

#endif

/* The driver faults of harness/base/mutants.h (kind FAULT), as a table
 * whose operations call the wrapped plugin's. Each fault is one decision in
 * one operation; the bookkeeping (sizes, the element type a buffer was
 * last bound as, the first upload, snapshots) is what the decisions need. */
#include "harness/exec/fault.h"

#include <stdlib.h>
#include <string.h>

#include "harness/base/mutant.h"

#ifndef VC_MUTANTS
const vc_backend *vc_fault_wrap(const vc_backend *be) { return be; }
#else

typedef struct buf_info {
  vc_buf *buf;
  uint64_t bytes;
  vc_type type;     /* element type of the binding it last had */
  void *first;      /* stale-upload: the bytes of its first upload */
  uint64_t nfirst;
  void *snap;       /* early-finish: its contents before the pending launches */
} buf_info;

typedef struct kern_info {
  vc_kern *kern;
  uint32_t n;
  vc_type *types; /* per binding */
} kern_info;

typedef struct held_launch { /* reorder-launches */
  vc_dev *dev;
  vc_kern *kern;
  vc_buf **bufs;
  uint32_t nbufs;
} held_launch;

static const vc_backend *inner;
static vc_backend wrapped;
static buf_info *bufs;
static uint32_t nbufs, capbufs;
static kern_info *kerns;
static uint32_t nkerns, capkerns;
static held_launch held;
static uint32_t launches_since_finish, downloads_since_finish;

static buf_info *find_buf(vc_buf *b) {
  for (uint32_t i = 0; i < nbufs; i++)
    if (bufs[i].buf == b) return &bufs[i];
  return NULL;
}

static kern_info *find_kern(vc_kern *k) {
  for (uint32_t i = 0; i < nkerns; i++)
    if (kerns[i].kern == k) return &kerns[i];
  return NULL;
}

static void *grow(void *p, uint32_t *cap, size_t elem) {
  *cap = *cap ? *cap * 2 : 16;
  p = realloc(p, *cap * elem);
  if (!p) abort();
  return p;
}

static int f_compile(vc_dev *dev, const vc_kernel_desc *k, vc_kern **kern, vc_compile_info *info,
                     vc_error *err) {
  int rc = inner->compile(dev, k, kern, info, err);
  if (rc) return rc;
  if (nkerns == capkerns) kerns = grow(kerns, &capkerns, sizeof *kerns);
  kern_info *ki = &kerns[nkerns++];
  const vc_buffer *b = k->kind == VC_KERNEL_NATIVE ? k->native->buffers : k->prog->buffers;
  ki->kern = *kern;
  ki->n = k->kind == VC_KERNEL_NATIVE ? k->native->nbuffers : k->prog->nbuffers;
  ki->types = calloc(ki->n ? ki->n : 1, sizeof *ki->types);
  if (!ki->types) abort();
  for (uint32_t i = 0; i < ki->n; i++) ki->types[i] = b[i].type;
  return 0;
}

static void f_free_kernel(vc_dev *dev, vc_kern *kern) {
  kern_info *ki = find_kern(kern);
  if (ki) {
    free(ki->types);
    *ki = kerns[--nkerns];
  }
  inner->free_kernel(dev, kern);
}

static int f_alloc(vc_dev *dev, uint64_t bytes, vc_buf **buf, vc_error *err) {
  int rc = inner->alloc(dev, bytes, buf, err);
  if (rc) return rc;
  if (nbufs == capbufs) bufs = grow(bufs, &capbufs, sizeof *bufs);
  bufs[nbufs++] = (buf_info){*buf, bytes, VC_U32, NULL, 0, NULL};
  return 0;
}

static void f_free_buffer(vc_dev *dev, vc_buf *buf) {
  buf_info *bi = find_buf(buf);
  if (bi) {
    free(bi->first);
    free(bi->snap);
    *bi = bufs[--nbufs];
  }
  inner->free_buffer(dev, buf);
}

static int f_upload(vc_dev *dev, vc_buf *buf, const void *src, uint64_t bytes, vc_error *err) {
  buf_info *bi = find_buf(buf);
  if (bi && VC_MUTANT(STALE_UPLOAD)) {
    if (!bi->first) {
      bi->first = malloc(bytes ? bytes : 1);
      if (!bi->first) abort();
      memcpy(bi->first, src, bytes);
      bi->nfirst = bytes;
    } else if (bi->nfirst >= bytes) {
      src = bi->first; /* the driver's staging copy was never refreshed */
    }
  }
  return inner->upload(dev, buf, src, bytes, err);
}

static void flush_denormals(uint32_t *w, uint64_t n) {
  for (uint64_t i = 0; i < n; i++)
    if ((w[i] & 0x7f800000u) == 0 && (w[i] & 0x007fffffu) != 0) w[i] &= 0x80000000u;
}

static int f_download(vc_dev *dev, vc_buf *buf, void *dst, uint64_t bytes, vc_error *err) {
  buf_info *bi = find_buf(buf);
  if (VC_MUTANT(DROP_DOWNLOAD) && downloads_since_finish++ == 0) return 0;
  if (bi && bi->snap && VC_MUTANT(EARLY_FINISH)) {
    memcpy(dst, bi->snap, bytes <= bi->bytes ? bytes : bi->bytes);
    free(bi->snap);
    bi->snap = NULL;
    return 0;
  }
  int rc = inner->download(dev, buf, dst, bytes, err);
  if (!rc && bi && bi->type == VC_F32 && VC_MUTANT(FLUSH_DENORMALS)) flush_denormals(dst, bytes / 4);
  return rc;
}

static int f_zero(vc_dev *dev, vc_buf *buf, vc_error *err) { return inner->zero(dev, buf, err); }

/* A device that flushes the denormals it loads: the f32 buffer as a kernel
   about to run sees it. */
static int flush_in_device(vc_dev *dev, vc_buf *buf, uint64_t bytes, vc_error *err) {
  uint32_t *w = malloc(bytes ? bytes : 1);
  if (!w) abort();
  int rc = inner->download(dev, buf, w, bytes, err);
  if (!rc) flush_denormals(w, bytes / 4);
  if (!rc) rc = inner->upload(dev, buf, w, bytes, err);
  free(w);
  return rc;
}

static int launch_now(vc_dev *dev, vc_kern *kern, vc_buf *const *b, uint32_t n, vc_error *err) {
  kern_info *ki = find_kern(kern);
  for (uint32_t i = 0; i < n; i++) {
    buf_info *bi = find_buf(b[i]);
    if (!bi) continue;
    if (ki && i < ki->n) bi->type = ki->types[i];
    if (bi->type == VC_F32 && VC_MUTANT(FLUSH_DENORMAL_INPUTS)) {
      int rc = flush_in_device(dev, b[i], bi->bytes, err);
      if (rc) return rc;
    }
    if (VC_MUTANT(EARLY_FINISH) && !bi->snap) { /* what a read sees before the launch ran */
      bi->snap = malloc(bi->bytes ? bi->bytes : 1);
      if (!bi->snap) abort();
      int rc = inner->download(dev, b[i], bi->snap, bi->bytes, err);
      if (rc) return rc;
    }
  }
  return inner->launch(dev, kern, b, n, err);
}

static int release_held(vc_error *err) {
  if (!held.kern) return 0;
  int rc = launch_now(held.dev, held.kern, held.bufs, held.nbufs, err);
  free(held.bufs);
  memset(&held, 0, sizeof held);
  return rc;
}

static int f_launch(vc_dev *dev, vc_kern *kern, vc_buf *const *b, uint32_t n, vc_error *err) {
  if (VC_MUTANT(LOSE_LAUNCH) && launches_since_finish++ % 2 == 1) return 0;
  if (VC_MUTANT(REORDER_LAUNCHES)) {
    if (!held.kern) { /* keep it until the next launch or finish */
      held = (held_launch){dev, kern, malloc((n ? n : 1) * sizeof *b), n};
      if (!held.bufs) abort();
      memcpy(held.bufs, b, n * sizeof *b);
      return 0;
    }
    int rc = launch_now(dev, kern, b, n, err);
    return rc ? rc : release_held(err);
  }
  return launch_now(dev, kern, b, n, err);
}

static int f_finish(vc_dev *dev, uint64_t *device_ns, uint32_t cap, uint32_t *count,
                    vc_error *err) {
  int rc = release_held(err);
  launches_since_finish = 0;
  downloads_since_finish = 0;
  if (rc) return rc;
  return inner->finish(dev, device_ns, cap, count, err);
}

const vc_backend *vc_fault_wrap(const vc_backend *be) {
  const char *fault = getenv("VYRE_CONFORM_FAULT");
  if (!fault || !*fault || (inner && inner != be)) return be;
  (void)VC_MUTANT(DROP_DOWNLOAD); /* refuses an unknown name, or a mutant's, with status 2 */
  inner = be;
  wrapped = *be;
  wrapped.compile = f_compile;
  wrapped.free_kernel = f_free_kernel;
  wrapped.alloc = f_alloc;
  wrapped.free_buffer = f_free_buffer;
  wrapped.upload = f_upload;
  wrapped.download = f_download;
  wrapped.zero = f_zero;
  wrapped.launch = f_launch;
  wrapped.finish = f_finish;
  return &wrapped;
}
#endif

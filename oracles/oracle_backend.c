/* The oracle backend table (oracle_backend.h). */
#include "oracles/oracle_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vc_dev {
  vc_oracle_opts opts;
  vc_oracle_report report;    /* merged over the launches */
  vc_oracle_scratch *scratch; /* shadow pages kept from one launch to the next */
};

struct vc_kern {
  vc_oracle *oracle;
  uint32_t nbuffers;
  uint32_t *counts; /* words of each bound buffer */
  char label[64];
};

struct vc_buf {
  uint64_t bytes;
  uint32_t *data;
};

static int device_count(uint32_t *count, vc_error *err) {
  (void)err;
  *count = 1;
  return 0;
}

static int set_option(vc_oracle_opts *o, const char *key, const char *val, vc_error *err) {
  if (strcmp(key, "order") == 0) {
    if (strcmp(val, "forward") == 0) o->order = VC_ORDER_FORWARD;
    else if (strcmp(val, "reverse") == 0) o->order = VC_ORDER_REVERSE;
    else if (strcmp(val, "shuffle") == 0) o->order = VC_ORDER_SHUFFLE;
    else return vc_fail(err, VC_ERR_USAGE, "oracle: order=%s: forward, reverse or shuffle", val);
  } else if (strcmp(key, "seed") == 0) {
    char *end;
    o->seed = strtoull(val, &end, 0);
    if (!*val || *end) return vc_fail(err, VC_ERR_USAGE, "oracle: seed=%s: not a number", val);
  } else if (strcmp(key, "checks") == 0 && (!strcmp(val, "on") || !strcmp(val, "off"))) {
    o->no_checks = strcmp(val, "off") == 0;
  } else if (strcmp(key, "deadline") == 0) {
    char *end;
    o->deadline_ns = strtoull(val, &end, 0);
    if (!*val || *end) return vc_fail(err, VC_ERR_USAGE, "oracle: deadline=%s: not a number", val);
  } else {
    return vc_fail(err, VC_ERR_USAGE,
                   "oracle: unknown option %s=%s (order, seed, checks=on|off, deadline)", key, val);
  }
  return 0;
}

static int parse_options(vc_oracle_opts *o, const char *options, vc_error *err) {
  char buf[256];
  if (!options || !*options) return 0;
  if (strlen(options) >= sizeof buf)
    return vc_fail(err, VC_ERR_USAGE, "oracle: options longer than %zu characters", sizeof buf - 1);
  strcpy(buf, options);
  char *save = NULL;
  for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(kv, '=');
    if (!eq) return vc_fail(err, VC_ERR_USAGE, "oracle: option %s: expected key=value", kv);
    *eq = '\0';
    int rc = set_option(o, kv, eq + 1, err);
    if (rc) return rc;
  }
  return 0;
}

static int open_dev(uint32_t index, const char *options, vc_dev **dev, vc_error *err) {
  *dev = NULL;
  if (index != 0) return vc_fail(err, VC_ERR_NO_DEVICE, "oracle: no device %u (there is one)", index);
  vc_dev *d = calloc(1, sizeof *d);
  if (d && !(d->scratch = vc_oracle_scratch_new())) {
    free(d);
    d = NULL;
  }
  if (!d) return vc_fail(err, VC_ERR_NOMEM, "oracle: out of memory");
  int rc = parse_options(&d->opts, options, err);
  if (rc) {
    vc_oracle_scratch_free(d->scratch);
    free(d);
    return rc;
  }
  *dev = d;
  return 0;
}

static int describe(vc_dev *dev, vc_device_info *info, vc_error *err) {
  (void)dev;
  (void)err;
  memset(info, 0, sizeof *info);
  snprintf(info->api, sizeof info->api, "oracle");
  snprintf(info->api_version, sizeof info->api_version, "1");
  snprintf(info->driver_name, sizeof info->driver_name, "vyre-conform oracle");
  snprintf(info->driver_version, sizeof info->driver_version, "bytecode interpreter");
  snprintf(info->device_name, sizeof info->device_name, "CPU reference interpreter");
  info->compute_units = 1;
  info->max_workgroup_invocations = VC_MAX_WORKGROUP_INVOCATIONS;
  for (int i = 0; i < 3; i++) {
    info->max_workgroup_size[i] = VC_MAX_WORKGROUP_INVOCATIONS;
    info->max_grid[i] = VC_MAX_GRID_DIM;
  }
  info->max_shared_bytes = VC_MAX_SHARED_BYTES;
  info->max_buffer_bytes = (uint64_t)VC_MAX_BUFFER_ELEMS * 4u;
  snprintf(info->float_env, sizeof info->float_env, "denorm32=preserve rounding32=rte contract=off");
  return 0;
}

static void close_dev(vc_dev *dev) {
  if (dev) vc_oracle_scratch_free(dev->scratch);
  free(dev);
}

static int refuse_native(const vc_kernel_desc *k, vc_error *err) {
  if (k->kind == VC_KERNEL_SEGMENT && k->prog) return 0;
  if (k->kind != VC_KERNEL_SEGMENT)
    return vc_fail(err, VC_ERR_UNSUPPORTED,
                   "oracle: %s: native kernels are not supported (the oracle runs the unsplit "
                   "program itself)", k->label ? k->label : "kernel");
  return vc_fail(err, VC_ERR_USAGE, "oracle: kernel without a program");
}

static int emit(const vc_kernel_desc *k, vc_dev *dev, char **source, vc_error *err) {
  (void)dev;
  *source = NULL;
  int rc = refuse_native(k, err);
  vc_oracle *o = NULL;
  if (!rc) rc = vc_oracle_compile(k->prog, &o, err);
  if (rc) return rc;
  *source = vc_oracle_disassemble(o);
  vc_oracle_free(o);
  return 0;
}

static void free_kernel(vc_dev *dev, vc_kern *kern) {
  (void)dev;
  if (!kern) return;
  vc_oracle_free(kern->oracle);
  free(kern->counts);
  free(kern);
}

static int compile(vc_dev *dev, const vc_kernel_desc *k, vc_kern **out, vc_compile_info *info,
                   vc_error *err) {
  (void)dev;
  *out = NULL;
  if (info) memset(info, 0, sizeof *info);
  int rc = refuse_native(k, err);
  if (rc) return rc;
  vc_kern *kern = calloc(1, sizeof *kern);
  if (kern) kern->counts = calloc(k->prog->nbuffers + 1u, sizeof *kern->counts);
  if (!kern || !kern->counts) {
    free_kernel(dev, kern);
    return vc_fail(err, VC_ERR_NOMEM, "oracle: out of memory");
  }
  rc = vc_oracle_compile(k->prog, &kern->oracle, err);
  if (rc) {
    free_kernel(dev, kern);
    return rc;
  }
  kern->nbuffers = k->prog->nbuffers;
  for (uint32_t i = 0; i < kern->nbuffers; i++)
    kern->counts[i] = k->prog->buffers[i].count * vc_type_words(k->prog->buffers[i].type);
  snprintf(kern->label, sizeof kern->label, "%s", k->label ? k->label : "");
  *out = kern;
  return 0;
}

static int alloc(vc_dev *dev, uint64_t bytes, vc_buf **out, vc_error *err) {
  (void)dev;
  *out = NULL;
  vc_buf *b = calloc(1, sizeof *b);
  if (b && bytes <= SIZE_MAX - 4) b->data = calloc((size_t)(bytes + 3) / 4 + 1, 4);
  if (!b || !b->data) {
    free(b);
    return vc_fail(err, VC_ERR_NOMEM, "oracle: cannot allocate a buffer of %llu bytes",
                   (unsigned long long)bytes);
  }
  b->bytes = bytes;
  *out = b;
  return 0;
}

static void free_buffer(vc_dev *dev, vc_buf *buf) {
  (void)dev;
  if (!buf) return;
  free(buf->data);
  free(buf);
}

static int check_size(const vc_buf *buf, uint64_t bytes, const char *what, vc_error *err) {
  if (bytes <= buf->bytes) return 0;
  return vc_fail(err, VC_ERR_USAGE, "oracle: %s of %llu bytes into a buffer of %llu bytes", what,
                 (unsigned long long)bytes, (unsigned long long)buf->bytes);
}

static int upload(vc_dev *dev, vc_buf *buf, const void *src, uint64_t bytes, vc_error *err) {
  (void)dev;
  int rc = check_size(buf, bytes, "upload", err);
  if (!rc && bytes) memcpy(buf->data, src, (size_t)bytes);
  return rc;
}

static int download(vc_dev *dev, vc_buf *buf, void *dst, uint64_t bytes, vc_error *err) {
  (void)dev;
  int rc = check_size(buf, bytes, "download", err);
  if (!rc && bytes) memcpy(dst, buf->data, (size_t)bytes);
  return rc;
}

static int zero(vc_dev *dev, vc_buf *buf, vc_error *err) {
  (void)dev;
  (void)err;
  memset(buf->data, 0, (size_t)buf->bytes);
  return 0;
}

/* The first issue of each kind this launch adds to the device report names
   the kernel. */
static void label_issues(const vc_dev *d, const vc_kern *k, vc_oracle_report *r) {
  for (uint32_t i = 0; i < VC_ISSUE_COUNT && k->label[0]; i++) {
    vc_oracle_issue *is = &r->issues[i];
    if (!is->count || d->report.issues[i].count) continue;
    char msg[sizeof is->msg];
    snprintf(msg, sizeof msg, "%s: %s", k->label, is->msg);
    memcpy(is->msg, msg, sizeof msg);
  }
}

static int launch(vc_dev *dev, vc_kern *kern, vc_buf *const *bufs, uint32_t nbufs, vc_error *err) {
  if (nbufs != kern->nbuffers)
    return vc_fail(err, VC_ERR_USAGE, "oracle: %s: %u buffers bound, the kernel has %u",
                   kern->label, nbufs, kern->nbuffers);
  uint32_t **data = calloc(nbufs + 1u, sizeof *data);
  if (!data) return vc_fail(err, VC_ERR_NOMEM, "oracle: out of memory");
  int rc = 0;
  for (uint32_t i = 0; i < nbufs && !rc; i++) {
    rc = check_size(bufs[i], (uint64_t)kern->counts[i] * 4u, "binding", err);
    data[i] = bufs[i]->data;
  }
  vc_oracle_report r;
  if (!rc) rc = vc_oracle_run_with(kern->oracle, data, &dev->opts, dev->scratch, &r, err);
  free(data);
  if (rc) return rc;
  label_issues(dev, kern, &r);
  vc_oracle_report_merge(&dev->report, &r);
  return 0;
}

static int finish(vc_dev *dev, uint64_t *device_ns, uint32_t cap, uint32_t *count, vc_error *err) {
  (void)dev;
  (void)device_ns;
  (void)cap;
  (void)err;
  *count = 0;
  return 0;
}

static int native_stats(vc_dev *dev, vc_kern *kern, vc_native_stats *stats, vc_error *err) {
  (void)dev;
  (void)kern;
  (void)stats;
  return vc_fail(err, VC_ERR_UNSUPPORTED, "oracle: no native kernels");
}

static const vc_backend table = {
    .abi_version = VC_BACKEND_ABI_VERSION,
    .struct_size = sizeof(vc_backend),
    .name = "oracle",
    .device_count = device_count,
    .open = open_dev,
    .describe = describe,
    .close = close_dev,
    .emit = emit,
    .compile_offline = NULL,
    .compile = compile,
    .free_kernel = free_kernel,
    .alloc = alloc,
    .free_buffer = free_buffer,
    .upload = upload,
    .download = download,
    .zero = zero,
    .launch = launch,
    .finish = finish,
    .native_stats = native_stats,
};

const vc_backend *vc_oracle_backend(void) { return &table; }

int vc_oracle_backend_report(vc_dev *d, vc_oracle_report *r) {
  if (!d || !r) return VC_ERR_USAGE;
  *r = d->report;
  return 0;
}
